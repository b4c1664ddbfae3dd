import type { AuditEventDetail, RampStep } from '@gradual/sdk';
import { describe, expect, it } from 'vitest';
import { buildRamp, isBlackout, nextNonBlackoutStart, transitionFromAuditEvent, type RampRollout, type RampState, type RecordedTransition } from './ramp-history';

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

function rollout(steps: RampStep[], over: Partial<RampRollout>): RampRollout {
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

const at = (ms: number, action: string, over: Partial<RampState>): RecordedTransition => ({ at: ms, action, state: state(over) });

/** The ramp in a comparable form: times as ISO strings. */
function summary(r: RampRollout, history: RecordedTransition[], now: number) {
  const ramp = buildRamp(r, history, now);
  return {
    done: ramp.segments.filter((s) => s.kind === 'done').map((s) => [iso(s.from), iso(s.to), s.percent, s.phase]),
    marks: ramp.marks.map((m) => [m.kind, iso(m.at), m.percent, m.label, m.waitsFor]),
    start: iso(ramp.start),
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
        ['done', iso(T0), 5, 'started', null],
        ['done', iso(T0 + MIN), 25, 'advanced', null],
        ['planned', iso(T0 + MIN + 90 * MIN), 100, 'completes', 'schedule'],
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
        ['done', iso(T0), 10, 'started', null],
        ['done', iso(T0 + HOUR), 10, 'approval gate', null],
        ['done', iso(T0 + 3 * HOUR), 50, 'approved', null],
        ['planned', iso(T0 + 4 * HOUR), 100, 'completes', 'schedule'],
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
        ['done', iso(T0), 10, 'started', null],
        ['done', iso(T0 + HOUR), 10, 'approval gate', null],
        ['planned', iso(T0 + 2 * HOUR), 50, 'step 2', 'approval'],
        ['planned', iso(T0 + 3 * HOUR), 100, 'completes', 'approval'],
      ],
    },
    {
      name: 'a gate ahead: the scheduler stops there and the rest waits for approval',
      rollout: rollout(GATED, { percent: 10, nextStepAt: iso(T0 + HOUR) }),
      history: [at(T0, 'rollout.created', { percent: 10 })],
      now: T0 + 10 * MIN,
      done: [[iso(T0), iso(T0 + 10 * MIN), 10, 'active']],
      marks: [
        ['done', iso(T0), 10, 'started', null],
        ['planned', iso(T0 + HOUR), 10, 'approval gate', 'schedule'],
        ['planned', iso(T0 + HOUR), 50, 'step 2', 'approval'],
        ['planned', iso(T0 + 2 * HOUR), 100, 'completes', 'approval'],
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
        ['done', iso(T0), 25, 'started', null],
        ['done', iso(T0 + 30 * MIN), 25, 'paused', null],
        ['done', iso(T0 + 2 * HOUR), 25, 'resumed', null],
        ['planned', iso(T0 + 3 * HOUR), 50, 'step 2', 'schedule'],
        ['planned', iso(T0 + 4 * HOUR), 100, 'completes', 'schedule'],
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
        ['done', iso(T0), 25, 'started', null],
        ['done', iso(T0 + 30 * MIN), 25, 'paused', null],
        ['planned', iso(T0 + 2 * HOUR), 50, 'step 2', 'resume'],
        ['planned', iso(T0 + 3 * HOUR), 100, 'completes', 'resume'],
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
        ['done', iso(T0), 25, 'started', null],
        ['done', iso(T0 + HOUR), 50, 'advanced', null],
        ['done', iso(T0 + 1.5 * HOUR), 0, 'rolled back', null],
        ['planned', iso(T0 + 2 * HOUR), 50, 'resumes', 'resume'],
        ['planned', iso(T0 + 3 * HOUR), 100, 'completes', 'resume'],
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
        ['done', iso(T0), 25, 'started', null],
        ['done', iso(T0 + HOUR), 50, 'advanced', null],
        ['done', iso(T0 + 1.5 * HOUR), 0, 'rolled back', null],
        ['done', iso(T0 + 3 * HOUR), 50, 'resumed', null],
        ['planned', iso(T0 + 4 * HOUR), 100, 'completes', 'schedule'],
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
        ['done', iso(T0), 10, 'started', null],
        ['done', iso(T0 + 20 * MIN), 50, 'advanced', null],
        ['planned', iso(T0 + 80 * MIN), 100, 'completes', 'advance'],
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
        ['done', iso(T0), 25, 'started', null],
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
        ['done', iso(T0), 25, 'started', null],
        ['planned', iso(T0 + HOUR), 50, 'step 2', 'schedule'],
        ['planned', iso(T0 + 2 * HOUR), 100, 'completes', 'schedule'],
      ],
    },
    {
      name: 'no recorded history: the past is the current state since its last change, nothing invented',
      rollout: rollout(RAMP, { status: 'paused', pausedReason: 'auto_rollback', percent: 0, pausedAtPercent: 0, rolledBackFromPercent: 50, rampStepIdx: 1, updatedAt: iso(T0 + 1.5 * HOUR) }),
      history: [],
      now: T0 + 2 * HOUR,
      done: [[iso(T0 + 1.5 * HOUR), iso(T0 + 2 * HOUR), 0, 'rolled_back']],
      marks: [
        ['done', iso(T0 + 1.5 * HOUR), 0, 'rolled back', null],
        ['planned', iso(T0 + 2 * HOUR), 50, 'resumes', 'resume'],
        ['planned', iso(T0 + 3 * HOUR), 100, 'completes', 'resume'],
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
    const ramp = buildRamp(r, [at(T0, 'rollout.created', { percent: 5 }), at(T0 + MIN, 'rollout.advanced', { percent: 25, rampStepIdx: 1 })], T0 + 10 * MIN);
    const planned = ramp.segments.filter((s) => s.kind === 'planned');
    expect(planned.map((s) => [iso(s.from), s.percent])).toEqual([
      [iso(T0 + 10 * MIN), 25],
      [iso(T0 + 91 * MIN), 100],
    ]);
    expect(Math.max(...ramp.segments.filter((s) => s.kind === 'done').map((s) => s.to))).toBe(T0 + 10 * MIN);
    expect(ramp.end).toBeGreaterThan(T0 + 91 * MIN);
  });
});

