import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors.js';
import { isLiveStatus as isLive } from '@gradual/contract';
import { allowedActions } from './allowed-actions.js';
import { approvalGateReason, effectivePercent, nextStepIndex } from './ramp-position.js';
import { applyCommand, createRollout } from './state-machine.js';
import type { PlanSnapshot, PutRollout, RolloutAuditAction, RolloutCommand, RolloutState } from './types.js';

// ---------------------------------------------------------------------------
// Fixtures

/** Wednesday 2026-10-28 11:00 EDT. */
const NOW = new Date('2026-10-28T15:00:00Z');
const BEFORE_DUE = new Date('2026-10-28T13:00:00Z');
const DUE = new Date('2026-10-28T14:00:00Z');
/** Saturday 2026-10-31 11:00 EDT: a blackout day of PLAN. */
const SATURDAY = new Date('2026-10-31T15:00:00Z');
/** Monday 2026-11-02 00:00 EST (after the 2026-11-01 fall-back). */
const MONDAY_MIDNIGHT = new Date('2026-11-02T05:00:00Z');
const later = (s: number) => new Date(NOW.getTime() + s * 1000);

const PLAN: PlanSnapshot = {
  key: 'standard',
  rampSteps: [
    { percent: 5, holdForSeconds: 3600 },
    { percent: 25, holdForSeconds: 7200 },
    { percent: 50, holdForSeconds: 86400, requiresApproval: true },
    { percent: 100, holdForSeconds: 0 },
  ],
  cadence: 'auto',
  blackoutDaysOfWeek: [0, 6],
  blackoutTimezone: 'America/New_York',
};

const base: RolloutState = {
  status: 'active',
  percent: 5,
  pausedAtPercent: null,
  pausedReason: null,
  rolledBackFromPercent: null,
  seed: 'flag:prod',
  bucketField: 'userId',
  newValue: true,
  plan: PLAN,
  rampStepIdx: 0,
  nextStepAt: DUE,
  stepStartedAt: new Date(DUE.getTime() - 3600_000),
  guardCheckAt: null,
  awaitingConvergenceUntil: null,
};

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object' && !(o instanceof Date)) {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreeze(v);
  }
  return o;
}

const cells = {
  active: base,
  'paused/user': { ...base, status: 'paused', pausedReason: 'user', pausedAtPercent: 5, nextStepAt: null },
  'paused/approval_gate': {
    ...base,
    status: 'paused',
    pausedReason: 'approval_gate',
    percent: 25,
    pausedAtPercent: 25,
    rampStepIdx: 1,
    nextStepAt: null,
  },
  'paused/auto_rollback': {
    ...base,
    status: 'paused',
    pausedReason: 'auto_rollback',
    percent: 0,
    pausedAtPercent: 0,
    rolledBackFromPercent: 25,
    rampStepIdx: 1,
    nextStepAt: null,
  },
  completed: { ...base, status: 'completed', percent: 100, rampStepIdx: 3, nextStepAt: null },
  cancelled: { ...base, status: 'cancelled', nextStepAt: null },
} satisfies Record<string, RolloutState>;
type Cell = keyof typeof cells;
deepFreeze(cells);

const put = (percent: number, extra: Partial<PutRollout> = {}): PutRollout => ({ type: 'put', percent, hasNewValue: false, ...extra });
/** The PUT percent that changes nothing in each cell (its effective percent). */
const samePercent: Record<Cell, number> = {
  active: 5,
  'paused/user': 5,
  'paused/approval_gate': 25,
  'paused/auto_rollback': 25,
  completed: 100,
  cancelled: 5,
};

const commands = {
  put_same: (c: Cell) => ({ command: put(samePercent[c]), now: NOW }),
  put_same_with_same_plan_and_seed: (c: Cell) => ({
    command: put(samePercent[c], { planKey: 'standard', plan: { ...PLAN, rampSteps: [{ percent: 100, holdForSeconds: 0 }] }, seed: 'flag:prod' }),
    now: NOW,
  }),
  put_percent_40: () => ({ command: put(40), now: NOW }),
  put_percent_100: () => ({ command: put(100), now: NOW }),
  put_percent_above_plan: () => ({ command: put(100, { planKey: 'half', plan: { ...PLAN, key: 'half', rampSteps: [{ percent: 50, holdForSeconds: 0 }] } }), now: NOW }),
  put_seed: (c: Cell) => ({ command: put(samePercent[c], { seed: 'other' }), now: NOW }),
  put_detach: (c: Cell) => ({ command: put(samePercent[c], { planKey: null }), now: NOW }),
  put_new_value: (c: Cell) => ({ command: put(samePercent[c], { newValue: { v: 2 }, hasNewValue: true }), now: NOW }),
  pause: () => ({ command: { type: 'pause' } as const, now: NOW }),
  resume: () => ({ command: { type: 'resume' } as const, now: NOW }),
  cancel: () => ({ command: { type: 'cancel' } as const, now: NOW }),
  advance: () => ({ command: { type: 'advance' } as const, now: NOW }),
  tick_before_due: () => ({ command: { type: 'tick' } as const, now: BEFORE_DUE }),
  tick_due: () => ({ command: { type: 'tick' } as const, now: NOW }),
  tick_on_blackout: () => ({ command: { type: 'tick' } as const, now: SATURDAY }),
  fire: () => ({ command: { type: 'fire' } as const, now: NOW }),
} satisfies Record<string, (c: Cell) => { command: RolloutCommand; now: Date }>;
type CommandName = keyof typeof commands;

