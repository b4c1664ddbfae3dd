// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { Rollout, Rule } from '@gradual/sdk';
import { bucket } from '@gradual/sdk/evaluation';
import { describeResult, WhoGetsIt } from './WhoGetsIt';

afterEach(cleanup);

const SEED = 'new-checkout:production';
const ids = Array.from({ length: 400 }, (_, i) => `user-${i}`);
const admitted = ids.find((id) => bucket(SEED, id) < 30)!;
const excluded = ids.find((id) => bucket(SEED, id) >= 30)!;

const ROLLOUT: Rollout = {
  id: '00000000-0000-4000-8000-0000000000a1',
  environmentId: '00000000-0000-4000-8000-0000000000e1',
  primitiveKind: 'flag',
  primitiveKey: 'new-checkout',
  status: 'active',
  percent: 30,
  pausedAtPercent: null,
  pausedReason: null,
  rolledBackFromPercent: null,
  seed: SEED,
  bucketField: 'userId',
  newValue: true,
  planKey: null,
  planRampStepsSnapshot: null,
  cadence: 'auto',
  planBlackoutDaysOfWeek: [],
  planBlackoutTimezone: 'UTC',
  rampStepIdx: null,
  nextStepAt: null,
  stepVersion: null,
  awaitingConvergenceUntil: null,
  targetIdsCount: 1,
  lastAutoRollback: null,
  lastGuardStop: null,
  lastRollbackConvergence: null,
  allowedActions: ['pause', 'cancel', 'rollback'],
  createdAt: '2026-11-22T10:00:00.000Z',
  updatedAt: '2026-11-22T10:00:00.000Z',
};

const RULES: Rule[] = [
  { conditions: [{ attribute: 'plan', operator: 'in', values: ['pro'] }], value: true },
  { conditions: [{ attribute: 'country', operator: 'in', values: ['NL'] }], value: true },
];

/** Renders the check for `rollout` and `rules`, asks about `id` (with `attrs`), and returns the answer's text. */
async function ask(id: string, options: { rollout?: Rollout | null; rules?: Rule[]; attrs?: string; listed?: string[] } = {}): Promise<string> {
  const listed = options.listed ?? ['vip-1'];
  render(
    <WhoGetsIt
      kind="flag"
      primitiveKey="new-checkout"
      value={false}
      rules={options.rules ?? RULES}
      rollout={options.rollout === undefined ? ROLLOUT : options.rollout}
      defaultBucketField="userId"
      ops={{ containsTargetId: (targetId: string) => Promise.resolve({ contains: listed.includes(targetId) }) }}
    />,
  );
  fireEvent.change(screen.getByLabelText('Value of userId to check'), { target: { value: id } });
  if (options.attrs) fireEvent.change(screen.getByPlaceholderText('{"country": "NL"}'), { target: { value: options.attrs } });
  fireEvent.click(screen.getByRole('button', { name: 'Check' }));
  const answer = await screen.findByTestId('who-answer');
  return answer.textContent ?? '';
}

describe('WhoGetsIt: which branch served the value', () => {
  it('names the target-ID list, the admitted rollout, a rule by number and the base value', async () => {
    expect(await ask('vip-1')).toContain('gets true (Target ID)');
    cleanup();
    expect(await ask(admitted)).toContain('gets true (Rollout (admitted))');
    cleanup();
    expect(await ask(excluded, { attrs: '{"country": "NL"}' })).toContain('gets true (Rule 2)');
    cleanup();
    expect(await ask(excluded)).toContain('gets false (Base value (not admitted by the rollout))');
    cleanup();
    expect(await ask(excluded, { rollout: null })).toContain('gets false (Base value (no rule matched))');
    cleanup();
    expect(await ask(excluded, { rollout: null, rules: [] })).toContain('gets false (Base value (no rules, no rollout))');
  });

  it('marks the answer yes only when the candidate was served (target ID or admitted)', async () => {
    await ask(admitted);
    expect(screen.getByTestId('who-answer').className).toContain('answer-yes');
    expect(screen.getByTestId('who-reason').getAttribute('title')).toBe('SPLIT · rollout-new');
    cleanup();
    await ask(excluded, { attrs: '{"plan": "pro"}' });
    expect(screen.getByTestId('who-answer').className).toContain('answer-no');
    expect(screen.getByTestId('who-reason').getAttribute('title')).toBe('TARGETING_MATCH · rule-1');
  });

  it('describeResult covers every reason the evaluator gives for the base value', () => {
    expect(describeResult({ reason: 'DEFAULT', variant: 'default' })).toBe('Base value (no rule matched)');
    expect(describeResult({ reason: 'STATIC', variant: 'default' })).toBe('Base value (no rules, no rollout)');
    expect(describeResult({ reason: 'DISABLED', variant: 'default' })).toBe('Base value (archived)');
    expect(describeResult({ reason: 'SPLIT', variant: 'rollout-base' })).toBe('Base value (not admitted by the rollout)');
    expect(describeResult({ reason: 'TARGETING_MATCH', variant: 'rule-12' })).toBe('Rule 12');
  });
});
