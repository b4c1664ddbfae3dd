import type { EntityManager } from '@mikro-orm/postgresql';
import type { Ruleset } from '@gradual/contract';
import type { EvaluationResult } from '@gradual/sdk/evaluation';
import { DomainError } from '../../domain/errors.js';
import { authorize, tokenSees, type Caller } from '../access/authorize.js';
import { findEnvironment } from '../shared/lookup.js';
import { materialize, type CachedRuleset, type RulesetCache } from './ruleset.cache.js';
import { readRuleset } from './ruleset.store.js';

/**
 * The environment's current ruleset, from this instance's cache when it holds
 * the current version. A brand-new environment (version 0, nothing written)
 * has none yet: 503 ruleset_not_cached, retry after a second.
 * Tokens limited to some resources see only those primitives.
 */
export async function currentRuleset(em: EntityManager, caller: Caller, cache: RulesetCache, envId: string): Promise<CachedRuleset> {
  const env = await findEnvironment(em, envId);
  await authorize(em, caller, env.orgId, { action: 'read', envId: env.id });
  if (env.version === 0) {
    throw new DomainError('ruleset_not_cached', 'This environment has no ruleset until its first write.', { headers: { 'Retry-After': '1' } });
  }
  const entry = await cache.get(env.id, env.version, () => readRuleset(em, env.id));
  const principal = caller.principal;
  if (principal?.kind === 'token' && principal.key.resources) {
    const visible: Ruleset = { ...entry.ruleset, primitives: entry.ruleset.primitives.filter((p) => tokenSees(caller, env.id, p.key)) };
    return materialize(visible);
  }
  return entry;
}

export async function evaluateContext(
  em: EntityManager,
  caller: Caller,
  cache: RulesetCache,
  envId: string,
  input: { context: Record<string, unknown>; keys?: string[] | undefined },
): Promise<{ version: number; results: Record<string, EvaluationResult> }> {
  const env = await findEnvironment(em, envId);
  await authorize(em, caller, env.orgId, { action: 'read', envId: env.id });
  if (env.version === 0) return { version: 0, results: {} };
  const entry = await currentRuleset(em, caller, cache, envId);
  const compiled = entry.compiled();
  const keys = input.keys ?? entry.ruleset.primitives.map((p) => p.key);
  const results: Record<string, EvaluationResult> = {};
  for (const key of keys) {
    const result = compiled.evaluate(key, input.context);
    if (result) results[key] = result;
  }
  return { version: entry.version, results };
}