type Expect =
  | { kind: 'noop' }
  | { kind: 'error'; code: string; field?: string }
  | { kind: 'throws' }
  | { kind: 'to'; patch: Partial<RolloutState>; actions: RolloutAuditAction[] };
const noop: Expect = { kind: 'noop' };
const error = (code: string, field?: string): Expect => ({ kind: 'error', code, ...(field ? { field } : {}) });
const to = (patch: Partial<RolloutState>, actions: RolloutAuditAction[]): Expect => ({ kind: 'to', patch, actions });
const throws: Expect = { kind: 'throws' };

const cancelled = (extra: Partial<RolloutState> = {}) =>
  to({ status: 'cancelled', pausedAtPercent: null, pausedReason: null, rolledBackFromPercent: null, nextStepAt: null, ...extra }, [
    'rollout.cancelled',
  ]);
const detached = to({ plan: null, rampStepIdx: null, nextStepAt: null, stepStartedAt: null }, ['rollout.updated']);
const newValue = to({ newValue: { v: 2 } }, ['rollout.updated']);
const fired = (from: number) =>
  to({ status: 'paused', pausedReason: 'auto_rollback', percent: 0, pausedAtPercent: 0, rolledBackFromPercent: from, nextStepAt: null }, [
    'rollout.auto_rollback',
  ]);
const terminal: Record<CommandName, Expect> = {
  put_same: throws,
  put_same_with_same_plan_and_seed: throws,
  put_percent_40: throws,
  put_percent_100: throws,
  put_percent_above_plan: throws,
  put_seed: throws,
  put_detach: throws,
  put_new_value: throws,
  pause: noop,
  resume: error('rollout_not_paused'),
  cancel: noop,
  advance: error('rollout_already_at_final_step'),
  tick_before_due: noop,
  tick_due: noop,
  tick_on_blackout: noop,
  fire: noop,
};

