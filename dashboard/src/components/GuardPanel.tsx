import type { GuardMetricStatus, GuardStop, Rollout, RolloutGuard } from '@gradual/sdk';
import { api } from '../api';
import { formatDuration, formatPercent, formatTime } from '../format';
import { useReloadOn, useResource } from '../hooks';

const MINUTE = 60_000;
const count = (n: number) => n.toLocaleString('en-US');
/** Evidence as people read it: 2.31, 41, 1,204. */
export const formatEvidence = (e: number) => (e >= 100 ? count(Math.round(e)) : Number(e.toPrecision(3)).toString());

/** The rollout's plan guards a step, or a guard stopped it: the panel has something to say. */
export function hasGuard(rollout: Pick<Rollout, 'planRampStepsSnapshot' | 'lastGuardStop'>): boolean {
  return Boolean(rollout.lastGuardStop) || (rollout.planRampStepsSnapshot ?? []).some((s) => s.guard);
}

/** The gate's checklist in one line: "hold 2h ✓ · 740/1,000 per arm · SRM ok". */
export function gateLine(g: RolloutGuard): string | null {
  if (!g.step || !g.checks) return null;
  const { step, checks } = g;
  const fewest = Math.min(checks.units.treatment, checks.units.control);
  return [
    `hold ${formatDuration(step.holdForSeconds)} ${checks.holdPassed ? '✓' : `(${formatDuration(step.heldSeconds)} so far)`}`,
    `${count(fewest)}/${count(checks.units.min)} per arm${fewest >= checks.units.min ? ' ✓' : ''}`,
    checks.srmOk ? 'SRM ok' : `SRM mismatch (p ${checks.srmP.toPrecision(2)})`,
  ].join(' · ');
}

/** Why a guard stopped the rollout, in words. */
export function stopText(stop: GuardStop): string {
  const what = stop.action === 'rollback' ? 'rolled back' : 'paused';
  const units = `${count(stop.units.treatment)}/${count(stop.units.control)} units per arm`;
  if (stop.cause === 'metric') {
    const estimate = stop.estimate ? `, ${estimateText(stop.estimate.value, stop.estimate.lower, stop.estimate.upper, stop.estimate.lower === null)}` : '';
    return `${what} at ${formatPercent(stop.stepPercent)}: ${stop.metricKey} regressed (evidence ${formatEvidence(stop.eValue ?? 0)} of ${formatEvidence(stop.threshold ?? 0)}${estimate}; ${units})`;
  }
  if (stop.cause === 'srm') return `${what} at ${formatPercent(stop.stepPercent)}: the arms' split is not the one their bands promise (p ${stop.srmP?.toPrecision(2)}; ${units})`;
  return `${what} at ${formatPercent(stop.stepPercent)}: not enough units at the step's longest hold (${units})`;
}

function estimateText(value: number, lower: number | null, upper: number | null, ratio: boolean): string {
  if (ratio) return `rate ratio ${value.toFixed(2)}`;
  return `difference ${value.toPrecision(3)}${lower !== null && upper !== null ? ` [${lower.toPrecision(3)}, ${upper.toPrecision(3)}]` : ''}`;
}

function loadGuard(r: Pick<Rollout, 'environmentId' | 'primitiveKind' | 'primitiveKey'>): Promise<RolloutGuard> {
  const path = { envId: r.environmentId, key: r.primitiveKey };
  return r.primitiveKind === 'flag' ? api().getFlagRolloutGuard({ path }) : api().getConfigRolloutGuard({ path });
}

/**
 * The Guard panel of a rollout whose plan guards a step (docs/guards.md): the plan's steps with the
 * guarded ones marked, the gate's checklist of the step it holds at, a tile per metric (its estimate
 * over time against the margin, the always-valid band, and an evidence bar up to the level that
 * stops the step) and the check that last stopped it. Read again when the rollout changes and once
 * a minute, as the scheduler checks.
 */
