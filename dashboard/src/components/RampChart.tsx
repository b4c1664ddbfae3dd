import type { RampStep, Rollout } from '@gradual/sdk';
import { DAY_NAMES, formatDuration, formatPercent, formatTime } from '../format';

/** One step of the ramp placed on the time axis (ms since epoch). */
export interface PlacedStep {
  index: number;
  percent: number;
  start: number;
  end: number;
  requiresApproval: boolean;
  /** Whether start/end are known (past, current with nextStepAt) or projected. */
  projected: boolean;
}

const weekdayFormatters = new Map<string, Intl.DateTimeFormat>();
/** 0 = Sunday … 6 = Saturday, in the given IANA time zone. */
export function weekdayIn(timeZone: string, at: number): number {
  let f = weekdayFormatters.get(timeZone);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'short' });
    } catch {
      f = new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', weekday: 'short' });
    }
    weekdayFormatters.set(timeZone, f);
  }
  return DAY_NAMES.indexOf(f.format(at));
}

/** The first instant at or after `at` that is not on a blackout day (local 00:00 of the next allowed day). */
function skipBlackout(at: number, days: readonly number[], timeZone: string): number {
  if (days.length === 0 || days.length >= 7) return at;
  let t = at;
  for (let guard = 0; guard < 8 * 24 && days.includes(weekdayIn(timeZone, t)); guard++) t += 3_600_000;
  if (t === at) return at;
  // Refine to the minute the local day changed.
  let lo = t - 3_600_000;
  let hi = t;
  while (hi - lo > 60_000) {
    const mid = Math.floor((lo + hi) / 2 / 60_000) * 60_000;
    if (days.includes(weekdayIn(timeZone, mid))) lo = mid;
    else hi = mid;
  }
  return hi;
}

/**
 * Places the rollout's plan snapshot on a time line. The current step starts `hold` before
 * `nextStepAt` (or now, without one); earlier steps are laid out backwards by their holds;
 * later ones forwards, each deferred past blackout days as the scheduler would (auto cadence).
 * Manual plans get the same nominal spacing: someone advances them by hand.
 */
export function placeSteps(rollout: Rollout, now: number): PlacedStep[] {
  const steps: RampStep[] = rollout.planRampStepsSnapshot ?? [];
  if (steps.length === 0) return [];
  const current = Math.min(rollout.rampStepIdx ?? 0, steps.length - 1);
  const approaching = rollout.percent < steps[current]!.percent;
  const days = rollout.planBlackoutDaysOfWeek ?? [];
  const tz = rollout.planBlackoutTimezone ?? 'UTC';
  const auto = rollout.cadence === 'auto';
  const minHold = 3_600_000;
  const hold = (i: number) => Math.max((steps[i]?.holdForSeconds ?? 0) * 1000, minHold);

  const placed: PlacedStep[] = steps.map((s, index) => ({
    index,
    percent: s.percent,
    start: 0,
    end: 0,
    requiresApproval: Boolean(s.requiresApproval),
    projected: true,
  }));
  // Anchor: when the current step started (or, while approaching it, when it will start).
  const next = rollout.nextStepAt ? new Date(rollout.nextStepAt).getTime() : undefined;
  let anchor: number;
  if (approaching) anchor = next ?? now;
  else anchor = next !== undefined ? next - (steps[current]!.holdForSeconds * 1000 || minHold) : now;
  placed[current]!.start = anchor;
  placed[current]!.projected = approaching;
  for (let i = current - 1; i >= 0; i--) {
    placed[i]!.start = placed[i + 1]!.start - hold(i);
    placed[i]!.projected = false;
  }
  for (let i = current + 1; i < steps.length; i++) {
    const due = placed[i - 1]!.start + hold(i - 1);
    placed[i]!.start = auto ? skipBlackout(due, days, tz) : due;
  }
  for (let i = 0; i < steps.length; i++) placed[i]!.end = i + 1 < steps.length ? placed[i + 1]!.start : placed[i]!.start + hold(i) / 2;
  return placed;
}

