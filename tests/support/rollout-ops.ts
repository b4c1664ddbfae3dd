import type { GradualClient } from '@gradual/sdk';

export type Kind = 'flag' | 'config';
type Path = { envId: string; key: string };

/**
 * The rollout family of one primitive kind, through the generated SDK. Tests
 * written against this run unchanged for flags and for configs.
 */
export function rolloutOps(api: GradualClient, kind: Kind) {
  const f = kind === 'flag';
  return {
    get: (path: Path) => (f ? api.getFlagRollout({ path }) : api.getConfigRollout({ path })),
    getWithResponse: (path: Path, headers: Record<string, string> = {}) =>
      f ? api.withResponse.getFlagRollout({ path, headers }) : api.withResponse.getConfigRollout({ path, headers }),
    put: (path: Path, body: Parameters<GradualClient['putFlagRollout']>[0]['body'], headers: Record<string, string> = {}) =>
      f ? api.putFlagRollout({ path, body, headers }) : api.putConfigRollout({ path, body, headers }),
    pause: (path: Path, headers: Record<string, string> = {}) => (f ? api.pauseFlagRollout({ path, headers }) : api.pauseConfigRollout({ path, headers })),
    resume: (path: Path) => (f ? api.resumeFlagRollout({ path }) : api.resumeConfigRollout({ path })),
    cancel: (path: Path) => (f ? api.cancelFlagRollout({ path }) : api.cancelConfigRollout({ path })),
    delete: (path: Path) => (f ? api.deleteFlagRollout({ path }) : api.deleteConfigRollout({ path })),
    advance: (path: Path) => (f ? api.advanceFlagRollout({ path }) : api.advanceConfigRollout({ path })),
    add: (path: Path, targetIds: string[]) => (f ? api.addFlagTargetIds({ path, body: { targetIds } }) : api.addConfigTargetIds({ path, body: { targetIds } })),
    remove: (path: Path, targetIds: string[]) =>
      f ? api.removeFlagTargetIds({ path, body: { targetIds } }) : api.removeConfigTargetIds({ path, body: { targetIds } }),
    replace: (path: Path, targetIds: string[]) =>
      f ? api.replaceFlagTargetIds({ path, body: { targetIds } }) : api.replaceConfigTargetIds({ path, body: { targetIds } }),
    list: (path: Path, query: { cursor?: string; limit?: number } = {}) => (f ? api.listFlagTargetIds({ path, query }) : api.listConfigTargetIds({ path, query })),
    contains: (path: Path & { targetId: string }) => (f ? api.checkFlagTargetId({ path }) : api.checkConfigTargetId({ path })),
    state: (path: Path) => (f ? api.getFlagState({ path }) : api.getConfigState({ path })),
    setRules: (path: Path, rules: Parameters<GradualClient['setFlagRules']>[0]['body']['rules']) =>
      f ? api.setFlagRules({ path, body: { rules } }) : api.setConfigRules({ path, body: { rules } }),
  };
}