export function GuardPanel({ rollout, now }: { rollout: Rollout; now: number }) {
  const { environmentId, primitiveKind, primitiveKey } = rollout;
  const guard = useResource(() => loadGuard({ environmentId, primitiveKind, primitiveKey }), [environmentId, primitiveKind, primitiveKey]);
  useReloadOn(`${rollout.updatedAt}|${rollout.status}|${rollout.percent}|${Math.floor(now / MINUTE)}`, guard.reload);
  const steps = rollout.planRampStepsSnapshot ?? [];
  const g = guard.data;
  const gate = g ? gateLine(g) : null;
  return (
    <section className="guard-panel" aria-label="Guard" data-testid="guard-panel">
      <h3>Guard</h3>
      <ol className="guard-steps">
        {steps.map((s, i) => (
          <li key={i} className={i === rollout.rampStepIdx ? 'current' : undefined}>
            {formatPercent(s.percent)}
            {s.guard ? <span className="chip" title={`watches ${s.guard.metrics.map((m) => m.key).join(', ')}`}>guarded</span> : null}
          </li>
        ))}
      </ol>
      {!g && <p className="small muted">{guard.error ? 'The guard could not be read.' : 'Loading the guard…'}</p>}
      {g && gate && (
        <p className="guard-gate" data-testid="guard-gate">
          <strong>Step {g.step!.index + 1}</strong>: {gate} → {g.decision === 'hold' ? `holding for ${g.waitingFor.join(' and ')}` : g.decision}
        </p>
      )}
      {g && !gate && <p className="small muted">Not holding at a guarded step now.</p>}
      {g?.checks && (
        <div className="guard-tiles">
          {g.checks.metrics.map((m) => (
            <MetricTile key={m.key} metric={m} />
          ))}
        </div>
      )}
      {g?.lastStop && (
        <p className="note note-error" data-testid="guard-last-stop">
          Last stop {formatTime(g.lastStop.at)}: {stopText(g.lastStop)}.
        </p>
      )}
    </section>
  );
}

const TW = 240;
const TH = 72;

/** One metric: its estimate over time against the margin (with the always-valid band), and its evidence. */
function MetricTile({ metric: m }: { metric: GuardMetricStatus }) {
  const ratio = m.kind === 'count';
  // The line a regression crosses: a count metric's ratio 1 + margin (or 1 − margin), a mean metric's ± margin.
  const limit = ratio ? (m.worse === 'higher' ? 1 + m.margin : 1 - m.margin) : m.worse === 'higher' ? m.margin : -m.margin;
  const points = m.series.filter((p) => p.estimate !== null);
  const values = points.flatMap((p) => [p.estimate!.value, p.estimate!.lower ?? p.estimate!.value, p.estimate!.upper ?? p.estimate!.value]).concat(limit, ratio ? 1 : 0);
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const span = hi - lo || 1;
  const x = (i: number) => (points.length <= 1 ? TW : (i / (points.length - 1)) * TW);
  const y = (v: number) => TH - 4 - ((v - lo) / span) * (TH - 8);
  const line = points.map((p, i) => `${i ? 'L' : 'M'}${x(i).toFixed(1)},${y(p.estimate!.value).toFixed(1)}`).join(' ');
  const banded = points.filter((p) => p.estimate!.lower !== null && p.estimate!.upper !== null);
  const band =
    banded.length > 1
      ? `M${points.map((p, i) => `${x(i).toFixed(1)},${y(p.estimate!.upper ?? p.estimate!.value).toFixed(1)}`).join(' L')} L${points
          .map((p, i) => `${x(i).toFixed(1)},${y(p.estimate!.lower ?? p.estimate!.value).toFixed(1)}`)
          .reverse()
          .join(' L')} Z`
      : '';
  const progress = m.eValue <= 1 ? 0 : Math.min(1, Math.log(m.eValue) / Math.log(m.threshold));
  return (
    <figure className="guard-tile" data-testid={`guard-metric-${m.key}`}>
      <figcaption>
        <strong>{m.key}</strong> <span className="small muted">{m.kind}, {m.worse} is worse, margin {m.margin}, {m.action}</span>
      </figcaption>
      <svg viewBox={`0 0 ${TW} ${TH}`} role="img" aria-label={`${m.key}: ${m.estimate ? estimateText(m.estimate.value, m.estimate.lower, m.estimate.upper, ratio) : 'no estimate yet'}`}>
        {band && <path d={band} className="guard-band" />}
        <line x1={0} x2={TW} y1={y(limit)} y2={y(limit)} className="guard-margin" />
        {line && <path d={line} className="guard-line" fill="none" />}
      </svg>
      <p className="small">{m.estimate ? estimateText(m.estimate.value, m.estimate.lower, m.estimate.upper, ratio) : 'no estimate yet'}</p>
      <div className="evidence" role="meter" aria-label={`${m.key} evidence`} aria-valuemin={0} aria-valuemax={1} aria-valuenow={Number(progress.toFixed(3))} aria-valuetext={`${formatEvidence(m.eValue)} of ${formatEvidence(m.threshold)}`}>
        <span style={{ width: `${(progress * 100).toFixed(1)}%` }} />
      </div>
      <p className="small muted">
        evidence {formatEvidence(m.eValue)} of {formatEvidence(m.threshold)}
      </p>
    </figure>
  );
}
