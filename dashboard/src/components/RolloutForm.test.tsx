// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import type { Rollout, RolloutPlan } from '@gradual/sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { withReason } from '../api';
import { descriptionOf, envelope, fakeApi } from '../test/fake-api';
import { RolloutForm } from './RolloutForm';

afterEach(cleanup);

const ENV = '00000000-0000-4000-8000-00000000000e';
const PLAN = { key: 'standard', name: 'Standard', cadence: 'auto', rampSteps: [{ percent: 5, holdForSeconds: 3600 }, { percent: 100, holdForSeconds: 0 }] } as RolloutPlan;
const ROLLOUT: Rollout = {
  id: '00000000-0000-4000-8000-0000000000a1',
  environmentId: ENV,
  primitiveKind: 'flag',
  primitiveKey: 'new-checkout',
  status: 'active',
  percent: 5,
  pausedAtPercent: null,
  pausedReason: null,
  rolledBackFromPercent: null,
  seed: 'new-checkout:production',
  bucketField: 'userId',
  newValue: true,
  planKey: 'standard',
  planRampStepsSnapshot: PLAN.rampSteps,
  cadence: 'auto',
  planBlackoutDaysOfWeek: [],
  planBlackoutTimezone: 'UTC',
  rampStepIdx: 0,
  nextStepAt: '2026-11-23T10:00:00.000Z',
  stepVersion: null,
  awaitingConvergenceUntil: null,
  targetIdsCount: 0,
  lastAutoRollback: null,
  lastGuardStop: null,
  lastRollbackConvergence: null,
  allowedActions: ['pause', 'rollback', 'cancel'],
  createdAt: '2026-11-22T10:00:00.000Z',
  updatedAt: '2026-11-22T10:00:00.000Z',
};

function renderForm(answer: { status: number; body?: unknown }, props: { rollout?: Rollout; hasRules?: boolean } = {}) {
  const { client, requests } = fakeApi(() => answer);
  const onDone = vi.fn();
  render(
    <RolloutForm
      rollout={props.rollout}
      plans={[PLAN]}
      hasRules={props.hasRules ?? false}
      defaultSeed="new-checkout:production"
      defaultBucketField="userId"
      submit={async (body, reason) => {
        const r = await client.putFlagRollout({ path: { envId: ENV, key: 'new-checkout' }, body, ...withReason(reason) });
        if (r.kind !== 'applied') throw new Error('the rollout was diverted to a proposal');
        return r.data;
      }}
      onDone={onDone}
      onCancel={() => {}}
    />,
  );
  return { requests, onDone };
}

const type = (label: string, value: string) => fireEvent.change(screen.getByLabelText(label), { target: { value } });

describe('RolloutForm', () => {
  it('catches a missing percent and a missing candidate before asking the server', async () => {
    const { requests } = renderForm({ status: 200, body: ROLLOUT });
    fireEvent.click(screen.getByRole('button', { name: 'Start rollout' }));
    await screen.findByText('Enter a percentage from 0 to 100.');
    expect(descriptionOf(screen.getByLabelText('Percent'))).toContain('Enter a percentage from 0 to 100.');
    expect(descriptionOf(screen.getByLabelText('Candidate value (JSON)'))).toBe('Enter the value to roll out.');
    expect(requests).toHaveLength(0);
  });

  it('lets a primitive with rules start without a candidate (the rollout gates the rules)', async () => {
    const { requests, onDone } = renderForm({ status: 200, body: ROLLOUT }, { hasRules: true });
    type('Percent', '5');
    fireEvent.click(screen.getByRole('button', { name: 'Start rollout' }));
    await waitFor(() => expect(onDone).toHaveBeenCalled());
    expect(requests[0]!.body).toEqual({ percent: 5 });
  });

  it("shows the server's field message next to the percent", async () => {
    renderForm({ status: 400, body: envelope('invalid_request', 'The request is invalid.', { percent: 'at most 4 decimal places' }) });
    type('Percent', '1.23456');
    type('Candidate value (JSON)', 'true');
    fireEvent.click(screen.getByRole('button', { name: 'Start rollout' }));
    await screen.findByText('at most 4 decimal places');
    expect(descriptionOf(screen.getByLabelText('Percent'))).toContain('at most 4 decimal places');
    expect(screen.getByLabelText('Percent').getAttribute('aria-invalid')).toBe('true');
    // A field-level failure is not repeated as a general alert.
    expect(screen.queryByText('The request is invalid.')).toBeNull();
  });

  it('puts a locked seed message under the seed', async () => {
    renderForm({ status: 400, body: envelope('rollout_seed_locked', 'The seed is locked once percent is above 0.') }, { rollout: ROLLOUT });
    type('Seed', 'another-seed');
    fireEvent.click(screen.getByRole('button', { name: 'Save rollout' }));
    await screen.findByText('The seed cannot change once the rollout admits anyone (percent above 0).');
    expect(descriptionOf(screen.getByLabelText('Seed'))).toContain('The seed cannot change once the rollout admits anyone');
  });

  it('sends the plan, the parsed candidate and only what changed, with the reason as X-Audit-Reason', async () => {
    const { requests, onDone } = renderForm({ status: 200, body: ROLLOUT });
    type('Percent', '5');
    fireEvent.change(screen.getByLabelText('Plan'), { target: { value: 'standard' } });
    type('Candidate value (JSON)', '{"variant": "b"}');
    type('Bucket field', 'accountId');
    type('Reason (optional)', 'launch week');
    fireEvent.click(screen.getByRole('button', { name: 'Start rollout' }));
    await waitFor(() => expect(onDone).toHaveBeenCalledWith(ROLLOUT));
    expect(requests[0]).toMatchObject({ method: 'PUT', path: `/api/v1/envs/${ENV}/flags/new-checkout/rollout` });
    expect(requests[0]!.body).toEqual({ percent: 5, planKey: 'standard', newValue: { variant: 'b' }, bucketField: 'accountId' });
    expect(requests[0]!.headers.get('x-audit-reason')).toBe('launch week');
  });

  it('detaches the plan when an edit chooses "No plan"', async () => {
    const { requests } = renderForm({ status: 200, body: ROLLOUT }, { rollout: ROLLOUT });
    fireEvent.change(screen.getByLabelText('Plan'), { target: { value: '' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save rollout' }));
    await waitFor(() => expect(requests).toHaveLength(1));
    expect(requests[0]!.body).toEqual({ percent: 5, newValue: true, planKey: null });
    expect(requests[0]!.headers.get('x-audit-reason')).toBeNull();
  });
});
