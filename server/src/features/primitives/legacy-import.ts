import type { EntityManager } from '@mikro-orm/postgresql';
import {
  RolloutMigrationWarningEntity,
  type Environment,
  type Primitive,
} from '../../db/entities/index.js';
import { createRollout } from '../../domain/rollouts/state-machine.js';
import { authorize, type Caller } from '../access/authorize.js';
import { commitTransition, type TransitionContext } from '../rollouts/commit-transition.js';
import { newRolloutRow } from '../rollouts/rollouts.store.js';
import { findOrgBySlug } from '../common/lookup.js';

export interface LegacyRule {
  rolloutPercent?: number | undefined;
  [key: string]: unknown;
}

/** Splits imported rules into the rules we store and the per-rule percentages they carried. */
export function splitLegacyRules<R extends LegacyRule>(rules: R[]): { rules: Omit<R, 'rolloutPercent'>[]; percentRuleIndices: number[]; hoistedPercent: number | null } {
  const percentRuleIndices = rules.flatMap((r, i) => (r.rolloutPercent !== undefined ? [i] : []));
  const first = percentRuleIndices[0];
  return {
    rules: rules.map(({ rolloutPercent: _dropped, ...rule }) => rule),
    percentRuleIndices,
    hoistedPercent: first === undefined ? null : rules[first]!.rolloutPercent!,
  };
}

/**
 * The one-time migration from per-rule rollout percentages (docs/rollouts.md): the
 * first rule with a percentage becomes an env-scoped rollout gating the rules
 * at that percentage, in every environment; when several rules had one, a
 * migration warning records which were not hoisted.
 */
export async function hoistLegacyRollouts(
  ctx: TransitionContext,
  primitive: Primitive,
  envs: Environment[],
  targetIdField: string,
  split: { percentRuleIndices: number[]; hoistedPercent: number | null },
): Promise<void> {
  if (split.hoistedPercent === null) return;
  for (const env of envs) {
    const transition = createRollout(
      { percent: split.hoistedPercent, hasNewValue: false, defaultSeed: `${primitive.key}:${env.key}`, defaultBucketField: targetIdField },
      ctx.caller.now,
    );
    const row = newRolloutRow(env, primitive, ctx.caller.now);
    await commitTransition(ctx, row, primitive, transition, null);
    if (split.percentRuleIndices.length > 1) {
      ctx.changes.tx.create(RolloutMigrationWarningEntity, {
        orgId: env.orgId,
        envId: env.id,
        flagKey: primitive.key,
        rolloutId: row.id,
        ruleIndices: split.percentRuleIndices,
        hoistedRuleIndex: split.percentRuleIndices[0]!,
        createdAt: ctx.caller.now,
      });
    }
  }
}

export async function listMigrationWarnings(em: EntityManager, caller: Caller, slug: string) {
  const org = await findOrgBySlug(em, slug);
  await authorize(em, caller, org.id, { action: 'read', role: 'admin', sessionOnly: true });
  const rows = await em.find(RolloutMigrationWarningEntity, { orgId: org.id }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  return rows.map((w) => ({ flagKey: w.flagKey, envId: w.envId, rolloutId: w.rolloutId, ruleIndices: w.ruleIndices, hoistedRuleIndex: w.hoistedRuleIndex }));
}
