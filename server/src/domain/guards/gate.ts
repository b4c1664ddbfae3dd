/**
 * The gate of a guarded ramp step (docs/guards.md): from the facts of one check (how long the step
 * has held, the units in each arm, each metric's data), whether the ramp may advance, must hold,
 * or must stop, and why. Pure: the scheduler gathers the facts and applies the verdict through the
 * rollout's one automatic-pause entry point.
 *
 * - A metric regresses when its e-value reaches 1/α_m, with α_m = α / (number of metrics): the
 *   step then rolls back (or pauses, as the metric's action says). The first metric in the guard's
 *   order that regressed is the cause.
 * - A sample-ratio mismatch (the arms' split is not the one their bands promise: an SDK or
 *   de-duplication fault, a bot) makes every comparison suspect: `srmAction` (pause by default;
 *   `warn` only reports it in the checks).
 * - Otherwise the step advances once its hold has passed and each arm has `minUnitsPerArm`; at
 *   `maxHoldFactor` times its hold without enough units it pauses, never reverts silently.
 */
import { countLogE, meanTest, srmLogBayesFactor, type CountTest, type Moments } from './statistics.js';

export interface GuardMetric {
  key: string;
  kind: 'count' | 'mean';
  /** Which way a change is a regression. */
  worse: 'higher' | 'lower';
  /**
   * The change tolerated before it counts: for a count metric relative (0.1: 10 % more events
   * per unit), for a mean metric in the metric's own unit.
   */
  margin: number;
  action: 'rollback' | 'pause';
}

export interface StepGuard {
  metrics: GuardMetric[];
  /** The false-alarm rate of the whole step, split evenly across its metrics. */
  alpha: number;
  srmAlpha: number;
  srmAction: 'pause' | 'rollback' | 'warn';
  minUnitsPerArm: number;
  maxHoldFactor: number;
}

export const DEFAULT_STEP_GUARD: Omit<StepGuard, 'metrics'> = { alpha: 0.05, srmAlpha: 0.001, srmAction: 'pause', minUnitsPerArm: 1000, maxHoldFactor: 3 };

export interface GuardFacts {
  holdSeconds: number;
  heldSeconds: number;
  /** The treatment's expected share of the two arms' units at this step (arms.ts treatmentShare). */
  expectedShare: number;
  units: { treatment: number; control: number };
  /** Count metrics' running tests, mean metrics' moments per arm, by metric key (absent: no data yet). */
  counts: Readonly<Record<string, CountTest>>;
  /** Count metrics' events per arm so far, by metric key (the rate ratio's estimate). */
  eventTotals?: Readonly<Record<string, { treatment: number; control: number }>>;
  moments: Readonly<Record<string, { treatment: Moments; control: Moments }>>;
}

export interface MetricCheck {
  key: string;
  /** ln E, and the level it must reach: ln(1/α_m). */
  logE: number;
  threshold: number;
  /**
   * Mean metrics: the difference (worse is positive) and its always-valid interval. Count metrics:
   * the rate ratio, treatment's events per unit over control's (no interval: the test is a mixture
   * over a grid of ratios, not an interval).
   */
  estimate?: { value: number; lower: number | null; upper: number | null };
}

export interface GuardChecks {
  holdPassed: boolean;
  units: { treatment: number; control: number; min: number };
  /** The always-valid p-value of the split (1 when it looks as expected). */
  srmP: number;
  metrics: MetricCheck[];
}

export type GuardCause =
  | { kind: 'metric'; metric: MetricCheck }
  | { kind: 'srm'; p: number }
  | { kind: 'insufficient_data'; heldSeconds: number };

export type GuardVerdict =
  | { decision: 'advance'; checks: GuardChecks }
  | { decision: 'hold'; checks: GuardChecks; waitingFor: Array<'hold' | 'units'> }
  | { decision: 'rollback' | 'pause'; cause: GuardCause; checks: GuardChecks };

/** Treatment's events per unit over control's; null until both arms have units and control has events. */
export function rateRatio(events: { treatment: number; control: number } | undefined, units: { treatment: number; control: number }): number | null {
  if (!events || units.treatment <= 0 || units.control <= 0 || events.control <= 0) return null;
  return events.treatment / units.treatment / (events.control / units.control);
}

export function checkGuard(guard: StepGuard, facts: GuardFacts): GuardVerdict {
  const alphaPerMetric = guard.alpha / Math.max(1, guard.metrics.length);
  const threshold = Math.log(1 / alphaPerMetric);
  const planned = 2 * guard.minUnitsPerArm;
  const metrics = guard.metrics.map((m): MetricCheck => {
    if (m.kind === 'count') {
      const test = facts.counts[m.key];
      const ratio = rateRatio(facts.eventTotals?.[m.key], facts.units);
      return { key: m.key, logE: test ? countLogE(test) : 0, threshold, ...(ratio === null ? {} : { estimate: { value: ratio, lower: null, upper: null } }) };
    }
    const arms = facts.moments[m.key];
    if (!arms || arms.treatment.n < 2 || arms.control.n < 2) return { key: m.key, logE: 0, threshold };
    const r = meanTest(arms.treatment, arms.control, m.margin, m.worse, alphaPerMetric, planned);
    return { key: m.key, logE: r.logE, threshold, estimate: { value: r.difference, lower: r.lower, upper: r.upper } };
  });
  const srmP = Math.min(1, Math.exp(-srmLogBayesFactor(facts.units.treatment, facts.units.control, facts.expectedShare)));
  const holdPassed = facts.heldSeconds >= facts.holdSeconds;
  const checks: GuardChecks = { holdPassed, units: { ...facts.units, min: guard.minUnitsPerArm }, srmP, metrics };

  const regressed = guard.metrics.findIndex((_, i) => metrics[i]!.logE >= threshold);
  if (regressed >= 0) return { decision: guard.metrics[regressed]!.action, cause: { kind: 'metric', metric: metrics[regressed]! }, checks };
  // `warn`: the mismatch shows in the checks (srmP) and gates nothing.
  if (srmP < guard.srmAlpha && guard.srmAction !== 'warn') return { decision: guard.srmAction, cause: { kind: 'srm', p: srmP }, checks };
  const waitingFor: Array<'hold' | 'units'> = [];
  if (!holdPassed) waitingFor.push('hold');
  if (Math.min(facts.units.treatment, facts.units.control) < guard.minUnitsPerArm) waitingFor.push('units');
  if (waitingFor.length === 0) return { decision: 'advance', checks };
  if (waitingFor.includes('units') && facts.heldSeconds >= guard.maxHoldFactor * facts.holdSeconds) {
    return { decision: 'pause', cause: { kind: 'insufficient_data', heldSeconds: facts.heldSeconds }, checks };
  }
  return { decision: 'hold', checks, waitingFor };
}
