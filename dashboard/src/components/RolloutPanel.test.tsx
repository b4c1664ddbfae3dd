// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import type { Rollout, RolloutRamp } from '@gradual/sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setApi } from '../api';
import { primitiveApi } from '../primitive-api';
import { envelope, fakeApi, type Recorded } from '../test/fake-api';
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
  stepVersion: null,
  awaitingConvergenceUntil: null,
  targetIdsCount: 0,
  lastAutoRollback: null,
  lastGuardStop: null,
  lastRollbackConvergence: null,
  allowedActions: ['approve', 'rollback', 'cancel'],
  createdAt: '2026-11-22T10:00:00.000Z',
  updatedAt: '2026-11-22T10:00:00.000Z',
};

const ACTIVE_ACTIONS: Rollout['allowedActions'] = ['pause', 'advance', 'rollback', 'cancel'];
const ACTIVE: Rollout = { ...GATED, status: 'active', pausedReason: null, pausedAtPercent: null, percent: 30, rampStepIdx: 0, allowedActions: ACTIVE_ACTIONS };
const ROLLED_BACK: Rollout = {
  ...ACTIVE,
  status: 'paused',
  pausedReason: 'auto_rollback',
  percent: 0,
  pausedAtPercent: 0,
  rolledBackFromPercent: 30,
  allowedActions: ['resume', 'cancel'],
};

/** The operating buttons on screen, in order. */
const OPERATIONS = ['Approve and continue', 'Pause', 'Resume', 'Advance to next step', 'Cancel rollout', 'Roll back now'];
const shownOperations = () => OPERATIONS.filter((name) => screen.queryByRole('button', { name }) !== null);

/** The ramp the chart under the panel reads (GET …/rollout/ramp): the rollout's start, nothing planned. */
const RAMP: RolloutRamp = {
  segments: [{ from: GATED.createdAt, to: '2026-11-22T11:00:00.000Z', percent: 10, phase: 'active', kind: 'done' }],
  marks: [{ at: GATED.createdAt, percent: 10, kind: 'done', cause: 'created', step: 0, waitsFor: null, gate: false }],
  now: '2026-11-22T11:00:00.000Z',
  start: GATED.createdAt,
  end: '2026-11-22T12:00:00.000Z',
};

/** Renders the panel; `requests` are the operations it sent (the chart's ramp reads are answered apart, in `rampReads`). */
function renderPanel(rollout: Rollout, answer: { status: number; body?: unknown }) {
  const rampReads: Recorded[] = [];
  const requests: Recorded[] = [];
  const { client } = fakeApi((req) => {
    if (req.method === 'GET' && req.path.endsWith('/rollout/ramp')) {
      rampReads.push(req);
      return { status: 200, body: RAMP };
    }
    requests.push(req);
    return answer;
  });
  setApi(client);
  const onChange = vi.fn();
  const panel = (r: Rollout) => (
    <RolloutPanel
      rollout={r}
      ops={primitiveApi('flag', ENV, 'new-checkout')}
      plans={[]}
      hasRules={false}
      defaultSeed="new-checkout:production"
      defaultBucketField="userId"
      onChange={onChange}
    />
  );
  const { rerender } = render(panel(rollout));
  /** The page showing the panel with the rollout as it is now (after an action or a live update). */
  const show = (r: Rollout) => rerender(panel(r));
  return { requests, rampReads, onChange, show };
}

