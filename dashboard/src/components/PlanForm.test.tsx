// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import type { RolloutPlan } from '@gradual/sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { descriptionOf, envelope, fakeApi } from '../test/fake-api';
import { PlanForm } from './PlanForm';

afterEach(cleanup);

const PLAN: RolloutPlan = {
  id: '00000000-0000-4000-8000-000000000001',
  projectId: '00000000-0000-4000-8000-000000000002',
  key: 'standard',
  name: 'Standard',
  rampSteps: [
    { percent: 5, holdForSeconds: 7200 },
    { percent: 100, holdForSeconds: 0 },
  ],
  cadence: 'manual',
  blackoutDaysOfWeek: [0],
  blackoutTimezone: 'Europe/Amsterdam',
  createdAt: '2026-11-01T00:00:00.000Z',
  updatedAt: '2026-11-01T00:00:00.000Z',
};

function renderCreate(answer: { status: number; body?: unknown }) {
  const { client, requests } = fakeApi(() => answer);
  const onDone = vi.fn();
  render(<PlanForm save={(body) => client.createRolloutPlan({ path: { id: PLAN.projectId }, body })} onDone={onDone} onCancel={() => {}} />);
  return { requests, onDone };
}

describe('PlanForm', () => {
  it("shows each of the server's field messages next to the input it names", async () => {
    const { onDone } = renderCreate({
      status: 400,
      body: envelope('rollout_plan_invalid_ramp', 'The ramp steps are invalid.', {
        'rampSteps.1.percent': "must be greater than the previous step's percent (10)",
        'rampSteps.2.holdForSeconds': 'must be an integer from 60 to 2592000',
        'rampSteps.2.requiresApproval': 'approval gates are only valid when cadence is auto',
        blackoutTimezone: 'not a valid IANA time zone',
        key: 'only letters, digits, ".", "_" and "-"',
      }),
    });
    fireEvent.change(screen.getByLabelText('Key'), { target: { value: 'bad key' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create plan' }));

    await screen.findByText("must be greater than the previous step's percent (10)");
    expect(descriptionOf(screen.getByLabelText('Step 2 percent'))).toBe("must be greater than the previous step's percent (10)");
    expect(screen.getByLabelText('Step 2 percent').getAttribute('aria-invalid')).toBe('true');
    expect(descriptionOf(screen.getByLabelText('Step 3 hold'))).toBe('must be an integer from 60 to 2592000');
    expect(descriptionOf(screen.getByLabelText('Step 3 approval'))).toBe('approval gates are only valid when cadence is auto');
    expect(descriptionOf(screen.getByLabelText('Blackout time zone'))).toContain('not a valid IANA time zone');
    expect(descriptionOf(screen.getByLabelText('Key'))).toContain('only letters, digits');
    // Fields without a message stay clean.
    expect(screen.getByLabelText('Step 1 percent').getAttribute('aria-invalid')).toBeNull();
    expect(onDone).not.toHaveBeenCalled();
  });

  it('shows a message that names no field as a general error', async () => {
    renderCreate({ status: 409, body: envelope('rollout_plan_key_conflict', 'A plan with key "standard" already exists in this project.') });
    fireEvent.click(screen.getByRole('button', { name: 'Create plan' }));
    expect((await screen.findByRole('alert')).textContent).toBe('A plan with this key already exists in the project.');
  });

  it('sends holds in seconds from their units, and the chosen cadence and blackout days', async () => {
    const { requests, onDone } = renderCreate({ status: 201, body: PLAN });
    fireEvent.change(screen.getByLabelText('Key'), { target: { value: 'standard' } });
    fireEvent.change(screen.getByLabelText('Name'), { target: { value: 'Standard' } });
    fireEvent.change(screen.getByLabelText('Cadence'), { target: { value: 'auto' } });
    fireEvent.click(screen.getByLabelText('Sat'));
    fireEvent.click(screen.getByLabelText('Step 3 approval'));
    fireEvent.change(screen.getByLabelText('Step 1 hold'), { target: { value: '30' } });
    fireEvent.change(screen.getByLabelText('Step 1 hold unit'), { target: { value: 'minutes' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create plan' }));
    await waitFor(() => expect(onDone).toHaveBeenCalledWith(PLAN));
    expect(requests[0]).toMatchObject({ method: 'POST', path: `/api/v1/projects/${PLAN.projectId}/rollout-plans` });
    expect(requests[0]!.body).toEqual({
      key: 'standard',
      name: 'Standard',
      cadence: 'auto',
      rampSteps: [
        { percent: 1, holdForSeconds: 1800 },
        { percent: 10, holdForSeconds: 86400 },
        { percent: 50, holdForSeconds: 86400, requiresApproval: true },
        { percent: 100, holdForSeconds: 0 },
      ],
      blackoutDaysOfWeek: [6],
      blackoutTimezone: 'UTC',
    });
  });

  it('edits a plan: fields start from it, holds in their largest whole unit', () => {
    render(<PlanForm plan={PLAN} save={() => Promise.resolve(PLAN)} onDone={() => {}} onCancel={() => {}} />);
    expect(screen.getByLabelText<HTMLInputElement>('Name').value).toBe('Standard');
    expect(screen.getByLabelText<HTMLInputElement>('Step 1 hold').value).toBe('2');
    expect(screen.getByLabelText<HTMLSelectElement>('Step 1 hold unit').value).toBe('hours');
    expect(screen.getByLabelText<HTMLInputElement>('Sun').checked).toBe(true);
    expect(screen.getByLabelText<HTMLInputElement>('Blackout time zone').value).toBe('Europe/Amsterdam');
  });

  it('keeps a guarded step\'s guard when the plan is edited, with the settings of the metrics it keeps, and adds or drops metrics by key', async () => {
    const guarded: RolloutPlan = {
      ...PLAN,
      cadence: 'auto',
      rampSteps: [
        { percent: 5, holdForSeconds: 7200, guard: { metrics: [{ key: 'checkout-errors', margin: 0.2, action: 'pause' }], minUnitsPerArm: 500, maxHoldFactor: 2 } },
        { percent: 100, holdForSeconds: 0 },
      ],
    };
    const save = vi.fn((body: unknown) => Promise.resolve({ ...guarded, ...(body as object) }));
    render(<PlanForm plan={guarded} save={save} onDone={() => {}} onCancel={() => {}} />);
    const field = screen.getByLabelText<HTMLInputElement>('Step 1 guard metrics');
    expect(field.value).toBe('checkout-errors');
    fireEvent.change(field, { target: { value: 'checkout-errors, latency' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save plan' }));
    await waitFor(() => expect(save).toHaveBeenCalled());
    expect((save.mock.calls[0]![0] as { rampSteps: unknown[] }).rampSteps).toEqual([
      { percent: 5, holdForSeconds: 7200, guard: { metrics: [{ key: 'checkout-errors', margin: 0.2, action: 'pause' }, { key: 'latency' }], minUnitsPerArm: 500, maxHoldFactor: 2 } },
      { percent: 100, holdForSeconds: 0 },
    ]);
  });

  it("shows the server's message about a guard's metric under the step's guard field", async () => {
    renderCreate({ status: 400, body: envelope('rollout_plan_invalid_ramp', 'The ramp steps are invalid.', { 'rampSteps.0.guard.metrics.0.key': 'no guard metric "typo" in this project' }) });
    fireEvent.change(screen.getByLabelText('Key'), { target: { value: 'guarded' } });
    fireEvent.change(screen.getByLabelText('Step 1 guard metrics'), { target: { value: 'typo' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create plan' }));
    await waitFor(() => expect(descriptionOf(screen.getByLabelText('Step 1 guard metrics'))).toContain('no guard metric "typo" in this project'));
  });
});
