import type { EntityManager } from '@mikro-orm/postgresql';
import { treatmentShare } from '@gradual/sdk/evaluation';
import type { GuardStop } from '@gradual/contract';
import { GuardMetricEntity, GuardSampleEntity, type Rollout } from '../../db/entities/index.js';
import { checkGuard, DEFAULT_STEP_GUARD, type GuardFacts, type GuardVerdict, type MetricCheck, type StepGuard } from '../../domain/guards/gate.js';
import { addInterval, countTest, type CountTest, type Moments } from '../../domain/guards/statistics.js';
import type { RampStep, StepGuardPlan } from '../../domain/rollouts/types.js';
import { prometheusSampleName } from './prometheus-source.js';

type Arm = 'treatment' | 'control';

const MINUTE_MS = 60_000;

/** The step's guard with its metrics' definitions (kind, direction, the samples' metric: SDK event or Prometheus); a metric no longer defined watches nothing. */
async function stepGuard(tx: EntityManager, projectId: string, plan: StepGuardPlan): Promise<{ guard: StepGuard; events: Map<string, string> }> {
  const defined = await tx.find(GuardMetricEntity, { projectId, key: { $in: plan.metrics.map((m) => m.key) } });
  const byKey = new Map(defined.map((d) => [d.key, d]));
  const events = new Map<string, string>();
  const metrics: StepGuard['metrics'] = [];
  for (const m of plan.metrics) {
    const d = byKey.get(m.key);
    if (!d) continue;
    events.set(m.key, d.prometheus ? prometheusSampleName(d.key) : d.event);
    metrics.push({ key: m.key, kind: d.kind, worse: d.worse, margin: m.margin, action: m.action });
  }
  return { guard: { ...DEFAULT_STEP_GUARD, metrics, minUnitsPerArm: plan.minUnitsPerArm, maxHoldFactor: plan.maxHoldFactor }, events };
}

/** The facts of one check as of `at` (the end of a minute with samples, or now), for a timeline. */
export type FactsAt = (at: Date, facts: GuardFacts) => void;

/**
 * The facts of one check of the guarded step `step` that `row` holds at: its arms' samples since
 * the step's hold began, folded minute by minute into each count metric's test (each minute is one
 * stratum, so the arms' changing sizes cannot bias it) and summed into each mean metric's moments.
 * `each` (optional) sees the facts as of the end of every minute with samples, oldest first.
 */