/** Blackout stretches [start, end) within [from, to): local days of the week in `timeZone`. */
export function blackoutSpans(days: readonly number[], timeZone: string, from: number, to: number): [number, number][] {
  if (days.length === 0) return [];
  const spans: [number, number][] = [];
  const step = Math.max(3_600_000, Math.ceil((to - from) / 2000 / 3_600_000) * 3_600_000);
  let open: number | undefined;
  for (let t = from; t < to; t += step) {
    const dark = days.includes(weekdayIn(timeZone, t));
    if (dark && open === undefined) open = t;
    if (!dark && open !== undefined) {
      spans.push([open, t]);
      open = undefined;
    }
  }
  if (open !== undefined) spans.push([open, to]);
  return spans;
}

const W = 960;
const H = 240;
const PAD = { left: 44, right: 16, top: 16, bottom: 36 };

/** The ramp of a rollout on a plan, as inline SVG: steps over time, where it is now, what is next. */
export function RampChart({ rollout, now }: { rollout: Rollout; now: number }) {
  const placed = placeSteps(rollout, now);
  if (placed.length === 0) return null;
  const first = placed[0]!.start;
  const last = placed[placed.length - 1]!.end;
  const from = Math.min(first, now) - (last - first) * 0.03;
  const to = Math.max(last, now, rollout.nextStepAt ? new Date(rollout.nextStepAt).getTime() : 0) + (last - first) * 0.03 + 1;
  const x = (t: number) => PAD.left + ((t - from) / (to - from)) * (W - PAD.left - PAD.right);
  const y = (p: number) => H - PAD.bottom - (p / 100) * (H - PAD.top - PAD.bottom);
  const days = rollout.planBlackoutDaysOfWeek ?? [];
  const tz = rollout.planBlackoutTimezone ?? 'UTC';
  const spans = blackoutSpans(days, tz, from, to);
  const nextAt = rollout.nextStepAt ? new Date(rollout.nextStepAt).getTime() : undefined;

  // The staircase: 0 until the first step, then each step's percent over its span.
  let d = `M ${x(from)} ${y(0)} L ${x(placed[0]!.start)} ${y(0)}`;
  for (const s of placed) d += ` L ${x(s.start)} ${y(s.percent)} L ${x(s.end)} ${y(s.percent)}`;
  const pastEnd = Math.min(now, last);
  const ticks = timeTicks(from, to);
  const summary =
    `Ramp of ${placed.length} steps: ${placed.map((s) => formatPercent(s.percent)).join(', ')}. ` +
    `Now at ${formatPercent(rollout.percent)}` +
    (nextAt ? `, next step due ${formatTime(rollout.nextStepAt)}` : '') +
    (days.length ? `. Blackout days: ${days.map((d) => DAY_NAMES[d]).join(', ')} (${tz})` : '') +
    '.';

  return (
    <figure className="ramp-chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={summary} preserveAspectRatio="xMidYMid meet">
        <title>{summary}</title>
        <defs>
          <clipPath id="ramp-past">
            <rect x={0} y={0} width={x(pastEnd)} height={H} />
          </clipPath>
          <pattern id="blackout-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
            <rect width="6" height="6" fill="#f4f1ec" />
            <line x1="0" y1="0" x2="0" y2="6" stroke="#e3dccf" strokeWidth="3" />
          </pattern>
        </defs>
        {spans.map(([a, b], i) => (
          <rect key={i} className="blackout" x={x(a)} y={PAD.top} width={Math.max(1, x(b) - x(a))} height={H - PAD.top - PAD.bottom} fill="url(#blackout-hatch)">
            <title>Blackout: {DAY_NAMES[weekdayIn(tz, a)]} ({tz}); no step starts</title>
          </rect>
        ))}
        {[0, 25, 50, 75, 100].map((p) => (
          <g key={p}>
            <line className="grid" x1={PAD.left} x2={W - PAD.right} y1={y(p)} y2={y(p)} />
            <text className="axis" x={PAD.left - 6} y={y(p) + 4} textAnchor="end">
              {p}%
            </text>
          </g>
        ))}
        {ticks.map((t) => (
          <text key={t} className="axis" x={x(t)} y={H - PAD.bottom + 16} textAnchor="middle">
            {tickLabel(t, to - from)}
          </text>
        ))}
        <path className="ramp-planned" d={d} />
        <path className="ramp-done" d={d} clipPath="url(#ramp-past)" />
        {placed.map((s) => (
          <g key={s.index}>
            <circle className={s.requiresApproval ? 'step-dot step-gate' : 'step-dot'} cx={x(s.start)} cy={y(s.percent)} r={s.requiresApproval ? 5 : 3.5}>
              <title>
                Step {s.index + 1}: {formatPercent(s.percent)}
                {s.requiresApproval ? ' (needs approval)' : ''}, {s.projected ? 'projected ' : ''}
                {formatTime(new Date(s.start).toISOString())}
              </title>
            </circle>
            <text className="step-label" x={x(s.start) + 4} y={y(s.percent) - 6}>
              {formatPercent(s.percent)}
              {s.requiresApproval ? ' ✋' : ''}
            </text>
          </g>
        ))}
        {nextAt !== undefined && (
          <g>
            <line className="next-line" x1={x(nextAt)} x2={x(nextAt)} y1={PAD.top} y2={H - PAD.bottom} />
            <text className="next-label" x={x(nextAt)} y={PAD.top - 4} textAnchor="middle">
              next step
            </text>
          </g>
        )}
        <line className="now-line" x1={x(now)} x2={x(now)} y1={PAD.top} y2={H - PAD.bottom} />
        <circle className="now-dot" cx={x(now)} cy={y(rollout.percent)} r={6}>
          <title>Now: {formatPercent(rollout.percent)}</title>
        </circle>
      </svg>
      <figcaption className="legend">
        <span className="key key-done" /> done <span className="key key-planned" /> planned <span className="key key-now" /> now ({formatPercent(rollout.percent)})
        {nextAt !== undefined && (
          <>
            <span className="key key-next" /> next step {formatTime(rollout.nextStepAt)}
          </>
        )}
        {days.length > 0 && (
          <>
            <span className="key key-blackout" /> blackout {days.map((d) => DAY_NAMES[d]).join(', ')} ({tz})
          </>
        )}
      </figcaption>
      <table className="steps-table">
        <thead>
          <tr>
            <th>Step</th>
            <th>Percent</th>
            <th>Hold</th>
            <th>Starts</th>
          </tr>
        </thead>
        <tbody>
          {placed.map((s) => (
            <tr key={s.index} aria-current={s.index === (rollout.rampStepIdx ?? -1) ? 'step' : undefined}>
              <td>
                {s.index + 1}
                {s.requiresApproval ? ' · approval' : ''}
              </td>
              <td>{formatPercent(s.percent)}</td>
              <td>{rollout.planRampStepsSnapshot![s.index]!.holdForSeconds ? formatDuration(rollout.planRampStepsSnapshot![s.index]!.holdForSeconds) : 'final'}</td>
              <td>
                {s.projected ? '≈ ' : ''}
                {formatTime(new Date(s.start).toISOString())}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}

function timeTicks(from: number, to: number): number[] {
  const span = to - from;
  const candidates = [3_600_000, 6 * 3_600_000, 86_400_000, 2 * 86_400_000, 7 * 86_400_000, 30 * 86_400_000];
  const step = candidates.find((c) => span / c <= 7) ?? 90 * 86_400_000;
  const ticks: number[] = [];
  for (let t = Math.ceil(from / step) * step; t < to; t += step) ticks.push(t);
  return ticks;
}

const tickDay = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' });
const tickHour = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
function tickLabel(t: number, span: number): string {
  return span <= 2 * 86_400_000 ? tickHour.format(t) : tickDay.format(t);
}
