import type { GradualClient, MutationResult } from '@gradual/sdk';

export type Kind = 'flag' | 'config';
type Path = { envId: string; key: string };

/** The answer of a write that was applied; a write diverted to a proposal throws. */
export async function applied<T>(call: Promise<MutationResult<T>>): Promise<T> {
  const result = await call;
  if (result.kind === 'proposed') throw new Error(`expected an applied write, got proposal ${result.proposal.id} (${result.proposal.kind})`);
  return result.data;
}

/**
 * The rollout family of one primitive kind, through the generated SDK. Tests
 * written against this run unchanged for flags and for configs. Mutations resolve
 * with their applied answers: these helpers are for callers whose writes are
 * not diverted to approval proposals (202, see proposals.test.ts).
 */
export function rolloutOps(api: GradualClient, kind: Kind) {
  const f = kind === 'flag';
  return {
    get: (path: Path) => (f ? api.getFlagRollout({ path }) : api.getConfigRollout({ path })),
    getWithResponse: (path: Path, headers: Record<string, string> = {}) =>
      f ? api.withResponse.getFlagRollout({ path, headers }) : api.withResponse.getConfigRollout({ path, headers }),
    put: (path: Path, body: Parameters<GradualClient['putFlagRollout']>[0]['body'], headers: Record<string, string> = {}) =>
      applied(f ? api.putFlagRollout({ path, body, headers }) : api.putConfigRollout({ path, body, headers })),
    pause: (path: Path, headers: Record<string, string> = {}) =>
      applied(f ? api.pauseFlagRollout({ path, headers }) : api.pauseConfigRollout({ path, headers })),
    resume: (path: Path) => applied(f ? api.resumeFlagRollout({ path }) : api.resumeConfigRollout({ path })),
    cancel: (path: Path) => applied(f ? api.cancelFlagRollout({ path }) : api.cancelConfigRollout({ path })),
    delete: (path: Path) => applied(f ? api.deleteFlagRollout({ path }) : api.deleteConfigRollout({ path })),
    advance: (path: Path) => applied(f ? api.advanceFlagRollout({ path }) : api.advanceConfigRollout({ path })),
    add: (path: Path, targetIds: string[]) =>
      applied(f ? api.addFlagTargetIds({ path, body: { targetIds } }) : api.addConfigTargetIds({ path, body: { targetIds } })),
    remove: (path: Path, targetIds: string[]) =>
      applied(f ? api.removeFlagTargetIds({ path, body: { targetIds } }) : api.removeConfigTargetIds({ path, body: { targetIds } })),
    replace: (path: Path, targetIds: string[]) =>
      applied(f ? api.replaceFlagTargetIds({ path, body: { targetIds } }) : api.replaceConfigTargetIds({ path, body: { targetIds } })),
    list: (path: Path, query: { cursor?: string; limit?: number } = {}) => (f ? api.listFlagTargetIds({ path, query }) : api.listConfigTargetIds({ path, query })),
    contains: (path: Path & { targetId: string }) => (f ? api.checkFlagTargetId({ path }) : api.checkConfigTargetId({ path })),
    state: (path: Path) => (f ? api.getFlagState({ path }) : api.getConfigState({ path })),
    setRules: (path: Path, rules: Parameters<GradualClient['setFlagRules']>[0]['body']['rules']) =>
      f ? api.setFlagRules({ path, body: { rules } }) : api.setConfigRules({ path, body: { rules } }),
  };
}

/** Every target ID of a flag's list, page by page (10,000 a page). */
export async function allFlagTargetIds(api: GradualClient, envId: string, key: string): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await api.listFlagTargetIds({ path: { envId, key }, query: { limit: 10_000, ...(cursor ? { cursor } : {}) } });
    out.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}
