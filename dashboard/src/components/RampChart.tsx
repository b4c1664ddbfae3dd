import type { Rollout, RolloutRamp, RolloutRampMark, RolloutRampMarkCause, RolloutRampPhase, RolloutRampWait } from '@gradual/sdk';
import { api } from '../api';
import { DAY_NAMES, formatPercent, formatTime } from '../format';
import { useReloadOn, useResource } from '../hooks';

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

// ---------------------------------------------------------------------------
// Drawing

const W = 960;
const H = 240;
const PAD = { left: 44, right: 16, top: 16, bottom: 36 };

const WAITS: Record<RolloutRampWait, string> = {
  schedule: '',
  approval: 'after approval',
  resume: 'after a resume',
  advance: 'when advanced',
};

const PHASE_NAMES: Record<RolloutRampPhase, string> = {
  active: 'ramping',
  paused: 'paused',
  approval_gate: 'waiting for approval',
  rolled_back: 'rolled back',
  completed: 'completed',
  cancelled: 'cancelled',
};

/** What a recorded change was, in words. */
const DONE_CAUSES: Record<RolloutRampMarkCause, string> = {
  created: 'started',
  edited: 'edited',
  paused: 'paused',
  resumed: 'resumed',
  advanced: 'advanced',
  approval_gate: 'approval gate',
  approved: 'approved',
  rolled_back: 'rolled back',
  completed: 'completed',
  cancelled: 'cancelled',
  current: 'at this percent',
  step: 'step',
};

/** A mark's change in words: "rolled back", "step 2", "completes". */
export function markLabel(m: Pick<RolloutRampMark, 'kind' | 'cause' | 'step'>): string {
  if (m.kind === 'done') return DONE_CAUSES[m.cause];
  if (m.cause === 'step') return m.step === null ? 'step' : `step ${m.step + 1}`;
  if (m.cause === 'completed') return 'completes';
  if (m.cause === 'resumed') return 'resumes';
  return DONE_CAUSES[m.cause];
}

