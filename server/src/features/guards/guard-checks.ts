import type { EntityManager } from '@mikro-orm/postgresql';
import { treatmentShare } from '@gradual/sdk/evaluation';
import type { GuardStop } from '@gradual/contract';
import { GuardMetricEntity, GuardSampleEntity, type Rollout } from '../../db/entities/index.js';
import { checkGuard, DEFAULT_STEP_GUARD, type GuardFacts, type GuardVerdict, type StepGuard } from '../../domain/guards/gate.js';
import { addInterval, countTest, type CountTest, type Moments } from '../../domain/guards/statistics.js';
import type { RampStep, StepGuardPlan } from '../../domain/rollouts/types.js';

type Arm = 'treatment' | 'control';

/** The step's guard with its metrics' definitions (kind, direction, SDK event); a metric no longer defined watches nothing. */
async function stepGuard(tx: EntityManager, projectId: string, plan: StepGuardPlan): Promise<{ guard: StepGuard; events: Map<string, string> }> {
  const defined = await tx.find(GuardMetricEntity, { projectId, key: { $in: plan.metrics.map((m) => m.key) } });
  const byKey = new Map(defined.map((d) => [d.key, d]));
  const events = new Map<string, string>();
  const metrics: StepGuard['metrics'] = [];
  for (const m of plan.metrics) {
    const d = byKey.get(m.key);
    if (!d) continue;
    events.set(m.key, d.event);
    metrics.push({ key: m.key, kind: d.kind, worse: d.worse, margin: m.margin, action: m.action });
  }
  return { guard: { ...DEFAULT_STEP_GUARD, metrics, minUnitsPerArm: plan.minUnitsPerArm, maxHoldFactor: plan.maxHoldFactor }, events };
}

/**
 * The facts of one check of the guarded step `step` that `row` holds at: its arms' samples since
 * the step's hold began, folded minute by minute into each count metric's test (each minute is one
 * stratum, so the arms' changing sizes cannot bias it) and summed into each mean metric's moments.
 */
async function guardFacts(tx: EntityManager, row: Rollout, step: RampStep, guard: StepGuard, events: Map<string, string>, now: Date): Promise<GuardFacts> {
  const since = row.stepStartedAt ?? now;
  const samples = await tx.find(GuardSampleEntity, { rolloutId: row.id, percent: step.percent, minute: { $gte: since, $lte: now } }, { orderBy: { minute: 'asc' } });
  const units = { treatment: 0, control: 0 };
  const minutes = new Map<number, { units: Record<Arm, number>; events: Map<string, Record<Arm, number>> }>();
  const moments = new Map<string, Record<Arm, Moments>>();
  for (const s of samples) {
    const minute = s.minute.getTime();
    const entry = minutes.get(minute) ?? { units: { treatment: 0, control: 0 }, events: new Map<string, Record<Arm, number>>() };
    minutes.set(minute, entry);
    if (s.metric === '') {
      entry.units[s.arm] += s.units;
      units[s.arm] += s.units;
      continue;
    }
    const counted = entry.events.get(s.metric) ?? { treatment: 0, control: 0 };
    counted[s.arm] += s.events;
    entry.events.set(s.metric, counted);
    const m = moments.get(s.metric) ?? { treatment: { n: 0, sum: 0, sumSq: 0 }, control: { n: 0, sum: 0, sumSq: 0 } };
    m[s.arm] = { n: m[s.arm].n + s.events, sum: m[s.arm].sum + s.sum, sumSq: m[s.arm].sumSq + s.sumSquares };
    moments.set(s.metric, m);
  }
  const counts: Record<string, CountTest> = {};
  const means: Record<string, { treatment: Moments; control: Moments }> = {};
  for (const metric of guard.metrics) {
    const event = events.get(metric.key)!;
    if (metric.kind === 'mean') {
      const m = moments.get(event);
      if (m) means[metric.key] = m;
      continue;
    }
    let test = countTest(metric.margin, metric.worse);
    for (const entry of minutes.values()) {
      const k = entry.events.get(event) ?? { treatment: 0, control: 0 };
      test = addInterval(test, { treatmentUnits: entry.units.treatment, controlUnits: entry.units.control, treatmentEvents: k.treatment, controlEvents: k.control });
    }
    counts[metric.key] = test;
  }
  return {
    holdSeconds: step.holdForSeconds,
    heldSeconds: Math.max(0, (now.getTime() - since.getTime()) / 1000),
    expectedShare: treatmentShare(step.percent),
    units,
    counts,
    moments: means,
  };
}

/** One check of the guarded step `step` that `row` holds at (the scheduler's, once a minute). */
export async function checkGuardedStep(tx: EntityManager, row: Rollout, step: RampStep & { guard: StepGuardPlan }, now: Date): Promise<GuardVerdict> {
  const { guard, events } = await stepGuard(tx, row.projectId, step.guard);
  return checkGuard(guard, await guardFacts(tx, row, step, guard, events, now));
}

/** What a stopping verdict leaves on the rollout and in its audit row: which check, its evidence, the units per arm. */
export function guardStopOf(verdict: GuardVerdict & { decision: 'rollback' | 'pause' }, step: RampStep, now: Date): GuardStop {
  const { cause, checks } = verdict;
  const units = { treatment: checks.units.treatment, control: checks.units.control };
  const base = { at: now.toISOString(), action: verdict.decision, stepPercent: step.percent, units };
  if (cause.kind === 'metric') {
    const m = cause.metric;
    return {
      ...base,
      cause: 'metric',
      metricKey: m.key,
      eValue: clean(Math.exp(m.logE)),
      threshold: clean(Math.exp(m.threshold)),
      estimate: m.estimate ? { value: m.estimate.difference, lower: m.estimate.lower, upper: m.estimate.upper } : null,
      srmP: null,
    };
  }
  return { ...base, cause: cause.kind, metricKey: null, eValue: null, threshold: null, estimate: null, srmP: cause.kind === 'srm' ? cause.p : null };
}

/** A number without the float noise of exp(ln x) (20 rather than 19.999999999999996). */
const clean = (x: number): number => Number(x.toPrecision(12));

/** The audit reason of a guard's stop: `guard:<metric key>`, `guard:srm` or `guard:insufficient_data`. */
export const guardStopReason = (stop: GuardStop): string => `guard:${stop.metricKey ?? stop.cause}`;
