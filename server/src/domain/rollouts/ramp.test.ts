import { describe, expect, it } from 'vitest';
import { buildRamp, isStateChange, recordedState, type RampRollout, type RampState, type RecordedTransition } from './ramp.js';
import type { RampStep, RolloutState } from './types.js';

const MIN = 60_000;
const HOUR = 3_600_000;
const T0 = Date.parse('2026-11-18T12:00:00Z'); // a Wednesday
const iso = (ms: number) => new Date(ms).toISOString();

const state = (over: Partial<RampState>): RampState => ({
  status: 'active',
  percent: 0,
  pausedAtPercent: null,
  pausedReason: null,
  rolledBackFromPercent: null,
  rampStepIdx: 0,
  ...over,
});

/** A rollout as the table gives it: its ramp state, its plan's fields and ISO times, as the API shows them. */
interface TestRollout extends RampState {
  createdAt: string;
  updatedAt: string;
  planRampStepsSnapshot: RampStep[];
  cadence: 'auto' | 'manual';
  planBlackoutDaysOfWeek: number[];
  planBlackoutTimezone: string;
  nextStepAt: string | null;
}

function rollout(steps: RampStep[], over: Partial<TestRollout>): TestRollout {
  return {
    ...state({}),
    createdAt: iso(T0),
    updatedAt: iso(T0),
    planRampStepsSnapshot: steps,
    cadence: 'auto',
    planBlackoutDaysOfWeek: [],
    planBlackoutTimezone: 'UTC',
    nextStepAt: null,
    ...over,
  };
}

/** The domain's view of a table rollout. */
function toRamp(r: TestRollout): RampRollout {
  const s: RolloutState = {
    status: r.status,
    percent: r.percent,
    pausedAtPercent: r.pausedAtPercent,
    pausedReason: r.pausedReason,
    rolledBackFromPercent: r.rolledBackFromPercent,
    seed: 's',
    bucketField: 'userId',
    newValue: true,
    plan: { key: 'plan', rampSteps: r.planRampStepsSnapshot, cadence: r.cadence, blackoutDaysOfWeek: r.planBlackoutDaysOfWeek, blackoutTimezone: r.planBlackoutTimezone },
    rampStepIdx: r.rampStepIdx,
    nextStepAt: r.nextStepAt === null ? null : new Date(r.nextStepAt),
    stepStartedAt: null,
    guardCheckAt: null,
    awaitingConvergenceUntil: null,
  };
  return { state: s, createdAt: new Date(r.createdAt), updatedAt: new Date(r.updatedAt) };
}

const at = (ms: number, action: string, over: Partial<RampState>): RecordedTransition => ({ at: new Date(ms), action, state: state(over) });

/** The ramp in a comparable form: times as ISO strings. */
function summary(r: TestRollout, history: RecordedTransition[], now: number) {
  const ramp = buildRamp(toRamp(r), history, new Date(now));
  return {
    done: ramp.segments.filter((s) => s.kind === 'done').map((s) => [s.from.toISOString(), s.to.toISOString(), s.percent, s.phase]),
    marks: ramp.marks.map((m) => [m.kind, m.at.toISOString(), m.percent, m.cause, m.waitsFor]),
    steps: ramp.marks.map((m) => m.step),
    start: ramp.start.toISOString(),
  };
}

const PLAN: RampStep[] = [
  { percent: 5, holdForSeconds: 60 },
  { percent: 25, holdForSeconds: 5400 },
  { percent: 100, holdForSeconds: 0 },
];
const GATED: RampStep[] = [
  { percent: 10, holdForSeconds: 3600 },
  { percent: 50, holdForSeconds: 3600, requiresApproval: true },
  { percent: 100, holdForSeconds: 0 },
];
const RAMP: RampStep[] = [
  { percent: 25, holdForSeconds: 3600 },
  { percent: 50, holdForSeconds: 3600 },
  { percent: 100, holdForSeconds: 0 },
];

