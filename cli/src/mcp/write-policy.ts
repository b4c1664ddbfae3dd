import { GradualApiError, type GradualClient } from '@gradual/sdk';
import { CliError } from '../errors.js';

export type Kind = 'flag' | 'config';

/** The flag or config in one environment that a write is about. */
export interface WriteTarget {
  envId: string;
  key: string;
  kind: Kind;
}

/** How the API treats this server's API key's rollout changes. */
export type KeyMode = 'approval-required' | 'direct';

/** An ETag no representation ever has (the server's ETags are hashes): the probe's If-Match never matches. */
const PROBE_ETAG = '"gradual-mcp-approval-check"';
const PROBE_REASON = 'gradual mcp: approval check (If-Match never matches; changes nothing)';

/**
 * The MCP server's write policy: unless the operator allows direct writes, a write tool runs only
 * when the API key is approval-required, so that every change an agent makes is a proposal that
 * waits for a person.
 *
 * The API has no route where a key reads its own properties, so the policy asks the API before
 * the first write. It sends a write that an approval-required key may not make (a flag's or
 * config's base value: not divertible, so `403 approval_not_supported`, docs/auth.md step 7) and
 * that changes nothing for any other key: the target's current value, under an If-Match that
 * never matches (`412 precondition_failed`, checked before anything is written). The probe goes
 * to the write's own environment and key, so the key's scope checks are the write's own; a
 * refusal there (`token_action_denied`, `token_env_out_of_scope`, `not_found`…) is the answer the
 * write itself would get. A key's properties never change, so the answer is kept for the
 * process's life.
 */
export class WritePolicy {
  private mode: Promise<KeyMode> | undefined;

  constructor(
    private readonly client: GradualClient,
    readonly allowDirectWrites: boolean,
  ) {}

  /** Resolves when a write to `target` may go ahead; rejects with the reason it may not. */
  async check(target: WriteTarget): Promise<void> {
    if (this.allowDirectWrites) return;
    if ((await this.modeFor(target)) === 'direct') {
      throw new CliError(
        'direct_write_refused',
        'This API key is not approval-required: its rollout changes would apply at once, without a person approving them, and gradual mcp refuses direct writes. ' +
          'Use an API key minted with requiresApproval: true (its changes become proposals an admin applies), or have the operator start `gradual mcp --allow-direct-writes`.',
      );
    }
  }

  private modeFor(target: WriteTarget): Promise<KeyMode> {
    const known = this.mode;
    if (known) return known;
    const asked = probe(this.client, target);
    this.mode = asked;
    // A probe refused for this target (scope, a missing flag) says nothing of the key: ask again next time.
    asked.catch(() => {
      if (this.mode === asked) this.mode = undefined;
    });
    return asked;
  }
}

async function probe(client: GradualClient, { envId, key, kind }: WriteTarget): Promise<KeyMode> {
  const path = { envId, key };
  const headers = { 'if-match': PROBE_ETAG, 'x-audit-reason': PROBE_REASON };
  try {
    if (kind === 'flag') {
      const { value } = await client.getFlagState({ path });
      await client.setFlagValue({ path, body: { value }, headers });
    } else {
      const { value } = await client.getConfigState({ path });
      await client.setConfigValue({ path, body: { value }, headers });
    }
    // Accepted: the key writes directly (the value was set to itself, which commits nothing).
    return 'direct';
  } catch (err) {
    if (err instanceof GradualApiError) {
      if (err.code === 'approval_not_supported') return 'approval-required';
      if (err.code === 'precondition_failed') return 'direct';
    }
    throw err;
  }
}
