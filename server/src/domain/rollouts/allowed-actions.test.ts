import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors.js';
import type { RolloutAction } from '@gradual/contract';
import { allowedActions } from './allowed-actions.js';
import { applyCommand } from './state-machine.js';
import type { PlanSnapshot, RolloutCommand, RolloutState } from './types.js';

const NOW = new Date('2026-10-28T15:00:00Z');

const PLAN: PlanSnapshot = {
  key: 'standard',
  rampSteps: [
    { percent: 5, holdForSeconds: 3600 },
    { percent: 25, holdForSeconds: 7200 },
    { percent: 50, holdForSeconds: 86400, requiresApproval: true },
    { percent: 100, holdForSeconds: 0 },
  ],
  cadence: 'auto',
  blackoutDaysOfWeek: [],
  blackoutTimezone: 'UTC',
};

const active: RolloutState = {
  status: 'active',
  percent: 25,
  pausedAtPercent: null,
  pausedReason: null,
  rolledBackFromPercent: null,
  seed: 'flag:prod',
  bucketField: 'userId',
  newValue: true,
  plan: PLAN,
  rampStepIdx: 1,
  nextStepAt: NOW,
  stepStartedAt: null,
  guardCheckAt: null,
  awaitingConvergenceUntil: null,
};
const noPlan: RolloutState = { ...active, plan: null, rampStepIdx: null, nextStepAt: null };
const paused = (s: RolloutState, reason: 'user' | 'approval_gate'): RolloutState => ({
  ...s,
  status: 'paused',
  pausedReason: reason,
  pausedAtPercent: s.percent,
  nextStepAt: null,
});
const rolledBack = (s: RolloutState): RolloutState => applyCommand(s, { type: 'rollback' }, NOW).rollout;

const table: [string, RolloutState, RolloutAction[]][] = [
  ['active with a next step', active, ['pause', 'advance', 'rollback', 'cancel']],
  ['active at the final step', { ...active, percent: 50, rampStepIdx: 2 }, ['pause', 'advance', 'rollback', 'cancel']],
  ['active without a plan', noPlan, ['pause', 'rollback', 'cancel']],
  ['active at 0% without a plan', { ...noPlan, percent: 0 }, ['pause', 'rollback', 'cancel']],
  ['paused by the user, with a next step', paused(active, 'user'), ['resume', 'advance', 'rollback', 'cancel']],
  ['paused by the user, without a plan', paused(noPlan, 'user'), ['resume', 'rollback', 'cancel']],
  ['held at an approval gate', paused(active, 'approval_gate'), ['approve', 'rollback', 'cancel']],
  // A PUT detached the plan while gated: resume is a plain resume (no step to enter).
  ['gated, plan detached', paused(noPlan, 'approval_gate'), ['resume', 'rollback', 'cancel']],
  ['rolled back, with a plan', rolledBack(active), ['resume', 'cancel']],
  ['rolled back, without a plan', rolledBack(noPlan), ['resume', 'cancel']],
  ['auto-rolled-back by a webhook fire', applyCommand(active, { type: 'fire' }, NOW).rollout, ['resume', 'cancel']],
  ['completed', { ...noPlan, status: 'completed', percent: 100 }, []],
  ['cancelled', { ...active, status: 'cancelled', nextStepAt: null }, []],
];

describe('allowedActions', () => {
  it.each(table)('%s', (_name, state, expected) => {
    expect(allowedActions(state, NOW)).toEqual(expected);
  });

  it('offers only actions the state machine accepts with a change', () => {
    const commandOf = { pause: 'pause', resume: 'resume', approve: 'resume', advance: 'advance', rollback: 'rollback', cancel: 'cancel' } as const;
    for (const [, state] of table) {
      for (const action of allowedActions(state, NOW)) {
        expect(applyCommand(state, { type: commandOf[action] }, NOW).changed).toBe(true);
      }
    }
  });

  it('rollback pauses at 0% remembering the admitted percent, and resume returns to it', () => {
    const back = rolledBack(active);
    expect(back).toMatchObject({ status: 'paused', pausedReason: 'auto_rollback', percent: 0, rolledBackFromPercent: 25 });
    expect(applyCommand(back, { type: 'resume' }, NOW).rollout).toMatchObject({ status: 'active', percent: 25 });
    expect(applyCommand(active, { type: 'rollback' }, NOW).actions).toEqual(['rollout.rolled_back']);
  });

  it('refuses a rollback with nothing to roll back', () => {
    for (const state of [rolledBack(active), { ...active, status: 'cancelled' as const }]) {
      expect(() => applyCommand(state, { type: 'rollback' }, NOW)).toThrow(expect.objectContaining({ code: 'rollout_nothing_to_roll_back' }));
    }
  });

  it('over random histories: an offered action is accepted with a change; an accepted command is hidden only as advance while held', () => {
    const commandArb: fc.Arbitrary<RolloutCommand> = fc.oneof(
      fc.constantFrom<RolloutCommand>({ type: 'pause' }, { type: 'resume' }, { type: 'advance' }, { type: 'tick' }, { type: 'fire' }, { type: 'rollback' }, { type: 'cancel' }),
      fc.integer({ min: 0, max: 100 }).map((percent): RolloutCommand => ({ type: 'put', percent, hasNewValue: false })),
      fc.constant<RolloutCommand>({ type: 'put', percent: 5, planKey: null, hasNewValue: false }),
    );
    const offeredFor = { pause: 'pause', resume: 'resume', advance: 'advance', rollback: 'rollback', cancel: 'cancel' } as const;
    fc.assert(
      fc.property(fc.array(fc.tuple(commandArb, fc.integer({ min: 0, max: 90_000 })), { maxLength: 30 }), (history) => {
        let state: RolloutState = { ...active, percent: 5, rampStepIdx: 0 };
        let now = NOW;
        for (const [command, gap] of history) {
          now = new Date(now.getTime() + gap * 1000);
          if (command.type === 'put' && (state.status === 'completed' || state.status === 'cancelled')) continue;
          try {
            state = applyCommand(state, command, now).rollout;
          } catch (err) {
            if (!(err instanceof DomainError)) throw err;
          }
          const offered = allowedActions(state, now);
          const held = state.status === 'paused' && (state.pausedReason === 'approval_gate' || state.pausedReason === 'auto_rollback');
          for (const type of ['pause', 'resume', 'advance', 'rollback', 'cancel'] as const) {
            let accepted: boolean;
            try {
              accepted = applyCommand(state, { type }, now).changed;
            } catch (err) {
              if (!(err instanceof DomainError)) throw err;
              accepted = false;
            }
            const shown = type === 'resume' ? offered.includes('resume') || offered.includes('approve') : offered.includes(offeredFor[type]);
            expect(shown).toBe(accepted && !(type === 'advance' && held));
          }
          if (offered.includes('approve')) expect(state.pausedReason).toBe('approval_gate');
        }
      }),
      { numRuns: 300 },
    );
  });
});