describe('buildRamp', () => {
  it.each([
    {
      name: 'start, then automatic steps: exact holds, no rounding to the hour',
      rollout: rollout(PLAN, { percent: 25, rampStepIdx: 1, updatedAt: iso(T0 + MIN), nextStepAt: iso(T0 + MIN + 5400_000) }),
      history: [at(T0, 'rollout.created', { percent: 5 }), at(T0 + MIN, 'rollout.advanced', { percent: 25, rampStepIdx: 1 })],
      now: T0 + 10 * MIN,
      done: [
        [iso(T0), iso(T0 + MIN), 5, 'active'],
        [iso(T0 + MIN), iso(T0 + 10 * MIN), 25, 'active'],
      ],
      marks: [
        ['done', iso(T0), 5, 'created', null],
        ['done', iso(T0 + MIN), 25, 'advanced', null],
        ['planned', iso(T0 + MIN + 90 * MIN), 100, 'completed', 'schedule'],
      ],
    },
    {
      name: 'an approval gate reached and approved: the hold runs from the approval',
      rollout: rollout(GATED, { percent: 50, rampStepIdx: 1, updatedAt: iso(T0 + 3 * HOUR), nextStepAt: iso(T0 + 4 * HOUR) }),
      history: [
        at(T0, 'rollout.created', { percent: 10 }),
        at(T0 + HOUR, 'rollout.paused', { status: 'paused', pausedReason: 'approval_gate', percent: 10, pausedAtPercent: 10 }),
        at(T0 + 3 * HOUR, 'rollout.approval_resolved', { percent: 50, rampStepIdx: 1 }),
      ],
      now: T0 + 3.5 * HOUR,
      done: [
        [iso(T0), iso(T0 + HOUR), 10, 'active'],
        [iso(T0 + HOUR), iso(T0 + 3 * HOUR), 10, 'approval_gate'],
        [iso(T0 + 3 * HOUR), iso(T0 + 3.5 * HOUR), 50, 'active'],
      ],
      marks: [
        ['done', iso(T0), 10, 'created', null],
        ['done', iso(T0 + HOUR), 10, 'approval_gate', null],
        ['done', iso(T0 + 3 * HOUR), 50, 'approved', null],
        ['planned', iso(T0 + 4 * HOUR), 100, 'completed', 'schedule'],
      ],
    },
    {
      name: 'waiting at a gate: the gated step and everything after wait for approval',
      rollout: rollout(GATED, { status: 'paused', pausedReason: 'approval_gate', percent: 10, pausedAtPercent: 10, updatedAt: iso(T0 + HOUR) }),
      history: [at(T0, 'rollout.created', { percent: 10 }), at(T0 + HOUR, 'rollout.paused', { status: 'paused', pausedReason: 'approval_gate', percent: 10, pausedAtPercent: 10 })],
      now: T0 + 2 * HOUR,
      done: [
        [iso(T0), iso(T0 + HOUR), 10, 'active'],
        [iso(T0 + HOUR), iso(T0 + 2 * HOUR), 10, 'approval_gate'],
      ],
      marks: [
        ['done', iso(T0), 10, 'created', null],
        ['done', iso(T0 + HOUR), 10, 'approval_gate', null],
        ['planned', iso(T0 + 2 * HOUR), 50, 'step', 'approval'],
        ['planned', iso(T0 + 3 * HOUR), 100, 'completed', 'approval'],
      ],
    },
    {
      name: 'a gate ahead: the scheduler stops there and the rest waits for approval',
      rollout: rollout(GATED, { percent: 10, nextStepAt: iso(T0 + HOUR) }),
      history: [at(T0, 'rollout.created', { percent: 10 })],
      now: T0 + 10 * MIN,
      done: [[iso(T0), iso(T0 + 10 * MIN), 10, 'active']],
      marks: [
        ['done', iso(T0), 10, 'created', null],
        ['planned', iso(T0 + HOUR), 10, 'approval_gate', 'schedule'],
        ['planned', iso(T0 + HOUR), 50, 'step', 'approval'],
        ['planned', iso(T0 + 2 * HOUR), 100, 'completed', 'approval'],
      ],
    },
    {
      name: 'paused and resumed: the hold restarts at the resume',
      rollout: rollout(RAMP, { percent: 25, updatedAt: iso(T0 + 2 * HOUR), nextStepAt: iso(T0 + 3 * HOUR) }),
      history: [
        at(T0, 'rollout.created', { percent: 25 }),
        at(T0 + 30 * MIN, 'rollout.paused', { status: 'paused', pausedReason: 'user', percent: 25, pausedAtPercent: 25 }),
        at(T0 + 2 * HOUR, 'rollout.resumed', { percent: 25 }),
      ],
      now: T0 + 2.5 * HOUR,
      done: [
        [iso(T0), iso(T0 + 30 * MIN), 25, 'active'],
        [iso(T0 + 30 * MIN), iso(T0 + 2 * HOUR), 25, 'paused'],
        [iso(T0 + 2 * HOUR), iso(T0 + 2.5 * HOUR), 25, 'active'],
      ],
      marks: [
        ['done', iso(T0), 25, 'created', null],
        ['done', iso(T0 + 30 * MIN), 25, 'paused', null],
        ['done', iso(T0 + 2 * HOUR), 25, 'resumed', null],
        ['planned', iso(T0 + 3 * HOUR), 50, 'step', 'schedule'],
        ['planned', iso(T0 + 4 * HOUR), 100, 'completed', 'schedule'],
      ],
    },
    {
      name: 'paused by a user: the rest waits for a resume, the hold counted from it',
      rollout: rollout(RAMP, { status: 'paused', pausedReason: 'user', percent: 25, pausedAtPercent: 25, updatedAt: iso(T0 + 30 * MIN) }),
      history: [at(T0, 'rollout.created', { percent: 25 }), at(T0 + 30 * MIN, 'rollout.paused', { status: 'paused', pausedReason: 'user', percent: 25, pausedAtPercent: 25 })],
      now: T0 + HOUR,
      done: [
        [iso(T0), iso(T0 + 30 * MIN), 25, 'active'],
        [iso(T0 + 30 * MIN), iso(T0 + HOUR), 25, 'paused'],
      ],
      marks: [
        ['done', iso(T0), 25, 'created', null],
        ['done', iso(T0 + 30 * MIN), 25, 'paused', null],
        ['planned', iso(T0 + 2 * HOUR), 50, 'step', 'resume'],
        ['planned', iso(T0 + 3 * HOUR), 100, 'completed', 'resume'],
      ],
    },
    {
      name: 'rolled back: 0% from the rollback on; resuming returns to the percent it was rolled back from',
      rollout: rollout(RAMP, { status: 'paused', pausedReason: 'auto_rollback', percent: 0, pausedAtPercent: 0, rolledBackFromPercent: 50, rampStepIdx: 1, updatedAt: iso(T0 + 1.5 * HOUR) }),
      history: [
        at(T0, 'rollout.created', { percent: 25 }),
        at(T0 + HOUR, 'rollout.advanced', { percent: 50, rampStepIdx: 1 }),
        at(T0 + 1.5 * HOUR, 'rollout.auto_rollback', { status: 'paused', pausedReason: 'auto_rollback', percent: 0, pausedAtPercent: 0, rolledBackFromPercent: 50, rampStepIdx: 1 }),
      ],
      now: T0 + 2 * HOUR,
      done: [
        [iso(T0), iso(T0 + HOUR), 25, 'active'],
        [iso(T0 + HOUR), iso(T0 + 1.5 * HOUR), 50, 'active'],
        [iso(T0 + 1.5 * HOUR), iso(T0 + 2 * HOUR), 0, 'rolled_back'],
      ],
      marks: [
        ['done', iso(T0), 25, 'created', null],
        ['done', iso(T0 + HOUR), 50, 'advanced', null],
        ['done', iso(T0 + 1.5 * HOUR), 0, 'rolled_back', null],
        ['planned', iso(T0 + 2 * HOUR), 50, 'resumed', 'resume'],
        ['planned', iso(T0 + 3 * HOUR), 100, 'completed', 'resume'],
      ],
    },
    {
      name: 'rolled back, then resumed',
      rollout: rollout(RAMP, { percent: 50, rampStepIdx: 1, updatedAt: iso(T0 + 3 * HOUR), nextStepAt: iso(T0 + 4 * HOUR) }),
      history: [
        at(T0, 'rollout.created', { percent: 25 }),
        at(T0 + HOUR, 'rollout.advanced', { percent: 50, rampStepIdx: 1 }),
        at(T0 + 1.5 * HOUR, 'rollout.auto_rollback', { status: 'paused', pausedReason: 'auto_rollback', percent: 0, pausedAtPercent: 0, rolledBackFromPercent: 50, rampStepIdx: 1 }),
        at(T0 + 3 * HOUR, 'rollout.resumed', { percent: 50, rampStepIdx: 1 }),
      ],
      now: T0 + 3.5 * HOUR,
      done: [
        [iso(T0), iso(T0 + HOUR), 25, 'active'],
        [iso(T0 + HOUR), iso(T0 + 1.5 * HOUR), 50, 'active'],
        [iso(T0 + 1.5 * HOUR), iso(T0 + 3 * HOUR), 0, 'rolled_back'],
        [iso(T0 + 3 * HOUR), iso(T0 + 3.5 * HOUR), 50, 'active'],
      ],
      marks: [
        ['done', iso(T0), 25, 'created', null],
        ['done', iso(T0 + HOUR), 50, 'advanced', null],
        ['done', iso(T0 + 1.5 * HOUR), 0, 'rolled_back', null],
        ['done', iso(T0 + 3 * HOUR), 50, 'resumed', null],
        ['planned', iso(T0 + 4 * HOUR), 100, 'completed', 'schedule'],
      ],
    },
    {
      name: 'a manual plan advanced by hand before its hold: the rest waits for an advance',
      rollout: rollout(GATED, { cadence: 'manual', percent: 50, rampStepIdx: 1, updatedAt: iso(T0 + 20 * MIN) }),
      history: [at(T0, 'rollout.created', { percent: 10 }), at(T0 + 20 * MIN, 'rollout.advanced', { percent: 50, rampStepIdx: 1 })],
      now: T0 + 30 * MIN,
      done: [
        [iso(T0), iso(T0 + 20 * MIN), 10, 'active'],
        [iso(T0 + 20 * MIN), iso(T0 + 30 * MIN), 50, 'active'],
      ],
      marks: [
        ['done', iso(T0), 10, 'created', null],
        ['done', iso(T0 + 20 * MIN), 50, 'advanced', null],
        ['planned', iso(T0 + 80 * MIN), 100, 'completed', 'advance'],
      ],
    },
    {
      name: 'completed: the last step and the completion at one instant, nothing planned',
      rollout: rollout(RAMP, { status: 'completed', percent: 100, rampStepIdx: 2, updatedAt: iso(T0 + 2 * HOUR) }),
      history: [
        at(T0, 'rollout.created', { percent: 25 }),
        at(T0 + HOUR, 'rollout.advanced', { percent: 50, rampStepIdx: 1 }),
        at(T0 + 2 * HOUR, 'rollout.advanced', { status: 'completed', percent: 100, rampStepIdx: 2 }),
        at(T0 + 2 * HOUR, 'rollout.completed', { status: 'completed', percent: 100, rampStepIdx: 2 }),
      ],
      now: T0 + 3 * HOUR,
      done: [
        [iso(T0), iso(T0 + HOUR), 25, 'active'],
        [iso(T0 + HOUR), iso(T0 + 2 * HOUR), 50, 'active'],
        [iso(T0 + 2 * HOUR), iso(T0 + 3 * HOUR), 100, 'completed'],
      ],
      marks: [
        ['done', iso(T0), 25, 'created', null],
        ['done', iso(T0 + HOUR), 50, 'advanced', null],
        ['done', iso(T0 + 2 * HOUR), 100, 'advanced', null],
        ['done', iso(T0 + 2 * HOUR), 100, 'completed', null],
      ],
    },
    {
      name: 'rows of an earlier rollout and rows after now are ignored',
      rollout: rollout(RAMP, { percent: 25, nextStepAt: iso(T0 + HOUR) }),
      history: [
        at(T0 - 24 * HOUR, 'rollout.created', { percent: 50, rampStepIdx: 1 }),
        at(T0, 'rollout.created', { percent: 25 }),
        at(T0 + 2 * HOUR, 'rollout.advanced', { percent: 50, rampStepIdx: 1 }),
      ],
      now: T0 + 30 * MIN,
      done: [[iso(T0), iso(T0 + 30 * MIN), 25, 'active']],
      marks: [
        ['done', iso(T0), 25, 'created', null],
        ['planned', iso(T0 + HOUR), 50, 'step', 'schedule'],
        ['planned', iso(T0 + 2 * HOUR), 100, 'completed', 'schedule'],
      ],
    },
    {
      name: 'no recorded history: the past is the current state since its last change, nothing invented',
      rollout: rollout(RAMP, { status: 'paused', pausedReason: 'auto_rollback', percent: 0, pausedAtPercent: 0, rolledBackFromPercent: 50, rampStepIdx: 1, updatedAt: iso(T0 + 1.5 * HOUR) }),
      history: [],
      now: T0 + 2 * HOUR,
      done: [[iso(T0 + 1.5 * HOUR), iso(T0 + 2 * HOUR), 0, 'rolled_back']],
      marks: [
        ['done', iso(T0 + 1.5 * HOUR), 0, 'rolled_back', null],
        ['planned', iso(T0 + 2 * HOUR), 50, 'resumed', 'resume'],
        ['planned', iso(T0 + 3 * HOUR), 100, 'completed', 'resume'],
      ],
    },
  ])('$name', ({ rollout: r, history, now, done, marks }) => {
    const s = summary(r, history, now);
    expect(s.done).toEqual(done);
    expect(s.marks).toEqual(marks);
    expect(s.start).toBe(r.createdAt);
  });

  it('draws the planned staircase from now on, the done one up to now', () => {
    const r = rollout(PLAN, { percent: 25, rampStepIdx: 1, updatedAt: iso(T0 + MIN), nextStepAt: iso(T0 + MIN + 5400_000) });
    const ramp = buildRamp(toRamp(r), [at(T0, 'rollout.created', { percent: 5 }), at(T0 + MIN, 'rollout.advanced', { percent: 25, rampStepIdx: 1 })], new Date(T0 + 10 * MIN));
    const planned = ramp.segments.filter((s) => s.kind === 'planned');
    expect(planned.map((s) => [s.from.toISOString(), s.percent])).toEqual([
      [iso(T0 + 10 * MIN), 25],
      [iso(T0 + 91 * MIN), 100],
    ]);
    expect(Math.max(...ramp.segments.filter((s) => s.kind === 'done').map((s) => s.to.getTime()))).toBe(T0 + 10 * MIN);
    expect(ramp.end.getTime()).toBeGreaterThan(T0 + 91 * MIN);
  });

  it('numbers the steps of the planned marks: a gate stays at the step before it', () => {
    const r = rollout(GATED, { percent: 10, nextStepAt: iso(T0 + HOUR) });
    expect(summary(r, [at(T0, 'rollout.created', { percent: 10 })], T0 + 10 * MIN).steps).toEqual([0, 0, 1, 2]);
    const gate = buildRamp(toRamp(r), [], new Date(T0 + 10 * MIN)).marks.filter((m) => m.gate);
    expect(gate.map((m) => [m.at.toISOString(), m.percent, m.step])).toEqual([[iso(T0 + HOUR), 10, 0]]);
  });

  it('a cancelled rollout admits 0% from its cancellation and plans nothing', () => {
    const r = rollout(RAMP, { status: 'cancelled', percent: 25, updatedAt: iso(T0 + HOUR) });
    const s = summary(r, [at(T0, 'rollout.created', { percent: 25 }), at(T0 + HOUR, 'rollout.cancelled', { status: 'cancelled', percent: 25 })], T0 + 2 * HOUR);
    expect(s.done).toEqual([
      [iso(T0), iso(T0 + HOUR), 25, 'active'],
      [iso(T0 + HOUR), iso(T0 + 2 * HOUR), 0, 'cancelled'],
    ]);
    expect(s.marks.filter((m) => m[0] === 'planned')).toEqual([]);
  });

  it('a history behind the row: the row’s state is shown from its last change, with its phase as the cause', () => {
    const r = rollout(GATED, { status: 'paused', pausedReason: 'approval_gate', percent: 10, pausedAtPercent: 10, updatedAt: iso(T0 + HOUR) });
    const s = summary(r, [at(T0, 'rollout.created', { percent: 10 })], T0 + 2 * HOUR);
    expect(s.marks.slice(0, 2)).toEqual([
      ['done', iso(T0), 10, 'created', null],
      ['done', iso(T0 + HOUR), 10, 'approval_gate', null],
    ]);
  });
});

