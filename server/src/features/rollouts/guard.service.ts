import type { EntityManager } from '@mikro-orm/postgresql';
import type { GuardMetricStatus, RolloutGuard } from '@gradual/contract';
import type { PrimitiveKind } from '../../db/entities/index.js';
import { DomainError } from '../../domain/errors.js';
import type { MetricCheck } from '../../domain/guards/gate.js';
import { guardedStep } from '../../domain/rollouts/ramp-position.js';
import type { Caller } from '../access/authorize.js';
import { iso } from '../common/lookup.js';
import { guardTimeline, type GuardPoint } from '../guards/guard-checks.js';
import { resolveTarget } from './rollouts.service.js';

/** Points of a metric's history at most (a day's hold has 1,440 minutes): evenly thinned, the newest kept. */
const SERIES_MAX = 240;
/** The sample-ratio test's level (gate.ts DEFAULT_STEP_GUARD.srmAlpha). */
const SRM_ALPHA = 0.001;

/**
 * The guard of the current rollout of a flag or config in an environment, as of the caller's
 * `now`: the guarded step it holds at with the checks a check now would make and each metric's
 * history by minute (features/guards/guard-checks.ts), and the check that last stopped it. Read
 * access, as GET rollout.
 */
export async function getRolloutGuard(em: EntityManager, caller: Caller, kind: PrimitiveKind, envId: string, key: string): Promise<RolloutGuard> {
  const { current } = await resolveTarget(em, caller, kind, envId, key, 'read');
  if (!current) throw new DomainError('not_found', 'There is no rollout for this primitive in this environment.');
  const row = current.row;
  const lastStop = row.lastGuardStop ?? null;
  const step = guardedStep(row);
  if (!step || row.rampStepIdx == null) return { rolloutId: row.id, step: null, decision: null, waitingFor: [], checks: null, lastStop };
  const now = caller.now;
  const { guard, verdict, series } = await guardTimeline(em, row, step, now);
  const since = row.stepStartedAt ?? now;
  const thinned = thin(series);
  const metrics = guard.metrics.map((m, i): GuardMetricStatus => {
    const check = verdict.checks.metrics[i]!;
    return {
      key: m.key,
      kind: m.kind,
      worse: m.worse,
      margin: m.margin,
      action: m.action,
      ...evidence(check),
      threshold: clean(Math.exp(check.threshold)),
      series: thinned.map((p) => ({ at: iso(p.at), ...evidence(p.metrics[i]!) })),
    };
  });
  return {
    rolloutId: row.id,
    step: {
      index: row.rampStepIdx,
      percent: step.percent,
      holdForSeconds: step.holdForSeconds,
      since: iso(since),
      heldSeconds: Math.max(0, Math.round((now.getTime() - since.getTime()) / 1000)),
      guard: step.guard,
    },
    decision: verdict.decision,
    waitingFor: verdict.decision === 'hold' ? verdict.waitingFor : [],
    checks: {
      holdPassed: verdict.checks.holdPassed,
      units: verdict.checks.units,
      srmP: verdict.checks.srmP,
      srmOk: verdict.checks.srmP >= SRM_ALPHA,
      metrics,
    },
    lastStop,
  };
}

const evidence = (check: MetricCheck) => ({ eValue: clean(Math.exp(check.logE)), estimate: check.estimate ?? null });

/** A number without the float noise of exp(ln x). */
const clean = (x: number): number => Number(x.toPrecision(12));

/** At most SERIES_MAX points, evenly spaced over the history, the first and the newest kept. */
function thin(series: GuardPoint[]): GuardPoint[] {
  if (series.length <= SERIES_MAX) return series;
  return Array.from({ length: SERIES_MAX }, (_, k) => series[Math.round((k * (series.length - 1)) / (SERIES_MAX - 1))]!);
}