const table: Record<Cell, Record<CommandName, Expect>> = {
  active: {
    put_same: noop,
    put_same_with_same_plan_and_seed: noop,
    // 40 approaches step 2 (50%): due at the next tick.
    put_percent_40: to({ percent: 40, rampStepIdx: 2, nextStepAt: NOW, stepStartedAt: NOW }, ['rollout.updated']),
    put_percent_100: to({ status: 'completed', percent: 100, rampStepIdx: 3, nextStepAt: null }, ['rollout.updated', 'rollout.completed']),
    put_percent_above_plan: error('invalid_request', 'percent'),
    put_seed: error('rollout_seed_locked', 'seed'),
    put_detach: detached,
    put_new_value: newValue,
    pause: to({ status: 'paused', pausedReason: 'user', pausedAtPercent: 5, nextStepAt: null }, ['rollout.paused']),
    resume: error('rollout_not_paused'),
    cancel: cancelled(),
    advance: to({ percent: 25, rampStepIdx: 1, nextStepAt: later(7200), stepStartedAt: NOW }, ['rollout.advanced']),
    tick_before_due: noop,
    tick_due: to({ percent: 25, rampStepIdx: 1, nextStepAt: later(7200), stepStartedAt: NOW }, ['rollout.advanced']),
    tick_on_blackout: to({ nextStepAt: MONDAY_MIDNIGHT }, []),
    fire: fired(5),
  },
  'paused/user': {
    put_same: noop,
    put_same_with_same_plan_and_seed: noop,
    put_percent_40: to({ percent: 40, pausedAtPercent: 40, rampStepIdx: 2 }, ['rollout.updated']),
    put_percent_100: to({ percent: 100, pausedAtPercent: 100, rampStepIdx: 3 }, ['rollout.updated']),
    put_percent_above_plan: error('invalid_request', 'percent'),
    put_seed: error('rollout_seed_locked', 'seed'),
    put_detach: detached,
    put_new_value: newValue,
    pause: noop,
    resume: to({ status: 'active', pausedAtPercent: null, pausedReason: null, nextStepAt: later(3600), stepStartedAt: NOW }, ['rollout.resumed']),
    cancel: cancelled(),
    advance: to({ percent: 25, pausedAtPercent: 25, rampStepIdx: 1 }, ['rollout.advanced']),
    tick_before_due: noop,
    tick_due: noop,
    tick_on_blackout: noop,
    fire: fired(5),
  },
  'paused/approval_gate': {
    put_same: noop,
    put_same_with_same_plan_and_seed: noop,
    put_percent_40: to({ percent: 40, pausedAtPercent: 40, rampStepIdx: 2 }, ['rollout.updated']),
    put_percent_100: to({ percent: 100, pausedAtPercent: 100, rampStepIdx: 3 }, ['rollout.updated']),
    put_percent_above_plan: error('invalid_request', 'percent'),
    put_seed: error('rollout_seed_locked', 'seed'),
    put_detach: detached,
    put_new_value: newValue,
    pause: noop,
    // Approves the gate and enters the gated step (50%) at once.
    resume: to({ status: 'active', percent: 50, rampStepIdx: 2, pausedAtPercent: null, pausedReason: null, nextStepAt: later(86400), stepStartedAt: NOW }, [
      'rollout.approval_resolved',
    ]),
    cancel: cancelled(),
    // Operator override of the gate.
    advance: to({ status: 'active', percent: 50, rampStepIdx: 2, pausedAtPercent: null, pausedReason: null, nextStepAt: later(86400), stepStartedAt: NOW }, [
      'rollout.advanced',
    ]),
    tick_before_due: noop,
    tick_due: noop,
    tick_on_blackout: noop,
    fire: fired(25),
  },
  'paused/auto_rollback': {
    put_same: noop,
    put_same_with_same_plan_and_seed: noop,
    put_percent_40: to({ rolledBackFromPercent: 40, rampStepIdx: 2 }, ['rollout.updated']),
    put_percent_100: to({ rolledBackFromPercent: 100, rampStepIdx: 3 }, ['rollout.updated']),
    put_percent_above_plan: error('invalid_request', 'percent'),
    put_seed: error('rollout_seed_locked', 'seed'),
    put_detach: detached,
    put_new_value: newValue,
    pause: noop,
    resume: to(
      { status: 'active', percent: 25, pausedAtPercent: null, pausedReason: null, rolledBackFromPercent: null, nextStepAt: later(7200), stepStartedAt: NOW },
      ['rollout.resumed'],
    ),
    cancel: cancelled({ percent: 0 }),
    advance: to({ rolledBackFromPercent: 50, rampStepIdx: 2 }, ['rollout.advanced']),
    tick_before_due: noop,
    tick_due: noop,
    tick_on_blackout: noop,
    fire: noop,
  },
  completed: terminal,
  cancelled: terminal,
};

// ---------------------------------------------------------------------------
// The table: every (status × pausedReason) cell × every command.

describe('applyCommand: every cell × every command', () => {
  it('the table covers every cell and every command', () => {
    expect(Object.keys(table).sort()).toEqual(Object.keys(cells).sort());
    for (const row of Object.values(table)) expect(Object.keys(row).sort()).toEqual(Object.keys(commands).sort());
  });

  for (const cell of Object.keys(cells) as Cell[]) {
    describe(cell, () => {
      for (const name of Object.keys(commands) as CommandName[]) {
        const expected = table[cell][name];
        it(`${name} → ${expected.kind === 'to' ? `${expected.patch.status ?? cells[cell].status} [${expected.actions.join(', ')}]` : expected.kind === 'error' ? expected.code : expected.kind}`, () => {
          const current = cells[cell];
          const { command, now } = commands[name](cell);
          switch (expected.kind) {
            case 'noop': {
              const t = applyCommand(current, command, now);
              expect(t.changed).toBe(false);
              expect(t.actions).toEqual([]);
              expect(t.rollout).toBe(current);
              break;
            }
            case 'error': {
              let caught: unknown;
              try {
                applyCommand(current, command, now);
              } catch (e) {
                caught = e;
              }
              expect(caught).toBeInstanceOf(DomainError);
              const e = caught as DomainError;
              expect(e.code).toBe(expected.code);
              if (expected.field) expect(e.fields?.[expected.field]).toEqual(expect.any(String));
              break;
            }
            case 'throws':
              expect(() => applyCommand(current, command, now)).toThrow(Error);
              expect(() => applyCommand(current, command, now)).not.toThrow(DomainError);
              break;
            case 'to': {
              const t = applyCommand(current, command, now);
              expect(t.changed).toBe(true);
              expect(t.actions).toEqual(expected.actions);
              expect(t.rollout).toEqual({ ...current, ...expected.patch });
              expect(t.rollout).not.toBe(current);
              break;
            }
          }
        });
      }
    });
  }
});