describe('blackout days in the plan’s time zone', () => {
  it.each([
    {
      // Sunday 2026-11-01 is the day New York falls back: Monday starts at 05:00Z (EST), not 04:00Z.
      name: 'a step due on the Sunday the clocks go back waits for Monday 00:00 EST',
      tz: 'America/New_York',
      days: [0],
      created: '2026-10-31T12:00:00Z',
      nextStepAt: '2026-11-01T12:00:00Z',
      expected: ['2026-11-02T05:00:00.000Z', '2026-11-02T06:00:00.000Z'],
    },
    {
      // Sunday 2027-03-28 is the day Berlin springs forward: Monday starts at 22:00Z (CEST), not 23:00Z.
      name: 'a step due on the Sunday the clocks go forward waits for Monday 00:00 CEST',
      tz: 'Europe/Berlin',
      days: [0],
      created: '2027-03-27T12:00:00Z',
      nextStepAt: '2027-03-27T23:30:00Z',
      expected: ['2027-03-28T22:00:00.000Z', '2027-03-28T23:00:00.000Z'],
    },
    {
      // Lord Howe (+10:30 in July): Saturday 2026-07-04 runs from 13:30Z on the Friday to 13:30Z on the Saturday.
      name: 'a step due on a Saturday at a half-hour offset waits for Sunday 00:00 local',
      tz: 'Australia/Lord_Howe',
      days: [6],
      created: '2026-07-03T12:00:00Z',
      nextStepAt: '2026-07-04T02:00:00Z',
      expected: ['2026-07-04T13:30:00.000Z', '2026-07-04T14:30:00.000Z'],
    },
    {
      // A step a day after a Friday step lands on Saturday and Sunday: it waits for Monday, the next for an hour after it.
      name: 'a weekend blackout in New York: every step due on it waits for Monday',
      tz: 'America/New_York',
      days: [0, 6],
      created: '2026-11-20T17:00:00Z',
      nextStepAt: '2026-11-21T17:00:00Z',
      expected: ['2026-11-23T05:00:00.000Z', '2026-11-23T06:00:00.000Z'],
    },
  ])('$name', ({ tz, days, created, nextStepAt, expected }) => {
    const steps: RampStep[] = [
      { percent: 10, holdForSeconds: 86400 },
      { percent: 50, holdForSeconds: 3600 },
      { percent: 100, holdForSeconds: 0 },
    ];
    const r = rollout(steps, { percent: 10, createdAt: created, updatedAt: created, nextStepAt, planBlackoutDaysOfWeek: days, planBlackoutTimezone: tz });
    const ramp = buildRamp(toRamp(r), [at(Date.parse(created), 'rollout.created', { percent: 10 })], new Date(Date.parse(created) + HOUR));
    expect(ramp.marks.filter((m) => m.kind === 'planned').map((m) => m.at.toISOString())).toEqual(expected);
  });

  it('a gate due on a blackout day: the scheduler stops on the next allowed day, and the approval is waited for from there', () => {
    const r = rollout(GATED, {
      percent: 10,
      createdAt: '2026-10-31T12:00:00Z',
      updatedAt: '2026-10-31T12:00:00Z',
      nextStepAt: '2026-11-01T12:00:00Z',
      planBlackoutDaysOfWeek: [0],
      planBlackoutTimezone: 'America/New_York',
    });
    const ramp = buildRamp(toRamp(r), [], new Date('2026-10-31T13:00:00Z'));
    expect(ramp.marks.filter((m) => m.kind === 'planned').map((m) => [m.at.toISOString(), m.percent, m.cause, m.waitsFor])).toEqual([
      ['2026-11-02T05:00:00.000Z', 10, 'approval_gate', 'schedule'],
      ['2026-11-02T05:00:00.000Z', 50, 'step', 'approval'],
      ['2026-11-02T06:00:00.000Z', 100, 'completed', 'approval'],
    ]);
  });
});

describe('recordedState', () => {
  const value = { status: 'paused', percent: 0, pausedAtPercent: 0, pausedReason: 'auto_rollback', rolledBackFromPercent: 50, rampStepIdx: 1, seed: 's' };

  it('reads the state a rollout audit row’s new value left', () => {
    expect(recordedState(value)).toEqual({ status: 'paused', percent: 0, pausedAtPercent: 0, pausedReason: 'auto_rollback', rolledBackFromPercent: 50, rampStepIdx: 1 });
  });

  it.each([
    ['no value', null],
    ['a value without a status', { percent: 5 }],
    ['an unknown pause reason', { status: 'paused', percent: 5, pausedReason: 'lunch' }],
    ['a percent that is not a number', { status: 'active', percent: '5' }],
    ['a step that is not a number', { ...value, rampStepIdx: 'one' }],
  ])('skips %s', (_, newValue) => {
    expect(recordedState(newValue)).toBeNull();
  });

  it.each([
    ['rollout.auto_rollback', true],
    ['rollout.approval_gate_reached', true],
    ['rollout.target_ids_added', false],
    ['flag.update_value', false],
  ])('%s is a state change: %s', (action, expected) => {
    expect(isStateChange(action)).toBe(expected);
  });
});
