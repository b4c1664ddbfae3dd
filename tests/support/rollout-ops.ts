import type { GradualClient, Rollout, TargetIdsAdded, TargetIdsCount, TargetIdsRemoved } from '@gradual/sdk';

export type Kind = 'flag' | 'config';
type Path = { envId: string; key: string };

/**
 * The rollout family of one primitive kind, through the generated SDK. Tests
 * written against this run unchanged for flags and for configs. Mutations are
 * typed with their direct (200) answers: these helpers are for callers whose
 * writes are not diverted to approval proposals (202, see proposals.test.ts).
 */
export function rolloutOps(api: GradualClient, kind: Kind) {
  const f = kind === 'flag';
  return {
    get: (path: Path) => (f ? api.getFlagRollout({ path }) : api.getConfigRollout({ path })),
    getWithResponse: (path: Path, headers: Record<string, string> = {}) =>
      f ? api.withResponse.getFlagRollout({ path, headers }) : api.withResponse.getConfigRollout({ path, headers }),
    put: (path: Path, body: Parameters<GradualClient['putFlagRollout']>[0]['body'], headers: Record<string, string> = {}) =>
      (f ? api.putFlagRollout({ path, body, headers }) : api.putConfigRollout({ path, body, headers })) as Promise<Rollout>,
    pause: (path: Path, headers: Record<string, string> = {}) =>
      (f ? api.pauseFlagRollout({ path, headers }) : api.pauseConfigRollout({ path, headers })) as Promise<Rollout>,
    resume: (path: Path) => (f ? api.resumeFlagRollout({ path }) : api.resumeConfigRollout({ path })) as Promise<Rollout>,
    cancel: (path: Path) => (f ? api.cancelFlagRollout({ path }) : api.cancelConfigRollout({ path })) as Promise<Rollout>,
    delete: (path: Path) => (f ? api.deleteFlagRollout({ path }) : api.deleteConfigRollout({ path })) as Promise<void>,
    advance: (path: Path) => (f ? api.advanceFlagRollout({ path }) : api.advanceConfigRollout({ path })) as Promise<Rollout>,
    add: (path: Path, targetIds: string[]) =>
      (f ? api.addFlagTargetIds({ path, body: { targetIds } }) : api.addConfigTargetIds({ path, body: { targetIds } })) as Promise<TargetIdsAdded>,
    remove: (path: Path, targetIds: string[]) =>
      (f ? api.removeFlagTargetIds({ path, body: { targetIds } }) : api.removeConfigTargetIds({ path, body: { targetIds } })) as Promise<TargetIdsRemoved>,
    replace: (path: Path, targetIds: string[]) =>
      (f ? api.replaceFlagTargetIds({ path, body: { targetIds } }) : api.replaceConfigTargetIds({ path, body: { targetIds } })) as Promise<TargetIdsCount>,
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
