/**
 * A rollout's ramp on a time line: the past from its recorded transitions (the audit rows of
 * the rollout: when each change happened and the state it left), the future projected from the
 * plan snapshot the way the server's scheduler would run it. Pure: every function takes `now`.
 *
 * The projection mirrors server/src/domain/rollouts (ramp-position.ts `nextStepIndex` /
 * `scheduleFor`, state-machine.ts `tick` / `resume`, schedule.ts's blackout calendar): a step is
 * entered when its predecessor's hold has run out (exact holds, in seconds); a step due on a
 * blackout day of the plan's time zone waits until the first instant of the next allowed local
 * day; a step that requires approval stops the ramp until someone approves it. The dashboard
 * cannot import the server, so the calendar functions are repeated here with the same algorithm.
 */
import type { AuditEventDetail, RampStep, Rollout } from '@gradual/sdk';

/** The part of a rollout's state the ramp depends on. */
export type RampState = Pick<Rollout, 'status' | 'percent' | 'pausedAtPercent' | 'pausedReason' | 'rolledBackFromPercent' | 'rampStepIdx'>;

/** The fields of a rollout the ramp is built from. */
export type RampRollout = RampState &
  Pick<Rollout, 'createdAt' | 'updatedAt' | 'planRampStepsSnapshot' | 'cadence' | 'planBlackoutDaysOfWeek' | 'planBlackoutTimezone' | 'nextStepAt'>;

/** One recorded change of the rollout: when (ms since epoch), the audit action, and the state it left. */
export interface RecordedTransition {
  at: number;
  action: string;
  state: RampState;
}

/** What the rollout was doing over a stretch of time. */
export type RampPhase = 'active' | 'paused' | 'approval_gate' | 'rolled_back' | 'completed' | 'cancelled';

/** What a projected change waits for besides the clock. */
export type RampWait = 'schedule' | 'approval' | 'resume' | 'advance';

/** A stretch of the staircase: `percent` of traffic admitted over [from, to). */
export interface RampSegment {
  from: number;
  to: number;
  percent: number;
  phase: RampPhase;
  /** done: recorded; planned: projected from the plan. */
  kind: 'done' | 'planned';
}

/** A point where the ramp changed (done) or is expected to change (planned). */
export interface RampMark {
  at: number;
  percent: number;
  label: string;
  kind: 'done' | 'planned';
  /** The ramp step (0-based) the rollout is at after this change, when it is on a plan. */
  step: number | null;
  /** For a planned mark: what it waits for (the scheduler alone, or a person first). */
  waitsFor: RampWait | null;
  /** A planned stop before a step that requires approval. */
  gate: boolean;
}

export interface Ramp {
  segments: RampSegment[];
  marks: RampMark[];
  /** The time span the ramp covers: the rollout's creation to a little after its last planned change. */
  start: number;
  end: number;
}

const MS_PER_DAY = 86_400_000;
const HOUR = 3_600_000;