describe('blackout days in the plan’s time zone', () => {
  it.each([
    {
      // Sunday 2026-11-01 is the day New York falls back: Monday starts at 05:00Z (EST), not 04:00Z.
      name: 'a step due on the Sunday the clocks go back waits for Monday 00:00 EST',
      tz: 'America/New_York',
      created: '2026-10-31T12:00:00Z',
      nextStepAt: '2026-11-01T12:00:00Z',
      expected: ['2026-11-02T05:00:00.000Z', '2026-11-02T06:00:00.000Z'],
    },
    {
      // Sunday 2027-03-28 is the day Berlin springs forward: Monday starts at 22:00Z (CEST), not 23:00Z.
      name: 'a step due on the Sunday the clocks go forward waits for Monday 00:00 CEST',
      tz: 'Europe/Berlin',
      created: '2027-03-27T12:00:00Z',
      nextStepAt: '2027-03-27T23:30:00Z',
      expected: ['2027-03-28T22:00:00.000Z', '2027-03-28T23:00:00.000Z'],
    },
  ])('$name', ({ tz, created, nextStepAt, expected }) => {
    const steps: RampStep[] = [
      { percent: 10, holdForSeconds: 86400 },
      { percent: 50, holdForSeconds: 3600 },
      { percent: 100, holdForSeconds: 0 },
    ];
    const r = rollout(steps, { percent: 10, createdAt: created, updatedAt: created, nextStepAt, planBlackoutDaysOfWeek: [0], planBlackoutTimezone: tz });
    const ramp = buildRamp(r, [{ at: Date.parse(created), action: 'rollout.created', state: state({ percent: 10 }) }], Date.parse(created) + HOUR);
    expect(ramp.marks.filter((m) => m.kind === 'planned').map((m) => iso(m.at))).toEqual(expected);
  });

  it('agrees with the server’s calendar at the edges of a local day', () => {
    // The same instants as server/src/domain/rollouts/schedule.test.ts.
    expect(isBlackout(Date.parse('2026-11-01T03:59:59Z'), [0], 'America/New_York')).toBe(false);
    expect(isBlackout(Date.parse('2026-11-01T04:00:00Z'), [0], 'America/New_York')).toBe(true);
    expect(isBlackout(Date.parse('2026-11-02T04:59:59Z'), [0], 'America/New_York')).toBe(true);
    expect(isBlackout(Date.parse('2026-11-02T05:00:00Z'), [0], 'America/New_York')).toBe(false);
    expect(isBlackout(Date.parse('2026-07-03T13:30:00Z'), [6], 'Australia/Lord_Howe')).toBe(true);
    expect(nextNonBlackoutStart(Date.parse('2026-07-04T02:00:00Z'), [6], 'Australia/Lord_Howe')).toBe(Date.parse('2026-07-04T13:30:00Z'));
    expect(nextNonBlackoutStart(0, [0, 1, 2, 3, 4, 5, 6], 'UTC')).toBeNull();
  });
});

describe('transitionFromAuditEvent', () => {
  const ROLLOUT = '00000000-0000-4000-8000-0000000000a1';
  const event = (over: Partial<AuditEventDetail>): AuditEventDetail => ({
    id: '00000000-0000-4000-8000-0000000000e1',
    createdAt: iso(T0),
    actorType: 'system',
    actorId: null,
    delegatorUserId: null,
    approverUserId: null,
    resourceType: 'rollout',
    resourceKey: 'new-checkout',
    resourceId: ROLLOUT,
    envId: null,
    action: 'rollout.auto_rollback',
    version: 3,
    reason: null,
    previousValue: null,
    newValue: { status: 'paused', percent: 0, pausedAtPercent: 0, pausedReason: 'auto_rollback', rolledBackFromPercent: 50, rampStepIdx: 1, seed: 's' },
    diff: [],
    ...over,
  });

  it('reads the time, the action and the state the row left', () => {
    expect(transitionFromAuditEvent(event({}), ROLLOUT)).toEqual({
      at: T0,
      action: 'rollout.auto_rollback',
      state: { status: 'paused', percent: 0, pausedAtPercent: 0, pausedReason: 'auto_rollback', rolledBackFromPercent: 50, rampStepIdx: 1 },
    });
  });

  it.each([
    ['another rollout', { resourceId: '00000000-0000-4000-8000-0000000000a2' }],
    ['a flag row', { resourceType: 'flag' }],
    ['an allow-list edit', { action: 'rollout.target_ids_added' }],
    ['a value without a status', { newValue: { percent: 5 } }],
    ['an unknown pause reason', { newValue: { status: 'paused', percent: 5, pausedReason: 'lunch' } }],
    ['a percent that is not a number', { newValue: { status: 'active', percent: '5' } }],
  ] as [string, Partial<AuditEventDetail>][])('skips %s', (_, over) => {
    expect(transitionFromAuditEvent(event(over), ROLLOUT)).toBeNull();
  });
});