// ---------------------------------------------------------------------------
// Details beyond the table

const MANUAL: PlanSnapshot = { ...PLAN, key: 'manual', cadence: 'manual', rampSteps: PLAN.rampSteps.map(({ percent, holdForSeconds }) => ({ percent, holdForSeconds })) };
const createInput = { defaultSeed: 'flag:prod', defaultBucketField: 'userId', hasNewValue: false } as const;

describe('createRollout', () => {
  it('defaults seed and bucketField, gates rules without newValue, is active', () => {
    const t = createRollout({ ...createInput, percent: 10 }, NOW);
    expect(t).toEqual({
      rollout: {
        status: 'active',
        percent: 10,
        pausedAtPercent: null,
        pausedReason: null,
        rolledBackFromPercent: null,
        seed: 'flag:prod',
        bucketField: 'userId',
        newValue: undefined,
        plan: null,
        rampStepIdx: null,
        nextStepAt: null,
        stepStartedAt: null,
        guardCheckAt: null,
        awaitingConvergenceUntil: null,
      },
      actions: ['rollout.created'],
      changed: true,
    });
  });

  it('takes seed, bucketField and newValue (even JSON null) from the PUT', () => {
    const t = createRollout({ ...createInput, percent: 0, seed: 's', bucketField: 'accountId', newValue: null, hasNewValue: true }, NOW);
    expect(t.rollout).toMatchObject({ seed: 's', bucketField: 'accountId', newValue: null });
  });

  it('attaches a plan: approaching the first step is due now; at a step the hold runs', () => {
    expect(createRollout({ ...createInput, percent: 0, planKey: 'standard', plan: PLAN }, NOW).rollout).toMatchObject({
      plan: PLAN,
      rampStepIdx: 0,
      nextStepAt: NOW,
    });
    expect(createRollout({ ...createInput, percent: 25, planKey: 'standard', plan: PLAN }, NOW).rollout).toMatchObject({
      rampStepIdx: 1,
      nextStepAt: later(7200),
    });
    expect(createRollout({ ...createInput, percent: 6, planKey: 'standard', plan: PLAN }, NOW).rollout).toMatchObject({
      rampStepIdx: 1,
      nextStepAt: NOW,
    });
    expect(createRollout({ ...createInput, percent: 25, planKey: 'manual', plan: MANUAL }, NOW).rollout).toMatchObject({
      rampStepIdx: 1,
      nextStepAt: null,
    });
  });

  it('snapshots a copy of the plan', () => {
    const plan = structuredClone(PLAN);
    const t = createRollout({ ...createInput, percent: 0, planKey: 'standard', plan }, NOW);
    plan.rampSteps[0]!.percent = 1;
    expect(t.rollout.plan).toEqual(PLAN);
  });

  it('completes at once at 100', () => {
    const t = createRollout({ ...createInput, percent: 100, planKey: 'standard', plan: PLAN }, NOW);
    expect(t.actions).toEqual(['rollout.created', 'rollout.completed']);
    expect(t.rollout).toMatchObject({ status: 'completed', percent: 100, rampStepIdx: 3, nextStepAt: null });
  });

  it('refuses a percent above the final step and a planKey without its plan', () => {
    const half = { ...PLAN, key: 'half', rampSteps: [{ percent: 10, holdForSeconds: 60 }, { percent: 50, holdForSeconds: 0 }] };
    expect(() => createRollout({ ...createInput, percent: 60, planKey: 'half', plan: half }, NOW)).toThrow(
      expect.objectContaining({ code: 'invalid_request', fields: { percent: expect.any(String) } }),
    );
    expect(() => createRollout({ ...createInput, percent: 10, planKey: 'standard' }, NOW)).toThrow(Error);
    expect(() => createRollout({ ...createInput, percent: 101 }, NOW)).toThrow(expect.objectContaining({ code: 'invalid_request' }));
  });
});