// ---------------------------------------------------------------------------
// Recorded transitions

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
const STATUSES: readonly string[] = ['active', 'paused', 'completed', 'cancelled'];
const REASONS: readonly string[] = ['user', 'approval_gate', 'auto_rollback'];
function isStatus(v: unknown): v is Rollout['status'] {
  return typeof v === 'string' && STATUSES.includes(v);
}
function isReason(v: unknown): v is NonNullable<Rollout['pausedReason']> {
  return typeof v === 'string' && REASONS.includes(v);
}
function numberOrNull(v: unknown): number | null | undefined {
  if (v === null) return null;
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/**
 * The transition an audit row records, or null when the row is not a state change of rollout
 * `rolloutId` (another rollout of the same flag, an allow-list edit, a malformed value). The row's
 * `newValue` is the rollout as the change left it.
 */
export function transitionFromAuditEvent(event: AuditEventDetail, rolloutId: string): RecordedTransition | null {
  if (event.resourceType !== 'rollout' || event.resourceId !== rolloutId) return null;
  if (event.action.startsWith('rollout.target_ids')) return null;
  const v = event.newValue;
  if (!isRecord(v) || !isStatus(v.status) || typeof v.percent !== 'number') return null;
  const pausedReason = v.pausedReason === null || v.pausedReason === undefined ? null : isReason(v.pausedReason) ? v.pausedReason : undefined;
  const pausedAtPercent = numberOrNull(v.pausedAtPercent ?? null);
  const rolledBackFromPercent = numberOrNull(v.rolledBackFromPercent ?? null);
  const rampStepIdx = numberOrNull(v.rampStepIdx ?? null);
  const at = Date.parse(event.createdAt);
  if (pausedReason === undefined || pausedAtPercent === undefined || rolledBackFromPercent === undefined || rampStepIdx === undefined || Number.isNaN(at)) return null;
  return { at, action: event.action, state: { status: v.status, percent: v.percent, pausedAtPercent, pausedReason, rolledBackFromPercent, rampStepIdx } };
}

function phaseOf(s: RampState): RampPhase {
  if (s.status !== 'paused') return s.status;
  if (s.pausedReason === 'approval_gate') return 'approval_gate';
  if (s.pausedReason === 'auto_rollback') return 'rolled_back';
  return 'paused';
}

/** Traffic admitted in this state: a cancelled rollout admits nobody (its percent is kept for the record). */
function admitted(s: RampState): number {
  return s.status === 'cancelled' ? 0 : s.percent;
}

const LABELS: Record<string, string> = {
  'rollout.created': 'started',
  'rollout.updated': 'edited',
  'rollout.advanced': 'advanced',
  'rollout.resumed': 'resumed',
  'rollout.approval_resolved': 'approved',
  'rollout.approval_gate_reached': 'approval gate',
  'rollout.completed': 'completed',
  'rollout.cancelled': 'cancelled',
  'rollout.auto_rollback': 'rolled back',
  'rollout.rolled_back': 'rolled back',
};

/** The action of the rollout's own state when no recorded row shows how it got there. */
const CURRENT = 'current';
const PHASE_LABELS: Record<RampPhase, string> = {
  active: 'at this percent',
  paused: 'paused',
  approval_gate: 'approval gate',
  rolled_back: 'rolled back',
  completed: 'completed',
  cancelled: 'cancelled',
};

function labelOf(t: RecordedTransition): string {
  if (t.action === CURRENT) return PHASE_LABELS[phaseOf(t.state)];
  if (t.action === 'rollout.paused') {
    const phase = phaseOf(t.state);
    return phase === 'approval_gate' ? 'approval gate' : phase === 'rolled_back' ? 'rolled back' : 'paused';
  }
  return LABELS[t.action] ?? t.action.replace(/^rollout\./, '').replace(/_/g, ' ');
}

function sameState(a: RampState, b: RampState): boolean {
  return (
    a.status === b.status &&
    a.percent === b.percent &&
    a.pausedReason === b.pausedReason &&
    a.pausedAtPercent === b.pausedAtPercent &&
    a.rolledBackFromPercent === b.rolledBackFromPercent &&
    a.rampStepIdx === b.rampStepIdx
  );
}

// ---------------------------------------------------------------------------
// The blackout calendar (same algorithm as server/src/domain/rollouts/schedule.ts)

/** Wider than any UTC offset the tz database has ever had. */
const SEARCH_MARGIN_MS = 26 * HOUR;
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timezone: string): Intl.DateTimeFormat {
  let f = formatters.get(timezone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: timezone, year: 'numeric', month: 'numeric', day: 'numeric', era: 'short' });
    formatters.set(timezone, f);
  }
  return f;
}

function dayNumberOf(year: number, month: number, day: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  return Math.round(d.getTime() / MS_PER_DAY);
}

/** The local calendar date of `ms` in `timezone`, as days since 1970-01-01. */
function localDayNumber(ms: number, timezone: string): number {
  let year = 0;
  let month = 0;
  let day = 0;
  let bc = false;
  for (const part of formatterFor(timezone).formatToParts(ms)) {
    if (part.type === 'year') year = Number(part.value);
    else if (part.type === 'month') month = Number(part.value);
    else if (part.type === 'day') day = Number(part.value);
    else if (part.type === 'era') bc = part.value.startsWith('B');
  }
  return dayNumberOf(bc ? 1 - year : year, month, day);
}