describe('RolloutPanel', () => {
  it('asks for approval of the gated step; approving resumes with the reason as X-Audit-Reason', async () => {
    const active: Rollout = { ...GATED, status: 'active', percent: 50, pausedReason: null, pausedAtPercent: null, rampStepIdx: 1, allowedActions: ACTIVE_ACTIONS };
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
    const active: Rollout = { ...GATED, status: 'active', pausedReason: null, pausedAtPercent: null, rampStepIdx: 1, percent: 50, allowedActions: ACTIVE_ACTIONS };
    renderPanel(active, { status: 409, body: envelope('rollout_already_at_final_step', 'The rollout is at its final step.') });
    fireEvent.click(screen.getByRole('button', { name: 'Advance to next step' }));
    expect((await screen.findByRole('alert')).textContent).toBe('The rollout has no further step to advance to.');
  });

  it('asks before cancelling', async () => {
    const active: Rollout = { ...GATED, status: 'active', pausedReason: null, pausedAtPercent: null, allowedActions: ACTIVE_ACTIONS };
    const { requests, onChange } = renderPanel(active, { status: 200, body: { ...active, status: 'cancelled', allowedActions: [] } });
    fireEvent.click(screen.getByRole('button', { name: 'Cancel rollout' }));
    expect(requests).toHaveLength(0);
    fireEvent.click(screen.getByRole('button', { name: 'Yes, cancel the rollout' }));
    await waitFor(() => expect(onChange).toHaveBeenCalled());
    expect(requests[0]!.path).toBe(`/api/v1/envs/${ENV}/flags/new-checkout/rollout/cancel`);
  });

  it.each<[string, Rollout, string[]]>([
    ['active with a plan', ACTIVE, ['Pause', 'Advance to next step', 'Cancel rollout', 'Roll back now']],
    ['active without a plan', { ...ACTIVE, planKey: null, planRampStepsSnapshot: null, rampStepIdx: null, allowedActions: ['pause', 'rollback', 'cancel'] }, ['Pause', 'Cancel rollout', 'Roll back now']],
    ['paused by a person', { ...ACTIVE, status: 'paused', pausedReason: 'user', pausedAtPercent: 30, allowedActions: ['resume', 'advance', 'rollback', 'cancel'] }, ['Resume', 'Advance to next step', 'Cancel rollout', 'Roll back now']],
    ['held at an approval gate', GATED, ['Approve and continue', 'Cancel rollout', 'Roll back now']],
    ['rolled back', ROLLED_BACK, ['Resume', 'Cancel rollout']],
  ])('renders exactly the allowed actions: %s', (_name, rollout, buttons) => {
    renderPanel(rollout, { status: 200, body: rollout });
    expect(shownOperations()).toEqual(buttons);
  });

  it('draws the ramp from the ramp route and reads it again when the rollout changes', async () => {
    const active: Rollout = { ...GATED, status: 'active', percent: 50, pausedReason: null, pausedAtPercent: null, rampStepIdx: 1, allowedActions: ACTIVE_ACTIONS, updatedAt: '2026-11-22T11:00:00.000Z' };
    const { rampReads, show } = renderPanel(GATED, { status: 200, body: active });
    await screen.findByRole('table', { name: 'Timeline' });
    expect(rampReads.map((r) => r.path)).toEqual([`/api/v1/envs/${ENV}/flags/new-checkout/rollout/ramp`]);
    show({ ...GATED });
    expect(rampReads).toHaveLength(1);
    // Approved elsewhere: the page shows the rollout's new state, and the chart reads its ramp again.
    show(active);
    await waitFor(() => expect(rampReads).toHaveLength(2));
    expect(screen.getByRole('table', { name: 'Timeline' })).toBeTruthy();
  });

  it('says what a step that holds from convergence waits for, and when it pauses without it', () => {
    const awaiting: Rollout = {
      ...ACTIVE,
      percent: 10,
      planRampStepsSnapshot: [{ percent: 10, holdForSeconds: 3600, holdFromConvergence: { instancesPercent: 99, timeoutSeconds: 600 } }, { percent: 100, holdForSeconds: 0 }],
      stepVersion: 42,
      awaitingConvergenceUntil: '2026-11-22T10:10:00.000Z',
    };
    renderPanel(awaiting, { status: 200, body: awaiting });
    expect(screen.getByTestId('awaiting-convergence').textContent).toMatch(/^once 99% of SDK instances serve v42, then 60 min; pauses at .+ if not$/);
  });

  it('says where a rolled-back rollout resumes to', () => {
    renderPanel(ROLLED_BACK, { status: 200, body: ROLLED_BACK });
    expect(screen.getByText(/Rolled back to 0%/).textContent).toBe('Rolled back to 0%. Resume returns it to 30%.');
  });

  it('says how fast the fleet served the rollback, once recorded', () => {
    const recorded = { version: 43, rolledBackAt: '2026-11-22T10:00:00.000Z', convergedAt: '2026-11-22T10:00:00.180Z', convergedMs: 180, instances: 1210, serving: 1204 };
    renderPanel({ ...ROLLED_BACK, lastRollbackConvergence: recorded }, { status: 200, body: ROLLED_BACK });
    expect(screen.getByTestId('rollback-converged').textContent).toBe(' The rollback reached 1,204 of 1,210 SDK instances in 180 ms.');
  });

  it('rolls back now after a confirmation with a required reason, sent as X-Audit-Reason', async () => {
    const { requests, onChange } = renderPanel(ACTIVE, { status: 200, body: ROLLED_BACK });
    fireEvent.click(screen.getByRole('button', { name: 'Roll back now' }));
    expect(requests).toHaveLength(0);
    const dialog = screen.getByRole('group', { name: 'Roll back new-checkout' });
    expect(dialog.textContent).toContain('Resume returns it to 30%.');
    const confirm = screen.getByRole('button', { name: 'Roll back to 0%' });
    expect((confirm as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(screen.getByLabelText('Reason (required, saved in the audit log)'), { target: { value: '  checkout errors  ' } });
    expect((confirm as HTMLButtonElement).disabled).toBe(false);
    fireEvent.click(confirm);
    await waitFor(() => expect(onChange).toHaveBeenCalledWith(ROLLED_BACK));
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ method: 'POST', path: `/api/v1/envs/${ENV}/flags/new-checkout/rollout/rollback` });
    expect(requests[0]!.headers.get('x-audit-reason')).toBe('checkout errors');
  });

  it('keeps the rollout when the rollback is not confirmed', () => {
    const { requests } = renderPanel(ACTIVE, { status: 200, body: ROLLED_BACK });
    fireEvent.click(screen.getByRole('button', { name: 'Roll back now' }));
    fireEvent.click(within(screen.getByRole('group', { name: 'Roll back new-checkout' })).getByRole('button', { name: 'Keep it' }));
    expect(screen.queryByRole('group', { name: 'Roll back new-checkout' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Roll back now' })).toBeTruthy();
    expect(requests).toHaveLength(0);
  });

  it('shows why a rollback was refused', async () => {
    renderPanel(ACTIVE, { status: 409, body: envelope('rollout_nothing_to_roll_back', 'Nothing to roll back: the rollout is already rolled back.') });
    fireEvent.click(screen.getByRole('button', { name: 'Roll back now' }));
    fireEvent.change(screen.getByLabelText('Reason (required, saved in the audit log)'), { target: { value: 'errors' } });
    fireEvent.click(screen.getByRole('button', { name: 'Roll back to 0%' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Nothing to roll back: the rollout is already rolled back.');
  });
});
