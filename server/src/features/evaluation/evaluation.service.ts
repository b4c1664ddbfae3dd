import type { EntityManager } from '@mikro-orm/postgresql';
import type { EvaluationResult } from '@gradual/sdk/evaluation';
import { DomainError } from '../../domain/errors.js';
import { authorize, tokenSees, type Caller } from '../access/authorize.js';
import type { EnvDirectory, EnvSummary } from '../environments/env-directory.js';
import { materialize, type CachedRuleset, type RulesetCache } from './ruleset.cache.js';
import { readRuleset, rulesetOf } from './ruleset.store.js';

/** Where rulesets come from: this instance's caches (AppDeps provides both). */
export interface RulesetSources {
  rulesets: RulesetCache;
  envs: EnvDirectory;
}

/**
 * The environment's current ruleset, from this instance's cache when it holds
 * the current version. A brand-new environment (version 0, nothing written)
 * has none yet: 503 ruleset_not_cached, retry after a second.
 * Tokens limited to some resources see only those primitives.
 * With the environment directory and the API-key cache warm, a poll answered
 * from the cache touches no database.
 */
export async function currentRuleset(em: EntityManager, caller: Caller, sources: RulesetSources, envId: string): Promise<CachedRuleset> {
  const env = await readableEnv(em, caller, sources, envId, false);
  if (env.version === 0) {
    throw new DomainError('ruleset_not_cached', 'This environment has no ruleset until its first write.', { retryAfterSeconds: 1 });
  }
  return visibleRuleset(em, caller, sources, env);
}

/**
 * The ruleset an evaluation of `envId` runs against, as the caller may see it (null before the
 * environment's first write): `POST /envs/{envId}/evaluate` and the OFREP routes use it. The
 * one entry point a client key may use; it evaluates only client-visible flags and configs.
 */
export async function rulesetForEvaluation(em: EntityManager, caller: Caller, sources: RulesetSources, envId: string): Promise<CachedRuleset | null> {
  const env = await readableEnv(em, caller, sources, envId, true);
  if (env.version === 0) return null;
  return visibleRuleset(em, caller, sources, env);
}

/** The evaluation's answer, and the ruleset it was evaluated against (null before the environment's first write). */
export async function evaluateContext(
  em: EntityManager,
  caller: Caller,
  sources: RulesetSources,
  envId: string,
  input: { context: Record<string, unknown>; keys?: string[] | undefined },
): Promise<{ entry: CachedRuleset | null; answer: { version: number; results: Record<string, EvaluationResult> } }> {
  const entry = await rulesetForEvaluation(em, caller, sources, envId);
  if (!entry) return { entry: null, answer: { version: 0, results: {} } };
  return { entry, answer: evaluateWith(entry, input) };
}

/** One context against a materialized ruleset: `keys` (default every primitive); unknown keys are left out. */
export function evaluateWith(
  entry: CachedRuleset,
  input: { context: Record<string, unknown>; keys?: string[] | undefined },
): { version: number; results: Record<string, EvaluationResult> } {
  const compiled = entry.compiled();
  const keys = input.keys ?? entry.ruleset.primitives.map((p) => p.key);
  const results: Record<string, EvaluationResult> = {};
  for (const key of keys) {
    const result = compiled.evaluate(key, input.context);
    if (result) results[key] = result;
  }
  return { version: entry.version, results };
}

async function readableEnv(em: EntityManager, caller: Caller, sources: RulesetSources, envId: string, evaluation: boolean): Promise<EnvSummary> {
  const env = await sources.envs.get(em, envId);
  await authorize(em, caller, env.orgId, { action: 'read', envId: env.id, evaluation });
  return env;
}

/**
 * The environment's ruleset as the caller may see it: a client key only its client-visible
 * primitives (materialized once per version), a key limited to resources only those.
 */
async function visibleRuleset(em: EntityManager, caller: Caller, sources: RulesetSources, env: EnvSummary): Promise<CachedRuleset> {
  const full = await sources.rulesets.get(env.id, env.version, () => readRuleset(em, env.id));
  const principal = caller.principal;
  const entry = principal?.kind === 'token' && principal.key.kind === 'client' ? sources.rulesets.clientView(env.id, full) : full;
  if (principal?.kind === 'token' && principal.key.resources) {
    const visible = rulesetOf(entry.ruleset, entry.ruleset.primitives.filter((p) => tokenSees(caller, env.id, p.key)));
    return materialize(visible, entry.clientVisible);
  }
  return entry;
}