describe('PUT details', () => {
  const active = cells.active;

  it('allows changing the seed while nobody was admitted', () => {
    const atZero = { ...active, percent: 0, nextStepAt: NOW };
    expect(applyCommand(atZero, put(0, { seed: 'new' }), NOW).rollout.seed).toBe('new');
    const rolledBackFromZero = { ...cells['paused/auto_rollback'], rolledBackFromPercent: 0, rampStepIdx: 0 };
    expect(applyCommand(rolledBackFromZero, put(0, { seed: 'new' }), NOW).rollout.seed).toBe('new');
    // Raising the percent in the same PUT is fine: the lock looks at the current percent.
    expect(applyCommand(atZero, put(5, { seed: 'new' }), NOW).rollout).toMatchObject({ seed: 'new', percent: 5 });
  });

  it('a different plan key re-snapshots; the attached key does not', () => {
    const other: PlanSnapshot = { ...PLAN, key: 'other', rampSteps: [{ percent: 10, holdForSeconds: 600 }, { percent: 100, holdForSeconds: 0 }] };
    const t = applyCommand(active, put(5, { planKey: 'other', plan: other }), NOW);
    expect(t.actions).toEqual(['rollout.updated']);
    expect(t.rollout).toMatchObject({ plan: other, rampStepIdx: 0, nextStepAt: NOW });
    // Attaching to a plan-less rollout.
    const planless = { ...active, plan: null, rampStepIdx: null, nextStepAt: null };
    expect(applyCommand(planless, put(5, { planKey: 'standard', plan: PLAN }), NOW).rollout).toMatchObject({
      rampStepIdx: 0,
      nextStepAt: later(3600),
    });
  });

  it('keeps the schedule when only non-ramp fields change', () => {
    const t = applyCommand(active, put(5, { bucketField: 'accountId' }), later(60));
    expect(t.rollout).toEqual({ ...active, bucketField: 'accountId' });
  });

  it('compares newValue deeply, regardless of key order', () => {
    const r = { ...active, newValue: { a: 1, b: [1, { c: null }] } };
    expect(applyCommand(r, put(5, { newValue: { b: [1, { c: null }], a: 1 }, hasNewValue: true }), NOW).changed).toBe(false);
    expect(applyCommand(r, put(5, { newValue: { a: 1, b: [1, { c: 0 }] }, hasNewValue: true }), NOW).changed).toBe(true);
  });

  it('detaching and raising to 100 in one PUT completes', () => {
    const t = applyCommand({ ...active, plan: { ...PLAN, rampSteps: [{ percent: 5, holdForSeconds: 60 }, { percent: 50, holdForSeconds: 0 }] } }, put(100, { planKey: null }), NOW);
    expect(t.actions).toEqual(['rollout.updated', 'rollout.completed']);
    expect(t.rollout).toMatchObject({ status: 'completed', plan: null, rampStepIdx: null });
  });

  it('lowering the percent on a plan re-positions the ramp', () => {
    const at50 = { ...active, percent: 50, rampStepIdx: 2, nextStepAt: later(100) };
    expect(applyCommand(at50, put(25), NOW).rollout).toMatchObject({ percent: 25, rampStepIdx: 1, nextStepAt: later(7200) });
    expect(applyCommand(at50, put(0), NOW).rollout).toMatchObject({ percent: 0, rampStepIdx: 0, nextStepAt: NOW });
  });
});

describe('tick details', () => {
  it('enters the approached step', () => {
    const approaching = { ...cells.active, percent: 0, nextStepAt: NOW };
    const t = applyCommand(approaching, { type: 'tick' }, NOW);
    expect(t.actions).toEqual(['rollout.advanced']);
    expect(t.rollout).toMatchObject({ percent: 5, rampStepIdx: 0, nextStepAt: later(3600) });
  });

  it('stops before a gated step: paused(approval_gate) at the current percent', () => {
    const at25 = { ...cells.active, percent: 25, rampStepIdx: 1, nextStepAt: NOW };
    const t = applyCommand(at25, { type: 'tick' }, NOW);
    expect(t.actions).toEqual(['rollout.approval_gate_reached']);
    expect(t.rollout).toEqual({ ...at25, status: 'paused', pausedReason: 'approval_gate', pausedAtPercent: 25, nextStepAt: null });
    expect(approvalGateReason(t.rollout)).toBe(`Approval gate at step 3 of ${at25.plan!.rampSteps.length} (${at25.plan!.rampSteps[2]!.percent}%)`);
  });

  it('completes on entering 100', () => {
    const at50 = { ...cells.active, percent: 50, rampStepIdx: 2, nextStepAt: NOW };
    const t = applyCommand(at50, { type: 'tick' }, NOW);
    expect(t.actions).toEqual(['rollout.advanced', 'rollout.completed']);
    expect(t.rollout).toMatchObject({ status: 'completed', percent: 100, rampStepIdx: 3, nextStepAt: null });
  });

  it('entering a final step below 100 stays active with no schedule; a stale schedule at the end is cleared', () => {
    const plan = { ...PLAN, rampSteps: [{ percent: 10, holdForSeconds: 60 }, { percent: 50, holdForSeconds: 0 }] };
    const t = applyCommand({ ...cells.active, plan, percent: 10, rampStepIdx: 0, nextStepAt: NOW }, { type: 'tick' }, NOW);
    expect(t.rollout).toMatchObject({ status: 'active', percent: 50, rampStepIdx: 1, nextStepAt: null });
    const stale = { ...cells.active, plan, percent: 50, rampStepIdx: 1, nextStepAt: NOW };
    expect(applyCommand(stale, { type: 'tick' }, NOW)).toEqual({ rollout: { ...stale, nextStepAt: null }, actions: [], changed: true });
  });

  it('ignores manual plans, plan-less rollouts and rollouts without a schedule', () => {
    for (const r of [
      { ...cells.active, plan: MANUAL },
      { ...cells.active, plan: null, rampStepIdx: null },
      { ...cells.active, nextStepAt: null },
    ]) {
      expect(applyCommand(r, { type: 'tick' }, NOW).rollout).toBe(r);
    }
  });
});