/** A hold in full: 5400 → "1 h 30 min", 90 → "1 min 30 s"; nothing rounded away. */
export function formatHold(seconds: number): string {
  let rest = Math.round(seconds);
  if (rest === 0) return '0 s';
  const parts: string[] = [];
  for (const [size, name] of [
    [86400, 'd'],
    [3600, 'h'],
    [60, 'min'],
    [1, 's'],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)} ${name}`);
      rest %= size;
    }
  }
  return parts.join(' ');
}

/** The fields of a rollout the chart reads its ramp with and draws beside it. */
export type ChartRollout = Pick<
  Rollout,
  | 'id'
  | 'environmentId'
  | 'primitiveKind'
  | 'primitiveKey'
  | 'status'
  | 'percent'
  | 'rampStepIdx'
  | 'planRampStepsSnapshot'
  | 'planBlackoutDaysOfWeek'
  | 'planBlackoutTimezone'
  | 'createdAt'
  | 'updatedAt'
>;

/** A segment of the ramp with its times in ms. */
interface Segment {
  from: number;
  to: number;
  percent: number;
  phase: RolloutRampPhase;
  kind: 'done' | 'planned';
}

/** A mark of the ramp with its time in ms and its change in words. */
interface Mark extends Omit<RolloutRampMark, 'at'> {
  at: number;
  label: string;
}

interface Ramp {
  segments: Segment[];
  marks: Mark[];
  now: number;
  start: number;
  end: number;
}

function fromApi(r: RolloutRamp): Ramp {
  return {
    segments: r.segments.map((s) => ({ ...s, from: Date.parse(s.from), to: Date.parse(s.to) })),
    marks: r.marks.map((m) => ({ ...m, at: Date.parse(m.at), label: markLabel(m) })),
    now: Date.parse(r.now),
    start: Date.parse(r.start),
    end: Date.parse(r.end),
  };
}

const iso = (ms: number) => new Date(ms).toISOString();

/** When a mark happened or is expected, in words: "done …" or "planned ≈ …, after approval". */
export function markWhen(m: Pick<Mark, 'at' | 'kind' | 'waitsFor'>): string {
  if (m.kind === 'done') return formatTime(iso(m.at));
  const wait = m.waitsFor ? WAITS[m.waitsFor] : '';
  return wait ? `≥ ${formatTime(iso(m.at))}, ${wait}` : `≈ ${formatTime(iso(m.at))}`;
}

/** A staircase path through consecutive segments (a vertical step joins them). */
function stairs(segments: readonly Segment[], x: (t: number) => number, y: (p: number) => number): string {
  let d = '';
  segments.forEach((s, i) => {
    d += `${i === 0 ? 'M' : 'L'} ${x(s.from)} ${y(s.percent)} L ${x(s.to)} ${y(s.percent)} `;
  });
  return d.trim();
}

const MINUTE = 60_000;

/** The rollout's ramp from the API (GET …/rollout/ramp): the server builds it from the recorded transitions and the plan. */
function loadRamp(r: Pick<ChartRollout, 'environmentId' | 'primitiveKind' | 'primitiveKey'>): Promise<RolloutRamp> {
  const path = { envId: r.environmentId, key: r.primitiveKey };
  return r.primitiveKind === 'flag' ? api().getFlagRolloutRamp({ path }) : api().getConfigRolloutRamp({ path });
}

/**
 * The ramp of a rollout as inline SVG and tables: what happened (solid line, "done"), from its
 * recorded transitions, and what the plan has in store (dashed line, "planned"), both as the
 * server computes them (GET …/rollout/ramp). Read again, keeping the drawn ramp meanwhile,
 * whenever the rollout changes (a live update, an action on this page) and once a minute as
 * `now` moves on. Another rollout (one ended and the next started meanwhile) is drawn from scratch.
 */
export function RampChart({ rollout, now }: { rollout: ChartRollout; now: number }) {
  return <RolloutRampChart key={rollout.id} rollout={rollout} now={now} />;
}

/** RampChart for one rollout. */
function RolloutRampChart({ rollout, now }: { rollout: ChartRollout; now: number }) {
  const { environmentId, primitiveKind, primitiveKey } = rollout;
  const ramp = useResource(() => loadRamp({ environmentId, primitiveKind, primitiveKey }), [environmentId, primitiveKind, primitiveKey]);
  useReloadOn(`${rollout.updatedAt}|${rollout.status}|${rollout.percent}|${Math.floor(now / MINUTE)}`, ramp.reload);
  if (!ramp.data) {
    return (
      <figure className="ramp-chart">
        <p className="small muted" role={ramp.error ? 'alert' : undefined}>
          {ramp.error ? 'The ramp could not be read.' : 'Loading the ramp…'}
        </p>
      </figure>
    );
  }
  return <RampView rollout={rollout} ramp={fromApi(ramp.data)} stale={ramp.error !== undefined} />;
}

function RampView({ rollout, ramp, stale }: { rollout: ChartRollout; ramp: Ramp; stale: boolean }) {
  const now = ramp.now;
  const steps = rollout.planRampStepsSnapshot ?? [];
  const from = ramp.start - (ramp.end - ramp.start) * 0.02;
  const to = ramp.end;
  const x = (t: number) => PAD.left + ((t - from) / (to - from)) * (W - PAD.left - PAD.right);
  const y = (p: number) => H - PAD.bottom - (p / 100) * (H - PAD.top - PAD.bottom);
  const days = rollout.planBlackoutDaysOfWeek ?? [];
  const tz = rollout.planBlackoutTimezone ?? 'UTC';
  const spans = blackoutSpans(days, tz, from, to);
  const done = ramp.segments.filter((s) => s.kind === 'done');
  const planned = ramp.segments.filter((s) => s.kind === 'planned');
  const doneMarks = ramp.marks.filter((m) => m.kind === 'done');
  const plannedMarks = ramp.marks.filter((m) => m.kind === 'planned');
  const ticks = timeTicks(from, to);
  const describe = (m: Mark) => `${formatPercent(m.percent)} ${m.label} ${m.kind === 'done' ? formatTime(iso(m.at)) : markWhen(m)}`;
  const summary =
    `Ramp since ${formatTime(rollout.createdAt)}. Done: ${doneMarks.map(describe).join('; ')}. ` +
    `Now at ${formatPercent(rollout.percent)}, ${PHASE_NAMES[done[done.length - 1]?.phase ?? 'active']}.` +
    (plannedMarks.length ? ` Planned: ${plannedMarks.map(describe).join('; ')}.` : '') +
    (days.length ? ` Blackout days: ${days.map((d) => DAY_NAMES[d]).join(', ')} (${tz}).` : '');
  // The last time each step was entered, and when it is planned next.
  const entered = new Map<number, Mark>();
  const next = new Map<number, Mark>();
  let previous: Mark | undefined;
  for (const m of doneMarks) {
    // A step is entered when the admitted percent reaches it (a rollback or a pause does not enter one).
    const entersStep = m.step !== null && m.percent === steps[m.step]?.percent && !(previous && previous.step === m.step && previous.percent === m.percent);
    if (entersStep && m.step !== null) entered.set(m.step, m);
    previous = m;
  }
  for (const m of plannedMarks) if (m.step !== null && !m.gate && !next.has(m.step)) next.set(m.step, m);

  return (
    <figure className="ramp-chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={summary} preserveAspectRatio="xMidYMid meet">
        <title>{summary}</title>
        <defs>
          <pattern id="blackout-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
            <rect width="6" height="6" fill="#f4f1ec" />
            <line x1="0" y1="0" x2="0" y2="6" stroke="#e3dccf" strokeWidth="3" />
          </pattern>
        </defs>
        {spans.map(([a, b], i) => (
          <rect key={i} className="blackout" x={x(a)} y={PAD.top} width={Math.max(1, x(b) - x(a))} height={H - PAD.top - PAD.bottom} fill="url(#blackout-hatch)">
            <title>
              Blackout: {DAY_NAMES[weekdayIn(tz, a)]} ({tz}); no step starts
            </title>
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
        {planned.length > 0 && <path className="ramp-planned" data-kind="planned" d={stairs(planned, x, y)} />}
        {done.length > 0 && <path className="ramp-done" data-kind="done" d={stairs(done, x, y)} />}
        {ramp.marks.map((m, i) => (
          <g key={i} data-kind={m.kind}>
            <circle
              className={m.gate ? 'step-dot step-gate' : 'step-dot'}
              cx={x(m.at)}
              cy={y(m.percent)}
              r={m.gate ? 5 : 3.5}
              strokeDasharray={m.kind === 'planned' ? '2 2' : undefined}
              style={m.kind === 'done' ? { fill: 'var(--accent)' } : undefined}
            >
              <title>
                {m.kind === 'done' ? 'Done' : 'Planned'}: {formatPercent(m.percent)} {m.label}, {markWhen(m)}
              </title>
            </circle>
            {m.kind === 'planned' && !m.gate && (
              <text className="step-label" x={x(m.at) + 4} y={y(m.percent) - 6}>
                {formatPercent(m.percent)}
              </text>
            )}
          </g>
        ))}
        <line className="now-line" x1={x(now)} x2={x(now)} y1={PAD.top} y2={H - PAD.bottom} />
        <text className="next-label" x={x(now)} y={PAD.top - 4} textAnchor="middle">
          now
        </text>
        <circle className="now-dot" cx={x(now)} cy={y(rollout.percent)} r={6}>
          <title>Now: {formatPercent(rollout.percent)}</title>
        </circle>
      </svg>
      <figcaption className="legend">
        <LineKey dashed={false} /> done (recorded) <LineKey dashed /> planned (projected from the plan) <span className="key key-now" /> now ({formatPercent(rollout.percent)})
        {days.length > 0 && (
          <>
            <span className="key key-blackout" /> blackout {days.map((d) => DAY_NAMES[d]).join(', ')} ({tz})
          </>
        )}
        {stale && <span className="small muted"> · the ramp could not be read again; it shows the last answer</span>}
      </figcaption>
      {steps.length > 0 && (
        <table className="steps-table">
          <caption className="small muted">Plan steps</caption>
          <thead>
            <tr>
              <th>Step</th>
              <th>Percent</th>
              <th>Hold</th>
              <th>Done</th>
              <th>Planned</th>
            </tr>
          </thead>
          <tbody>
            {steps.map((s, i) => (
              <tr key={i} aria-current={i === (rollout.rampStepIdx ?? -1) ? 'step' : undefined}>
                <td>
                  {i + 1}
                  {s.requiresApproval ? ' · approval' : ''}
                </td>
                <td>{formatPercent(s.percent)}</td>
                <td>{i === steps.length - 1 ? 'final' : formatHold(s.holdForSeconds)}</td>
                <td>{entered.has(i) ? `done ${formatTime(iso(entered.get(i)!.at))}` : '—'}</td>
                <td>{next.has(i) ? `planned ${markWhen(next.get(i)!)}` : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <table className="steps-table ramp-timeline">
        <caption className="small muted">Timeline</caption>
        <thead>
          <tr>
            <th>When</th>
            <th>Percent</th>
            <th>Change</th>
            <th>Kind</th>
          </tr>
        </thead>
        <tbody>
          {ramp.marks.map((m, i) => (
            <tr key={i} data-kind={m.kind}>
              <td>{markWhen(m)}</td>
              <td>{formatPercent(m.percent)}</td>
              <td>{m.label}</td>
              <td>{m.kind === 'done' ? 'done' : 'planned'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}

/** A short sample of the line style, so done and planned differ by more than colour. */
function LineKey({ dashed }: { dashed: boolean }) {
  return (
    <span
      aria-hidden="true"
      style={{ display: 'inline-block', width: 24, verticalAlign: 'middle', borderTop: dashed ? '2px dashed #9db8f0' : '3px solid var(--accent)' }}
    />
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
