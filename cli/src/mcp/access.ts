import type { Whoami } from '@gradual/sdk';

/**
 * What the write tools do with this server's credentials:
 * - `proposals`: the key is approval-required; every write becomes a proposal a person applies.
 * - `direct`: writes apply at once; only with `--allow-direct-writes`.
 * - `none`: the write tools are withheld (a direct key without `--allow-direct-writes`, or a
 *   read-only key).
 */
export type WriteMode = 'proposals' | 'direct' | 'none';

export interface Access {
  /** The organization the tools work in: the API key's own. */
  org: string | undefined;
  /** Who the credentials are, for the agent's instructions and the log. */
  who: string;
  writes: WriteMode;
  /** Why writes are withheld (`writes: 'none'`): the tool error's code and message. */
  refusal?: { code: string; message: string };
}

/**
 * The write policy (docs/mcp.md): write tools are offered only when the API key is
 * approval-required, so that nothing an agent does changes a rollout before a person approves
 * it, unless the operator allows direct writes. `GET /auth/whoami` tells a key its own
 * properties, so the policy is settled once, before the first tool is listed.
 */
export function accessOf(whoami: Whoami, allowDirectWrites: boolean, configuredOrg: string | undefined): Access {
  if (whoami.type === 'session') {
    // A session's writes always apply directly; the organization is the configured one.
    const who = `the session of ${whoami.session.user.email}`;
    return allowDirectWrites ? { org: configuredOrg, who, writes: 'direct' } : { org: configuredOrg, who, writes: 'none', refusal: directRefusal('This session') };
  }
  const { apiKey, organization } = whoami;
  const access = { org: organization.slug, who: `the API key "${apiKey.name}" of the organization "${organization.slug}"` };
  if (!apiKey.actions.includes('write')) {
    return { ...access, writes: 'none', refusal: { code: 'token_action_denied', message: 'This API key lacks the write action: it can read, not propose changes.' } };
  }
  if (apiKey.requiresApproval) return { ...access, writes: 'proposals' };
  if (allowDirectWrites) return { ...access, writes: 'direct' };
  return { ...access, writes: 'none', refusal: directRefusal('This API key') };
}

const directRefusal = (subject: string) => ({
  code: 'direct_write_refused',
  message:
    `${subject} is not approval-required: its rollout changes would apply at once, without a person approving them, so gradual mcp offers no write tools. ` +
    'Use an API key minted with requiresApproval: true (its changes become proposals an admin applies), or have the operator start `gradual mcp --allow-direct-writes`.',
});