describe('resume, advance and fire details', () => {
  it('resume(user) at 100 completes', () => {
    const t = applyCommand({ ...cells['paused/user'], percent: 100, pausedAtPercent: 100, rampStepIdx: 3 }, { type: 'resume' }, NOW);
    expect(t.actions).toEqual(['rollout.resumed', 'rollout.completed']);
    expect(t.rollout.status).toBe('completed');
  });

  it('resume(user) while approaching a step makes it due now', () => {
    const t = applyCommand({ ...cells['paused/user'], percent: 3, pausedAtPercent: 3 }, { type: 'resume' }, NOW);
    expect(t.rollout).toMatchObject({ status: 'active', percent: 3, nextStepAt: NOW });
  });

  it('resume(approval_gate) into the final 100% step completes', () => {
    const gatedFinal: PlanSnapshot = { ...PLAN, rampSteps: [{ percent: 50, holdForSeconds: 60 }, { percent: 100, holdForSeconds: 0, requiresApproval: true }] };
    const r = { ...cells['paused/approval_gate'], plan: gatedFinal, percent: 50, pausedAtPercent: 50, rampStepIdx: 0 };
    const t = applyCommand(r, { type: 'resume' }, NOW);
    expect(t.actions).toEqual(['rollout.approval_resolved', 'rollout.completed']);
    expect(t.rollout).toMatchObject({ status: 'completed', percent: 100, rampStepIdx: 1 });
  });

  it('resume(approval_gate) with the gated step approached enters that step', () => {
    const r = { ...cells['paused/approval_gate'], percent: 30, pausedAtPercent: 30, rampStepIdx: 2 };
    expect(applyCommand(r, { type: 'resume' }, NOW).rollout).toMatchObject({ status: 'active', percent: 50, rampStepIdx: 2 });
  });

  it('resume(approval_gate) after the plan was detached is a plain resume', () => {
    const r = { ...cells['paused/approval_gate'], plan: null, rampStepIdx: null };
    const t = applyCommand(r, { type: 'resume' }, NOW);
    expect(t.actions).toEqual(['rollout.resumed']);
    expect(t.rollout).toMatchObject({ status: 'active', percent: 25, nextStepAt: null });
  });

  it('advance: plan-less and final-step rollouts have no next step', () => {
    for (const r of [
      { ...cells.active, plan: null, rampStepIdx: null, nextStepAt: null },
      { ...cells.active, plan: { ...PLAN, rampSteps: [{ percent: 5, holdForSeconds: 0 }] }, nextStepAt: null },
    ]) {
      expect(() => applyCommand(r, { type: 'advance' }, NOW)).toThrow(expect.objectContaining({ code: 'rollout_already_at_final_step' }));
    }
  });

  it('advance on a manual plan enters the step without a schedule, and reaches the approached step first', () => {
    const r = { ...cells.active, plan: MANUAL, percent: 10, rampStepIdx: 1, nextStepAt: null };
    const t = applyCommand(r, { type: 'advance' }, NOW);
    expect(t.rollout).toMatchObject({ percent: 25, rampStepIdx: 1, nextStepAt: null });
    expect(applyCommand(t.rollout, { type: 'advance' }, NOW).rollout).toMatchObject({ percent: 50, rampStepIdx: 2 });
  });

  it('advance ignores blackout days and gates', () => {
    const at25 = { ...cells.active, percent: 25, rampStepIdx: 1, nextStepAt: later(99) };
    expect(applyCommand(at25, { type: 'advance' }, SATURDAY).rollout).toMatchObject({
      status: 'active',
      percent: 50,
      rampStepIdx: 2,
      nextStepAt: new Date(SATURDAY.getTime() + 86_400_000),
    });
  });

  it('fire on an active rollout at 0 still pauses it', () => {
    const t = applyCommand({ ...cells.active, percent: 0, nextStepAt: NOW }, { type: 'fire' }, NOW);
    expect(t.rollout).toMatchObject({ status: 'paused', pausedReason: 'auto_rollback', rolledBackFromPercent: 0 });
  });
});

