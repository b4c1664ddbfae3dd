/**
 * A rollout's ramp on a time line: the past from its recorded transitions (the audit rows of its
 * state changes: when each happened and the state it left), the future projected from its plan
 * snapshot by running the state machine the way the scheduler and operators would: `tick` at each
 * `nextStepAt` (exact holds, blackout days of the plan's time zone, stops before approval gates),
 * `resume` where a person has to resume or approve first, `advance` for a manual plan. Pure:
 * every function takes `now`.
 */
import { PausedReason, ROLLOUT_STATUSES, type RolloutRampMarkCause, type RolloutRampPhase, type RolloutRampWait } from '@gradual/contract';
import { effectivePercent, nextStepIndex } from './ramp-position.js';
import { applyCommand } from './state-machine.js';
import type { RolloutAuditAction, RolloutCommand, RolloutState, RolloutStatus } from './types.js';

/** The part of a rollout's state its ramp depends on (what a recorded transition keeps). */
export type RampState = Pick<RolloutState, 'status' | 'percent' | 'pausedAtPercent' | 'pausedReason' | 'rolledBackFromPercent' | 'rampStepIdx'>;

/** One recorded change of the rollout: when, the audit action, and the state it left. */
export interface RecordedTransition {
  at: Date;
  action: string;
  state: RampState;
}

/** The rollout the ramp is drawn for: its whole current state and its creation and last change. */
export interface RampRollout {
  state: RolloutState;
  createdAt: Date;
  updatedAt: Date;
}

/** A stretch of the staircase: `percent` admitted over [from, to). */
export interface RampSegment {
  from: Date;
  to: Date;
  percent: number;
  phase: RolloutRampPhase;
  /** done: recorded; planned: projected from the plan. */
  kind: 'done' | 'planned';
}

/** A point where the ramp changed (done) or is expected to change (planned). */
export interface RampMark {
  at: Date;
  percent: number;
  kind: 'done' | 'planned';
  cause: RolloutRampMarkCause;
  /** The ramp step (0-based) the rollout is at after this change, when it is on a plan. */
  step: number | null;
  /** For a planned mark: what it waits for (the scheduler alone, or a person first). */
  waitsFor: RolloutRampWait | null;
  /** A planned stop before a step that requires approval. */
  gate: boolean;
}

export interface Ramp {
  segments: RampSegment[];
  marks: RampMark[];
  /** The instant the ramp is drawn at: done segments end here, planned ones start here. */
  now: Date;
  /** The rollout's creation. */
  start: Date;
  /** A little after the last planned change (or now). */
  end: Date;
}

const HOUR = 3_600_000;