function weekdayOfDayNumber(dayNumber: number): number {
  return (((dayNumber + 4) % 7) + 7) % 7;
}

function firstInstantAtOrAfterDay(dayNumber: number, timezone: string): number {
  let lo = dayNumber * MS_PER_DAY - SEARCH_MARGIN_MS;
  let hi = dayNumber * MS_PER_DAY + SEARCH_MARGIN_MS;
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (localDayNumber(mid, timezone) >= dayNumber) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** Whether the local date of `at` in `timezone` falls on one of `days` (0 = Sunday … 6 = Saturday). */
export function isBlackout(at: number, days: readonly number[], timezone: string): boolean {
  if (days.length === 0) return false;
  return days.includes(weekdayOfDayNumber(localDayNumber(at, timezone)));
}

/** The first instant of the first local day after that of `at` whose weekday is not in `days`; null when every day is blocked. */
export function nextNonBlackoutStart(at: number, days: readonly number[], timezone: string): number | null {
  const blocked = new Set(days);
  if ([0, 1, 2, 3, 4, 5, 6].every((d) => blocked.has(d))) return null;
  const today = localDayNumber(at, timezone);
  for (let candidate = today + 1; candidate <= today + 14; candidate++) {
    if (blocked.has(weekdayOfDayNumber(candidate))) continue;
    const start = firstInstantAtOrAfterDay(candidate, timezone);
    if (localDayNumber(start, timezone) !== candidate) continue;
    if (start > at) return start;
  }
  return null;
}

// ---------------------------------------------------------------------------
// The ramp

/** The percent the ramp position refers to (ramp-position.ts `effectivePercent`). */
function effectivePercent(s: RampState): number {
  if (s.status === 'paused') {
    if (s.pausedReason === 'auto_rollback') return s.rolledBackFromPercent ?? 0;
    return s.pausedAtPercent ?? s.percent;
  }
  return s.percent;
}

/** The step advance, tick and an approval resume move to (ramp-position.ts `nextStepIndex`). */
function nextStepIndex(steps: readonly RampStep[], idx: number | null, effective: number): number | null {
  if (idx === null) return null;
  const current = steps[idx];
  if (!current) return null;
  if (effective < current.percent) return idx;
  return idx + 1 < steps.length ? idx + 1 : null;
}

/**
 * The ramp of `rollout`: recorded segments and marks from `history` (transitions before the
 * rollout was created, or after `now`, are ignored; the rollout's own state is the last word),
 * then the planned ones from now on.
 */
export function buildRamp(rollout: RampRollout, history: readonly RecordedTransition[], now: number): Ramp {
  const created = Date.parse(rollout.createdAt);
  const recorded = history
    .filter((t) => t.at >= created && t.at <= now)
    .map((t, i) => ({ t, i }))
    .sort((a, b) => a.t.at - b.t.at || a.i - b.i)
    .map(({ t }) => t);
  const current: RampState = rollout;
  const last = recorded[recorded.length - 1];
  if (!last || !sameState(last.state, current)) {
    // The history is missing or behind the resource: the resource's state holds since its last change.
    const updated = Math.min(now, Math.max(created, Date.parse(rollout.updatedAt), last?.at ?? created));
    recorded.push({ at: updated, action: updated === created ? 'rollout.created' : CURRENT, state: current });
  }

  const segments: RampSegment[] = [];
  const marks: RampMark[] = [];
  recorded.forEach((t, i) => {
    const to = recorded[i + 1]?.at ?? now;
    if (to > t.at || (i === recorded.length - 1 && to === t.at)) {
      segments.push({ from: t.at, to, percent: admitted(t.state), phase: phaseOf(t.state), kind: 'done' });
    }
    marks.push({ at: t.at, percent: admitted(t.state), label: labelOf(t), kind: 'done', step: t.state.rampStepIdx, waitsFor: null, gate: false });
  });

  const planned = project(rollout, recorded[recorded.length - 1]!.at, now);
  const lastPlanned = planned.marks[planned.marks.length - 1]?.at ?? now;
  const span = Math.max(lastPlanned, now) - created;
  const end = Math.max(lastPlanned, now) + Math.max(HOUR, span * 0.08);
  // The planned staircase: the present state until the first planned change, then each step's percent.
  let from = now;
  let percent = admitted(current);
  let phase = phaseOf(current);
  for (const m of planned.marks) {
    if (m.at > from) segments.push({ from, to: m.at, percent, phase, kind: 'planned' });
    from = Math.max(from, m.at);
    percent = m.percent;
    phase = m.gate ? 'approval_gate' : m.percent >= 100 ? 'completed' : 'active';
  }
  if (planned.marks.length > 0 || phaseOf(current) === 'active') segments.push({ from, to: end, percent, phase, kind: 'planned' });
  return { segments, marks: [...marks, ...planned.marks], start: created, end };
}

/**
 * The changes the plan still has in store, from `now` (the rollout last changed at `since`).
 * A change that waits for a person (approval, resume, a manual advance) is placed at the
 * earliest time it could happen, and every change after it waits for that person too.
 */
function project(rollout: RampRollout, since: number, now: number): { marks: RampMark[] } {
  const steps = rollout.planRampStepsSnapshot ?? [];
  const marks: RampMark[] = [];
  if (steps.length === 0 || rollout.rampStepIdx === null || rollout.status === 'completed' || rollout.status === 'cancelled') return { marks };
  const days = rollout.planBlackoutDaysOfWeek ?? [];
  const tz = rollout.planBlackoutTimezone ?? 'UTC';
  const auto = rollout.cadence === 'auto';
  const holdOf = (i: number | null) => (i === null ? 0 : (steps[i]?.holdForSeconds ?? 0) * 1000);

  let idx: number | null = rollout.rampStepIdx;
  let percent = effectivePercent(rollout);
  const approaching = () => idx !== null && percent < (steps[idx]?.percent ?? 0);
  let waitsFor: RampWait;
  /** When the next step is due (before a blackout deferral). */
  let due: number;

  if (rollout.status === 'paused' && rollout.pausedReason === 'approval_gate') {
    // Approving enters the gated step at once (resume → rollout.approval_resolved); its hold starts then.
    waitsFor = 'approval';
    const target = nextStepIndex(steps, idx, percent);
    if (target === null) return { marks };
    marks.push(mark(now, steps[target]!.percent, target, waitsFor, false));
    idx = target;
    percent = steps[target]!.percent;
    due = now + holdOf(target);
  } else if (rollout.status === 'paused') {
    // Resuming returns to the effective percent and restarts the current step's hold.
    waitsFor = 'resume';
    if (percent !== rollout.percent) marks.push({ ...mark(now, percent, idx, waitsFor, false), label: 'resumes' });
    due = approaching() ? now : now + holdOf(idx);
  } else if (auto) {
    if (!rollout.nextStepAt) return { marks }; // Nothing scheduled: the final step.
    waitsFor = 'schedule';
    due = Math.max(now, Date.parse(rollout.nextStepAt));
  } else {
    // Manual cadence: an operator advances each step; the plan's holds are the intended spacing.
    waitsFor = 'advance';
    due = approaching() ? now : Math.max(now, since + holdOf(idx));
  }

  for (let guard = 0; guard <= steps.length; guard++) {
    const target = nextStepIndex(steps, idx, percent);
    if (target === null) break;
    const step = steps[target]!;
    let at = due;
    if (auto) {
      // The scheduler's tick on a blackout day moves the step to the next allowed day's first instant.
      if (isBlackout(at, days, tz)) at = nextNonBlackoutStart(at, days, tz) ?? at;
      if (step.requiresApproval) {
        // The scheduler stops before the gated step; approving it enters the step.
        marks.push(mark(at, percent, idx, waitsFor, true));
        waitsFor = 'approval';
      }
    }
    marks.push(mark(at, step.percent, target, waitsFor, false));
    idx = target;
    percent = step.percent;
    if (target === steps.length - 1) break;
    due = at + holdOf(target);
  }
  return { marks };
}

function mark(at: number, percent: number, step: number | null, waitsFor: RampWait, gate: boolean): RampMark {
  return { at, percent, label: gate ? 'approval gate' : percent >= 100 ? 'completes' : `step ${step === null ? '' : step + 1}`.trim(), kind: 'planned', step, waitsFor, gate };
}