describe('helpers', () => {
  it('isLive', () => {
    expect(['active', 'paused', 'completed', 'cancelled'].map((s) => isLive(s as RolloutState['status']))).toEqual([true, true, false, false]);
  });

  it('nextStepIndex and effectivePercent per cell', () => {
    expect(nextStepIndex(cells.active)).toBe(1);
    expect(nextStepIndex({ ...cells.active, percent: 1 })).toBe(0);
    expect(nextStepIndex(cells['paused/approval_gate'])).toBe(2);
    expect(nextStepIndex(cells['paused/auto_rollback'])).toBe(2);
    expect(nextStepIndex(cells.completed)).toBe(null);
    expect(nextStepIndex({ ...cells.active, plan: null, rampStepIdx: null })).toBe(null);
    expect(effectivePercent(cells['paused/auto_rollback'])).toBe(25);
    expect(effectivePercent(cells['paused/user'])).toBe(5);
  });
});

describe('guarded steps', () => {
  const guard = { metrics: [{ key: 'errors', margin: 0, action: 'rollback' as const }], minUnitsPerArm: 1000, maxHoldFactor: 3 };
  const GUARDED: PlanSnapshot = { ...PLAN, blackoutDaysOfWeek: [], rampSteps: PLAN.rampSteps.map((s, i) => (i === 0 ? { ...s, guard } : s)) };
  /** Active at the guarded first step (5 %), its hold over since DUE. */
  const held: RolloutState = { ...base, plan: GUARDED };

  it('a due tick moves on only with the checks passed: without a verdict nothing changes, `hold` only sets the next check', () => {
    expect(applyCommand(held, { type: 'tick' }, NOW).changed).toBe(false);
    const stays = applyCommand(held, { type: 'tick', guard: 'hold' }, NOW);
    expect(stays).toEqual({ rollout: { ...held, guardCheckAt: later(60) }, actions: [], changed: true });
    const moved = applyCommand(held, { type: 'tick', guard: 'advance' }, NOW);
    expect(moved.actions).toEqual(['rollout.advanced']);
    // The next step has no guard: no checks due there.
    expect(moved.rollout).toMatchObject({ percent: 25, rampStepIdx: 1, nextStepAt: later(7200), stepStartedAt: NOW, guardCheckAt: null });
  });

  it('entering a guarded step schedules its first check a minute later; each check due is a tick, during the hold too', () => {
    const entered = applyCommand({ ...held, percent: 1 }, { type: 'tick' }, NOW).rollout;
    expect(entered).toMatchObject({ percent: 5, nextStepAt: later(3600), guardCheckAt: later(60) });
    expect(applyCommand(entered, { type: 'tick', guard: 'hold' }, NOW).changed).toBe(false); // no check due yet
    const checked = applyCommand(entered, { type: 'tick', guard: 'advance' }, later(60));
    expect(checked.actions).toEqual([]); // the hold is not over: the verdict cannot shorten it
    expect(checked.rollout).toMatchObject({ percent: 5, guardCheckAt: later(120) });
    expect(applyCommand(entered, { type: 'guard_pause' }, NOW).rollout.guardCheckAt).toBe(null);
  });

  it('`advance` from the checks never shortens the hold, and a step without a guard ignores the verdict', () => {
    expect(applyCommand(held, { type: 'tick', guard: 'advance' }, BEFORE_DUE).changed).toBe(false);
    const unguarded = { ...held, percent: 25, rampStepIdx: 1 };
    expect(applyCommand(unguarded, { type: 'tick', guard: 'hold' }, NOW).actions).toEqual(['rollout.approval_gate_reached']);
  });

  it('a step is guarded only while the rollout is active at its percent on an auto plan', () => {
    // Approaching the guarded step (below its percent): the tick enters it, no verdict needed.
    expect(applyCommand({ ...held, percent: 1 }, { type: 'tick' }, NOW).rollout).toMatchObject({ percent: 5, rampStepIdx: 0, stepStartedAt: NOW });
  });

  it('guard_pause stops an active rollout where it is, as paused(guard); anything else is a no-op', () => {
    const t = applyCommand(held, { type: 'guard_pause' }, NOW);
    expect(t.actions).toEqual(['rollout.paused']);
    expect(t.rollout).toMatchObject({ status: 'paused', pausedReason: 'guard', percent: 5, pausedAtPercent: 5, nextStepAt: null });
    expect(applyCommand(t.rollout, { type: 'guard_pause' }, NOW).changed).toBe(false);
    expect(applyCommand(cells['paused/user'], { type: 'guard_pause' }, NOW).changed).toBe(false);
    expect(applyCommand(cells.completed, { type: 'guard_pause' }, NOW).changed).toBe(false);
  });

  it('a resume after a guard pause or a rollback starts the step again: a new analysis from the resume', () => {
    const paused = applyCommand(held, { type: 'guard_pause' }, BEFORE_DUE).rollout;
    const resumed = applyCommand(paused, { type: 'resume' }, NOW);
    expect(resumed.actions).toEqual(['rollout.resumed']);
    expect(resumed.rollout).toMatchObject({ status: 'active', percent: 5, nextStepAt: later(3600), stepStartedAt: NOW });
    const rolledBack = applyCommand(held, { type: 'fire' }, BEFORE_DUE).rollout;
    expect(rolledBack).toMatchObject({ status: 'paused', pausedReason: 'auto_rollback', percent: 0, rolledBackFromPercent: 5 });
    expect(applyCommand(rolledBack, { type: 'resume' }, NOW).rollout).toMatchObject({ status: 'active', percent: 5, stepStartedAt: NOW });
  });

  it('an operator may advance past a guard pause (it stays paused, at the next step) and may resume, roll back or cancel', () => {
    const paused = applyCommand(held, { type: 'guard_pause' }, NOW).rollout;
    expect(applyCommand(paused, { type: 'advance' }, NOW).rollout).toMatchObject({ status: 'paused', pausedReason: 'guard', percent: 25, pausedAtPercent: 25, rampStepIdx: 1 });
    expect(allowedActions(paused, NOW)).toEqual(['resume', 'advance', 'rollback', 'cancel']);
  });
});