async function guardFacts(tx: EntityManager, row: Rollout, step: RampStep, guard: StepGuard, events: Map<string, string>, now: Date, each?: FactsAt): Promise<GuardFacts> {
  const since = row.stepStartedAt ?? now;
  // Samples are kept by the minute a report's window ended in: the minute the step began counts.
  const firstMinute = new Date(Math.floor(since.getTime() / MINUTE_MS) * MINUTE_MS);
  const samples = await tx.find(GuardSampleEntity, { rolloutId: row.id, percent: step.percent, minute: { $gte: firstMinute, $lte: now } }, { orderBy: { minute: 'asc' } });
  const units = { treatment: 0, control: 0 };
  const counts: Record<string, CountTest> = {};
  const means: Record<string, { treatment: Moments; control: Moments }> = {};
  const totals: Record<string, Record<Arm, number>> = {};
  for (const metric of guard.metrics) if (metric.kind === 'count') counts[metric.key] = countTest(metric.margin, metric.worse);
  const factsAt = (at: Date): GuardFacts => ({
    holdSeconds: step.holdForSeconds,
    heldSeconds: Math.max(0, (at.getTime() - since.getTime()) / 1000),
    expectedShare: treatmentShare(step.percent),
    units: { ...units },
    counts: { ...counts },
    moments: { ...means },
    eventTotals: { ...totals },
  });
  // One minute's samples at a time: its units and events by arm, then every metric's test.
  let i = 0;
  while (i < samples.length) {
    const minute = samples[i]!.minute.getTime();
    const minuteUnits = { treatment: 0, control: 0 };
    const minuteEvents = new Map<string, Record<Arm, number>>();
    for (; i < samples.length && samples[i]!.minute.getTime() === minute; i++) {
      const s = samples[i]!;
      if (s.metric === '') {
        minuteUnits[s.arm] += s.units;
        units[s.arm] += s.units;
        continue;
      }
      const counted = minuteEvents.get(s.metric) ?? { treatment: 0, control: 0 };
      counted[s.arm] += s.events;
      minuteEvents.set(s.metric, counted);
      for (const metric of guard.metrics) {
        if (events.get(metric.key) !== s.metric || metric.kind !== 'mean') continue;
        const m = means[metric.key] ?? { treatment: { n: 0, sum: 0, sumSq: 0 }, control: { n: 0, sum: 0, sumSq: 0 } };
        means[metric.key] = { ...m, [s.arm]: { n: m[s.arm].n + s.events, sum: m[s.arm].sum + s.sum, sumSq: m[s.arm].sumSq + s.sumSquares } };
      }
    }
    for (const metric of guard.metrics) {
      if (metric.kind !== 'count') continue;
      const k = minuteEvents.get(events.get(metric.key)!) ?? { treatment: 0, control: 0 };
      counts[metric.key] = addInterval(counts[metric.key]!, { treatmentUnits: minuteUnits.treatment, controlUnits: minuteUnits.control, treatmentEvents: k.treatment, controlEvents: k.control });
      const total = totals[metric.key] ?? { treatment: 0, control: 0 };
      totals[metric.key] = { treatment: total.treatment + k.treatment, control: total.control + k.control };
    }
    if (each) {
      const end = new Date(Math.min(minute + MINUTE_MS, now.getTime()));
      each(end, factsAt(end));
    }
  }
  return factsAt(now);
}

/** One check of the guarded step `step` that `row` holds at (the scheduler's, once a minute). */
export async function checkGuardedStep(tx: EntityManager, row: Rollout, step: RampStep & { guard: StepGuardPlan }, now: Date, each?: FactsAt): Promise<GuardVerdict> {
  const { guard, events } = await stepGuard(tx, row.projectId, step.guard);
  return checkGuard(guard, await guardFacts(tx, row, step, guard, events, now, each));
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
      estimate: m.estimate ?? null,
      srmP: null,
    };
  }
  return { ...base, cause: cause.kind, metricKey: null, eValue: null, threshold: null, estimate: null, srmP: cause.kind === 'srm' ? cause.p : null };
}

/** A number without the float noise of exp(ln x) (20 rather than 19.999999999999996). */
const clean = (x: number): number => Number(x.toPrecision(12));

/** The audit reason of a guard's stop: `guard:<metric key>`, `guard:srm` or `guard:insufficient_data`. */
export const guardStopReason = (stop: GuardStop): string => `guard:${stop.metricKey ?? stop.cause}`;

/** A metric's checks as of one minute of a step's timeline. */
export interface GuardPoint {
  at: Date;
  metrics: MetricCheck[];
}

/**
 * The guarded step `step` that `row` holds at as its guard sees it at `now`: the step's guard with
 * its metrics' definitions, the verdict a check now would give, and each metric's checks at the end
 * of every minute with samples (the guard status route's history).
 */
export async function guardTimeline(tx: EntityManager, row: Rollout, step: RampStep & { guard: StepGuardPlan }, now: Date): Promise<{ guard: StepGuard; verdict: GuardVerdict; series: GuardPoint[] }> {
  const { guard, events } = await stepGuard(tx, row.projectId, step.guard);
  const series: GuardPoint[] = [];
  const facts = await guardFacts(tx, row, step, guard, events, now, (at, f) => series.push({ at, metrics: checkGuard(guard, f).checks.metrics }));
  return { guard, verdict: checkGuard(guard, facts), series };
}