// ---------------------------------------------------------------------------
// Recorded transitions

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
const isStatus = (v: unknown): v is RolloutStatus => ROLLOUT_STATUSES.some((s) => s === v);
const isReason = (v: unknown): v is PausedReason => PausedReason.options.some((r) => r === v);
function numberOrNull(v: unknown): number | null | undefined {
  if (v === null || v === undefined) return null;
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** Whether an audit action of a rollout changes its state (allow-list edits do not). */
export const isStateChange = (action: string): boolean => action.startsWith('rollout.') && !action.startsWith('rollout.target_ids');

/**
 * The state a rollout audit row's `newValue` (the rollout as the change left it) records, or null
 * when it is not a rollout's state (a malformed value).
 */
export function recordedState(newValue: unknown): RampState | null {
  if (!isRecord(newValue) || !isStatus(newValue.status) || typeof newValue.percent !== 'number') return null;
  const r = newValue.pausedReason;
  const pausedReason = r === null || r === undefined ? null : isReason(r) ? r : undefined;
  const pausedAtPercent = numberOrNull(newValue.pausedAtPercent);
  const rolledBackFromPercent = numberOrNull(newValue.rolledBackFromPercent);
  const rampStepIdx = numberOrNull(newValue.rampStepIdx);
  if (pausedReason === undefined || pausedAtPercent === undefined || rolledBackFromPercent === undefined || rampStepIdx === undefined) return null;
  return { status: newValue.status, percent: newValue.percent, pausedAtPercent, pausedReason, rolledBackFromPercent, rampStepIdx };
}

export function phaseOf(s: RampState): RolloutRampPhase {
  if (s.status !== 'paused') return s.status;
  if (s.pausedReason === 'approval_gate') return 'approval_gate';
  if (s.pausedReason === 'auto_rollback') return 'rolled_back';
  return 'paused';
}

/** Traffic admitted in this state: a cancelled rollout admits nobody (its percent is kept for the record). */
function admitted(s: RampState): number {
  return s.status === 'cancelled' ? 0 : s.percent;
}

const CAUSES: Record<RolloutAuditAction, RolloutRampMarkCause> = {
  'rollout.created': 'created',
  'rollout.updated': 'edited',
  'rollout.paused': 'paused',
  'rollout.advanced': 'advanced',
  'rollout.resumed': 'resumed',
  'rollout.approval_resolved': 'approved',
  'rollout.approval_gate_reached': 'approval_gate',
  'rollout.completed': 'completed',
  'rollout.cancelled': 'cancelled',
  'rollout.auto_rollback': 'rolled_back',
  'rollout.rolled_back': 'rolled_back',
};
const isAuditAction = (action: string): action is RolloutAuditAction => Object.hasOwn(CAUSES, action);

/** The cause a state shows when no recorded row tells how the rollout got there. */
const STATE_CAUSES: Record<RolloutRampPhase, RolloutRampMarkCause> = {
  active: 'current',
  paused: 'paused',
  approval_gate: 'approval_gate',
  rolled_back: 'rolled_back',
  completed: 'completed',
  cancelled: 'cancelled',
};

/** The action of the rollout's own state when no recorded row shows how it got there. */
const CURRENT = 'current';

function causeOf(t: Pick<RecordedTransition, 'action' | 'state'>): RolloutRampMarkCause {
  const phase = phaseOf(t.state);
  if (t.action === CURRENT) return STATE_CAUSES[phase];
  if (t.action === 'rollout.paused') return phase === 'approval_gate' || phase === 'rolled_back' ? phase : 'paused';
  return isAuditAction(t.action) ? CAUSES[t.action] : 'edited';
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
// The ramp

interface Point {
  at: number;
  action: string;
  state: RampState;
}

/**
 * The ramp of `rollout`: recorded segments and marks from `history` (transitions before the
 * rollout was created, or after `now`, are ignored; the rollout's own state is the last word),
 * then the planned ones from now on.
 */
export function buildRamp(rollout: RampRollout, history: readonly RecordedTransition[], now: Date): Ramp {
  const nowMs = now.getTime();
  const created = rollout.createdAt.getTime();
  const recorded: Point[] = history
    .map((t, i) => ({ p: { at: t.at.getTime(), action: t.action, state: t.state }, i }))
    .filter(({ p }) => p.at >= created && p.at <= nowMs)
    .sort((a, b) => a.p.at - b.p.at || a.i - b.i)
    .map(({ p }) => p);
  const current = rollout.state;
  const last = recorded[recorded.length - 1];
  if (!last || !sameState(last.state, current)) {
    // The history is missing or behind the row: the row's state holds since its last change.
    const updated = Math.min(nowMs, Math.max(created, rollout.updatedAt.getTime(), last?.at ?? created));
    recorded.push({ at: updated, action: updated === created ? 'rollout.created' : CURRENT, state: current });
  }

  const segments: RampSegment[] = [];
  const marks: RampMark[] = [];
  recorded.forEach((t, i) => {
    const to = recorded[i + 1]?.at ?? nowMs;
    if (to > t.at || (i === recorded.length - 1 && to === t.at)) {
      segments.push({ from: new Date(t.at), to: new Date(to), percent: admitted(t.state), phase: phaseOf(t.state), kind: 'done' });
    }
    marks.push({ at: new Date(t.at), percent: admitted(t.state), kind: 'done', cause: causeOf(t), step: t.state.rampStepIdx, waitsFor: null, gate: false });
  });

  const planned = project(current, recorded[recorded.length - 1]!.at, nowMs);
  const lastPlanned = planned[planned.length - 1]?.at.getTime() ?? nowMs;
  const right = Math.max(lastPlanned, nowMs);
  const end = right + Math.max(HOUR, (right - created) * 0.08);
  // The planned staircase: the present state until the first planned change, then each change's percent.
  let from = nowMs;
  let percent = admitted(current);
  let phase = phaseOf(current);
  for (const m of planned) {
    const at = m.at.getTime();
    if (at > from) segments.push({ from: new Date(from), to: m.at, percent, phase, kind: 'planned' });
    from = Math.max(from, at);
    percent = m.percent;
    phase = m.gate ? 'approval_gate' : m.percent >= 100 ? 'completed' : 'active';
  }
  if (planned.length > 0 || phaseOf(current) === 'active') segments.push({ from: new Date(from), to: new Date(end), percent, phase, kind: 'planned' });
  return { segments, marks: [...marks, ...planned], now: new Date(nowMs), start: new Date(created), end: new Date(end) };
}

/**
 * The changes the plan still has in store from `now` (the rollout last changed at `since`), found
 * by applying the state machine's own commands to the current state: the scheduler's `tick` at
 * each `nextStepAt` (an auto plan), a `resume` where the rollout waits for a person (a pause, a
 * rollback, an approval gate), an `advance` once each hold has run (a manual plan); a step that
 * holds from convergence as if the fleet served it when entered. A change that
 * waits for a person is placed at the earliest time it could happen, and every change after it
 * waits for that person too.
 */
function project(current: RolloutState, since: number, now: number): RampMark[] {
  const marks: RampMark[] = [];
  const plan = current.plan;
  if (!plan || plan.rampSteps.length === 0 || current.rampStepIdx === null || (current.status !== 'active' && current.status !== 'paused')) return marks;
  const steps = plan.rampSteps;
  const auto = plan.cadence === 'auto';
  const holdOf = (s: RolloutState) => (steps[s.rampStepIdx ?? -1]?.holdForSeconds ?? 0) * 1000;
  const approaching = (s: RolloutState) => s.rampStepIdx !== null && effectivePercent(s) < (steps[s.rampStepIdx]?.percent ?? 0);
  // A step that holds from convergence is projected as if the fleet served it at once.
  const converged = (t: ReturnType<typeof applyCommand>, at: number) =>
    t.rollout.awaitingConvergenceUntil === null ? t : { ...t, rollout: applyCommand(t.rollout, { type: 'tick', converged: true }, new Date(at)).rollout };
  const apply = (s: RolloutState, command: RolloutCommand, at: number) => converged(applyCommand(s, command, new Date(at)), at);
  const mark = (at: number, percent: number, step: number | null, cause: RolloutRampMarkCause, waitsFor: RolloutRampWait, gate = false): RampMark => ({
    at: new Date(at),
    percent,
    kind: 'planned',
    cause,
    step,
    waitsFor,
    gate,
  });
  const entered = (s: RolloutState) => (s.status === 'completed' || s.percent >= 100 ? 'completed' : 'step');

  let state = current;
  let waitsFor: RolloutRampWait;
  /** When the next step is due; null when nothing is scheduled. */
  let due: number | null;

  if (state.status === 'paused' && state.pausedReason === 'approval_gate') {
    // Approving enters the gated step at once (rollout.approval_resolved); its hold starts then.
    waitsFor = 'approval';
    const resumed = apply(state, { type: 'resume' }, now);
    if (!resumed.actions.includes('rollout.approval_resolved')) return marks;
    state = resumed.rollout;
    marks.push(mark(now, state.percent, state.rampStepIdx, entered(state), waitsFor));
    due = auto ? (state.nextStepAt?.getTime() ?? null) : now + holdOf(state);
  } else if (state.status === 'paused') {
    // Resuming returns to the effective percent and restarts the current step's hold.
    waitsFor = 'resume';
    const before = state.percent;
    state = apply(state, { type: 'resume' }, now).rollout;
    if (state.percent !== before) marks.push(mark(now, state.percent, state.rampStepIdx, 'resumed', waitsFor));
    due = auto ? (state.nextStepAt?.getTime() ?? null) : approaching(state) ? now : now + holdOf(state);
  } else if (auto) {
    waitsFor = 'schedule';
    if (state.awaitingConvergenceUntil !== null) state = apply(state, { type: 'tick', converged: true }, now).rollout;
    due = state.nextStepAt === null ? null : Math.max(now, state.nextStepAt.getTime());
  } else {
    // Manual cadence: an operator advances each step; the plan's holds are the intended spacing.
    waitsFor = 'advance';
    due = approaching(state) ? now : Math.max(now, since + holdOf(state));
  }

  // Each step is entered at most once; a blackout deferral adds one tick per step.
  for (let guard = 0; due !== null && state.status === 'active' && guard <= 2 * steps.length + 2; guard++) {
    if (nextStepIndex(state) === null) break;
    if (!auto) {
      // An operator's advance: ignores blackout days and approval gates.
      state = apply(state, { type: 'advance' }, due).rollout;
      marks.push(mark(due, state.percent, state.rampStepIdx, entered(state), waitsFor));
      due = due + holdOf(state);
      continue;
    }
    const at = due;
    const ticked = apply(state, { type: 'tick' }, at);
    if (!ticked.changed) break;
    state = ticked.rollout;
    if (ticked.actions.includes('rollout.approval_gate_reached')) {
      // The scheduler stops before the gated step; approving it enters the step.
      marks.push(mark(at, state.percent, state.rampStepIdx, 'approval_gate', waitsFor, true));
      waitsFor = 'approval';
      state = apply(state, { type: 'resume' }, at).rollout;
      marks.push(mark(at, state.percent, state.rampStepIdx, entered(state), waitsFor));
    } else if (ticked.actions.length > 0) {
      marks.push(mark(at, state.percent, state.rampStepIdx, entered(state), waitsFor));
    }
    // A blackout day moved nextStepAt to the next allowed day's first instant; null: nothing left.
    due = state.nextStepAt?.getTime() ?? null;
  }
  return marks;
}