describe('steps that hold from convergence', () => {
  const hold = { instancesPercent: 99, timeoutSeconds: 600 };
  const PROVEN: PlanSnapshot = { ...PLAN, blackoutDaysOfWeek: [], rampSteps: PLAN.rampSteps.map((s, i) => (i === 1 ? { ...s, holdFromConvergence: hold } : s)) };
  /** Active at the first step (5 %), its hold over: the next tick enters the 25 % step, which holds from convergence. */
  const due: RolloutState = { ...base, plan: PROVEN };

  it('entering the step waits for the fleet: no next step, a deadline instead; a tick without convergence changes nothing', () => {
    const entered = applyCommand(due, { type: 'tick' }, NOW);
    expect(entered.actions).toEqual(['rollout.advanced']);
    expect(entered.rollout).toMatchObject({ percent: 25, rampStepIdx: 1, nextStepAt: null, awaitingConvergenceUntil: later(600), stepStartedAt: NOW });
    expect(applyCommand(entered.rollout, { type: 'tick' }, later(300)).changed).toBe(false);
  });

  it('the hold starts when the fleet converges: nextStepAt = then + hold, no audit action (nothing an SDK evaluates changed)', () => {
    const entered = applyCommand(due, { type: 'tick' }, NOW).rollout;
    const converged = applyCommand(entered, { type: 'tick', converged: true }, later(45));
    expect(converged).toEqual({ rollout: { ...entered, awaitingConvergenceUntil: null, stepStartedAt: later(45), nextStepAt: later(45 + 7200) }, actions: [], changed: true });
  });

  it('convergence_pause stops only a step that awaits convergence, as paused(convergence); resume waits again from then', () => {
    const entered = applyCommand(due, { type: 'tick' }, NOW).rollout;
    expect(applyCommand(due, { type: 'convergence_pause' }, NOW).changed).toBe(false);
    const paused = applyCommand(entered, { type: 'convergence_pause' }, later(600));
    expect(paused.actions).toEqual(['rollout.paused']);
    expect(paused.rollout).toMatchObject({ status: 'paused', pausedReason: 'convergence', pausedAtPercent: 25, nextStepAt: null, awaitingConvergenceUntil: null });
    const resumed = applyCommand(paused.rollout, { type: 'resume' }, later(900));
    expect(resumed.rollout).toMatchObject({ status: 'active', percent: 25, nextStepAt: null, awaitingConvergenceUntil: later(1500) });
  });

  it('a person\'s pause, a rollback or a detach clears the wait', () => {
    const entered = applyCommand(due, { type: 'tick' }, NOW).rollout;
    expect(applyCommand(entered, { type: 'pause' }, NOW).rollout.awaitingConvergenceUntil).toBe(null);
    expect(applyCommand(entered, { type: 'fire' }, NOW).rollout.awaitingConvergenceUntil).toBe(null);
    expect(applyCommand(entered, { type: 'put', percent: 25, planKey: null, hasNewValue: false }, NOW).rollout.awaitingConvergenceUntil).toBe(null);
  });
});
