import type { MutationResult, PutRolloutRequest, Rule } from '@gradual/sdk';
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
