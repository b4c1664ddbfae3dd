// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import type { Rollout } from '@gradual/sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setApi } from '../api';
import { primitiveApi } from '../primitive-api';
import { envelope, fakeApi } from '../test/fake-api';
import { RolloutPanel } from './RolloutPanel';

afterEach(() => {
  cleanup();
  setApi(undefined);
});

const ENV = '00000000-0000-4000-8000-00000000000e';
const GATED: Rollout = {
  id: '00000000-0000-4000-8000-0000000000a1',
  environmentId: ENV,
  primitiveKind: 'flag',
  primitiveKey: 'new-checkout',
  status: 'paused',
  percent: 10,
  pausedAtPercent: 10,
  pausedReason: 'approval_gate',
  rolledBackFromPercent: null,
  seed: 'new-checkout:production',
  bucketField: 'userId',
  newValue: true,
  planKey: 'gated',
  planRampStepsSnapshot: [
    { percent: 10, holdForSeconds: 3600 },
    { percent: 50, holdForSeconds: 3600, requiresApproval: true },
    { percent: 100, holdForSeconds: 0 },
  ],
  cadence: 'auto',
  planBlackoutDaysOfWeek: [],
  planBlackoutTimezone: 'UTC',
  rampStepIdx: 0,
  nextStepAt: null,
  targetIdsCount: 0,
  lastAutoRollback: null,
  createdAt: '2026-11-22T10:00:00.000Z',
  updatedAt: '2026-11-22T10:00:00.000Z',
};

function renderPanel(rollout: Rollout, answer: { status: number; body?: unknown }) {
  const { client, requests } = fakeApi(() => answer);
  setApi(client);
  const onChange = vi.fn();
  render(
    <RolloutPanel
      rollout={rollout}
      ops={primitiveApi('flag', ENV, 'new-checkout')}
      plans={[]}
      hasRules={false}
      defaultSeed="new-checkout:production"
      defaultBucketField="userId"
      onChange={onChange}
    />,
  );
  return { requests, onChange };
}

describe('RolloutPanel', () => {
  it('asks for approval of the gated step; approving resumes with the reason as X-Audit-Reason', async () => {
    const active = { ...GATED, status: 'active', percent: 50, pausedReason: null, pausedAtPercent: null, rampStepIdx: 1 } as Rollout;
    const { requests, onChange } = renderPanel(GATED, { status: 200, body: active });
    expect(screen.getByTestId('approval-gate').textContent).toContain('The next step (50%) needs someone to approve it.');
    expect(screen.queryByRole('button', { name: 'Resume' })).toBeNull();
    fireEvent.change(screen.getByLabelText('Reason (optional, saved in the audit log)'), { target: { value: 'metrics look good' } });
    fireEvent.click(screen.getByRole('button', { name: 'Approve and continue' }));
    await waitFor(() => expect(onChange).toHaveBeenCalledWith(active));
    expect(requests[0]).toMatchObject({ method: 'POST', path: `/api/v1/envs/${ENV}/flags/new-checkout/rollout/resume` });
    expect(requests[0]!.headers.get('x-audit-reason')).toBe('metrics look good');
  });

  it('shows why an operation was refused', async () => {
    const active = { ...GATED, status: 'active', pausedReason: null, pausedAtPercent: null, rampStepIdx: 2, percent: 100 } as Rollout;
    renderPanel(active, { status: 409, body: envelope('rollout_already_at_final_step', 'The rollout is at its final step.') });
    fireEvent.click(screen.getByRole('button', { name: 'Advance to next step' }));
    expect((await screen.findByRole('alert')).textContent).toBe('The rollout has no further step to advance to.');
  });

  it('asks before cancelling', async () => {
    const active = { ...GATED, status: 'active', pausedReason: null, pausedAtPercent: null } as Rollout;
    const { requests, onChange } = renderPanel(active, { status: 200, body: { ...active, status: 'cancelled' } });
    fireEvent.click(screen.getByRole('button', { name: 'Cancel rollout' }));
    expect(requests).toHaveLength(0);
    fireEvent.click(screen.getByRole('button', { name: 'Yes, cancel the rollout' }));
    await waitFor(() => expect(onChange).toHaveBeenCalled());
    expect(requests[0]!.path).toBe(`/api/v1/envs/${ENV}/flags/new-checkout/rollout/cancel`);
  });
});
