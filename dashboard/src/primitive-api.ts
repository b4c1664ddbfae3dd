import type { Config, Flag, MutationResult, PrimitiveInsight, PrimitiveUsage, PutRolloutRequest, Rule, UpdatePrimitiveRequest } from '@gradual/sdk';
import { api, withReason } from './api';

export type Kind = 'flag' | 'config';

/**
 * Divertible endpoints answer 202 with a proposal for API keys that need approval; a dashboard
 * session always acts directly, so a proposal here would be a surprise worth saying out loud.
 */
async function direct<T>(call: Promise<MutationResult<T>>): Promise<T> {
  const result = await call;
  if (result.kind === 'proposed') throw new Error('The change was stored as a proposal awaiting approval.');
  return result.data;
}

/**
 * Flags and configs share every rollout endpoint (the contract builds both families from one
 * factory); this picks the right one so screens are written once.
 */
export function primitiveApi(kind: Kind, envId: string, key: string) {
  const a = api();
  const path = { envId, key };
  const flag = kind === 'flag';
  return {
    getState: () => (flag ? a.getFlagState({ path }) : a.getConfigState({ path })),
    setValue: (value: unknown, reason?: string) =>
      flag ? a.setFlagValue({ path, body: { value }, ...withReason(reason) }) : a.setConfigValue({ path, body: { value }, ...withReason(reason) }),
    setRules: (rules: Rule[], reason?: string) =>
      flag ? a.setFlagRules({ path, body: { rules }, ...withReason(reason) }) : a.setConfigRules({ path, body: { rules }, ...withReason(reason) }),
    putRollout: (body: PutRolloutRequest, reason?: string) =>
      direct(flag ? a.putFlagRollout({ path, body, ...withReason(reason) }) : a.putConfigRollout({ path, body, ...withReason(reason) })),
    pause: (reason?: string) =>
      direct(flag ? a.pauseFlagRollout({ path, ...withReason(reason) }) : a.pauseConfigRollout({ path, ...withReason(reason) })),
    resume: (reason?: string) =>
      direct(flag ? a.resumeFlagRollout({ path, ...withReason(reason) }) : a.resumeConfigRollout({ path, ...withReason(reason) })),
    cancel: (reason?: string) =>
      direct(flag ? a.cancelFlagRollout({ path, ...withReason(reason) }) : a.cancelConfigRollout({ path, ...withReason(reason) })),
    advance: (reason?: string) =>
      direct(flag ? a.advanceFlagRollout({ path, ...withReason(reason) }) : a.advanceConfigRollout({ path, ...withReason(reason) })),
    // The kill switch is never diverted to a proposal; its reason is required.
    rollback: (reason: string) =>
      flag ? a.rollbackFlagRollout({ path, headers: { 'x-audit-reason': reason } }) : a.rollbackConfigRollout({ path, headers: { 'x-audit-reason': reason } }),
    addTargetIds: (targetIds: string[], reason?: string) =>
      direct(flag ? a.addFlagTargetIds({ path, body: { targetIds }, ...withReason(reason) }) : a.addConfigTargetIds({ path, body: { targetIds }, ...withReason(reason) })),
    removeTargetIds: (targetIds: string[], reason?: string) =>
      direct(flag
        ? a.removeFlagTargetIds({ path, body: { targetIds }, ...withReason(reason) })
        : a.removeConfigTargetIds({ path, body: { targetIds }, ...withReason(reason) })),
    replaceTargetIds: (targetIds: string[], reason?: string) =>
      direct(flag
        ? a.replaceFlagTargetIds({ path, body: { targetIds }, ...withReason(reason) })
        : a.replaceConfigTargetIds({ path, body: { targetIds }, ...withReason(reason) })),
    listTargetIds: (cursor: string | undefined, limit: number) =>
      flag ? a.listFlagTargetIds({ path, query: { cursor, limit } }) : a.listConfigTargetIds({ path, query: { cursor, limit } }),
    containsTargetId: (targetId: string) =>
      flag ? a.checkFlagTargetId({ path: { ...path, targetId } }) : a.checkConfigTargetId({ path: { ...path, targetId } }),
    fires: (cursor?: string) =>
      flag
        ? a.listFlagRollbackFires({ path: { envId, flagKey: key }, query: { cursor, limit: 20 } })
        : a.listConfigRollbackFires({ path: { envId, configKey: key }, query: { cursor, limit: 20 } }),
  };
}
export type PrimitiveApi = ReturnType<typeof primitiveApi>;

/** A flag's or config's definition with the ETag that guards its metadata and lifecycle calls. */
export interface Definition {
  definition: Flag | Config;
  /** The strong ETag of `getFlag`/`getConfig`, sent back as `If-Match`. */
  etag: string | undefined;
}

/** What a project-level metadata change may carry (`UpdatePrimitiveRequest`). */
export type DefinitionChanges = UpdatePrimitiveRequest;

/**
 * A flag's or config's definition (project level): read with its ETag, change its metadata,
 * archive, restore, delete, and read its usage. Every write sends `If-Match`, so a change made
 * meanwhile by someone else answers 412 instead of being overwritten.
 */
export function definitionApi(kind: Kind, projectId: string, key: string) {
  const a = api();
  const path = { id: projectId, key };
  const flag = kind === 'flag';
  const ifMatch = (etag: string | undefined) => (etag ? { 'if-match': etag } : {});
  return {
    get: async (): Promise<Definition> => {
      const r = flag ? await a.withResponse.getFlag({ path }) : await a.withResponse.getConfig({ path });
      if (r.notModified) throw new Error('The server answered 304 to a request without If-None-Match.');
      return { definition: r.data, etag: r.response.headers.get('etag') ?? undefined };
    },
    update: (body: DefinitionChanges, etag: string | undefined): Promise<Flag | Config> =>
      flag ? a.updateFlag({ path, body, headers: ifMatch(etag) }) : a.updateConfig({ path, body, headers: ifMatch(etag) }),
    archive: (etag: string | undefined): Promise<Flag | Config> =>
      flag ? a.archiveFlag({ path, headers: ifMatch(etag) }) : a.archiveConfig({ path, headers: ifMatch(etag) }),
    restore: (etag: string | undefined): Promise<Flag | Config> =>
      flag ? a.restoreFlag({ path, headers: ifMatch(etag) }) : a.restoreConfig({ path, headers: ifMatch(etag) }),
    remove: (confirm: string, etag: string | undefined): Promise<void> =>
      flag ? a.deleteFlag({ path, body: { confirm }, headers: ifMatch(etag) }) : a.deleteConfig({ path, body: { confirm }, headers: ifMatch(etag) }),
    usage: (days: number): Promise<PrimitiveUsage> => (flag ? a.getFlagUsage({ path, query: { days } }) : a.getConfigUsage({ path, query: { days } })),
    /** Its insight (usage status, code checks, safe to remove), or null when archived (insights list live ones). */
    insight: async (staleAfterDays: number): Promise<PrimitiveInsight | null> =>
      (await a.listInsights({ path: { id: projectId }, query: { staleAfterDays } })).find((i) => i.kind === kind && i.key === key) ?? null,
  };
}
export type DefinitionApi = ReturnType<typeof definitionApi>;
