// @vitest-environment jsdom
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import type { GuardStop, Rollout, RolloutGuard } from '@gradual/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { setApi } from '../api';
import { envelope, fakeApi } from '../test/fake-api';
import { GuardPanel, gateLine, stopText } from './GuardPanel';
import { RollbackBanner } from './RollbackBanner';

const ENV = '00000000-0000-4000-8000-00000000e001';
const GUARD_PATH = `/api/v1/envs/${ENV}/flags/new-checkout/rollout/guard`;
const STEP_GUARD = { metrics: [{ key: 'checkout-errors', margin: 0.1, action: 'rollback' as const }], minUnitsPerArm: 1000, maxHoldFactor: 3 };

const ROLLOUT: Rollout = {
  id: '00000000-0000-4000-8000-0000000000a1',
  environmentId: ENV,
  primitiveKind: 'flag',
  primitiveKey: 'new-checkout',
  status: 'active',
  percent: 10,
  pausedAtPercent: null,
  pausedReason: null,
  rolledBackFromPercent: null,
  seed: 'new-checkout:production',
  bucketField: 'userId',
  newValue: true,
  planKey: 'guarded',
  planRampStepsSnapshot: [{ percent: 10, holdForSeconds: 7200, guard: STEP_GUARD }, { percent: 100, holdForSeconds: 0 }],
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
  allowedActions: ['pause', 'advance', 'rollback', 'cancel'],
  createdAt: '2026-12-01T10:00:00.000Z',
  updatedAt: '2026-12-01T10:00:00.000Z',
};

const HOLDING: RolloutGuard = {
  rolloutId: ROLLOUT.id,
  step: { index: 0, percent: 10, holdForSeconds: 7200, since: '2026-12-01T10:00:00.000Z', heldSeconds: 7300, guard: STEP_GUARD },
  decision: 'hold',
  waitingFor: ['units'],
  checks: {
    holdPassed: true,
    units: { treatment: 740, control: 752, min: 1000 },
    srmP: 1,
    srmOk: true,
    metrics: [
      {
        key: 'checkout-errors',
        kind: 'count',
        worse: 'higher',
        margin: 0.1,
        action: 'rollback',
        eValue: 2.31,
        threshold: 20,
        estimate: { value: 1.12, lower: null, upper: null },
        series: [
          { at: '2026-12-01T10:01:00.000Z', eValue: 1, estimate: { value: 1.3, lower: null, upper: null } },
          { at: '2026-12-01T10:02:00.000Z', eValue: 2.31, estimate: { value: 1.12, lower: null, upper: null } },
        ],
      },
    ],
  },
  lastStop: null,
};

const STOP: GuardStop = {
  at: '2026-12-01T12:05:00.000Z',
  action: 'rollback',
  cause: 'metric',
  metricKey: 'checkout-errors',
  stepPercent: 10,
  units: { treatment: 1204, control: 1188 },
  eValue: 41.2,
  threshold: 20,
  estimate: { value: 2.94, lower: null, upper: null },
  srmP: null,
};

afterEach(() => {
  cleanup();
  setApi(undefined);
});

describe('GuardPanel', () => {
  it("shows the gate's checklist, a tile per metric with its evidence, and the guarded steps", async () => {
    const { client } = fakeApi((req) => (req.path === GUARD_PATH ? { status: 200, body: HOLDING } : { status: 404, body: envelope('not_found', 'no') }));
    setApi(client);
    render(<GuardPanel rollout={ROLLOUT} now={Date.parse('2026-12-01T12:01:40Z')} />);
    await waitFor(() => expect(screen.getByTestId('guard-gate').textContent).toBe('Step 1: hold 2 h ✓ · 740/1,000 per arm · SRM ok → holding for units'));
    const tile = screen.getByTestId('guard-metric-checkout-errors');
    expect(tile.textContent).toContain('rate ratio 1.12');
    expect(screen.getByRole('meter', { name: 'checkout-errors evidence' }).getAttribute('aria-valuetext')).toBe('2.31 of 20');
    expect(screen.getByText('guarded').getAttribute('title')).toBe('watches checkout-errors');
  });

  it('names the last stop: the metric, its evidence and estimate, the units per arm', () => {
    expect(stopText(STOP)).toBe('rolled back at 10%: checkout-errors regressed (evidence 41.2 of 20, rate ratio 2.94; 1,204/1,188 units per arm)');
    expect(gateLine({ ...HOLDING, step: null, checks: null })).toBeNull();
  });
});

describe('RollbackBanner after a guard stop', () => {
  it('names the guard, the metric and its evidence for an hour', () => {
    const stopped: Rollout = { ...ROLLOUT, status: 'paused', pausedReason: 'auto_rollback', percent: 0, pausedAtPercent: 0, rolledBackFromPercent: 10, lastGuardStop: { ...STOP, at: new Date().toISOString() } };
    render(<RollbackBanner rollout={stopped} />);
    const banner = screen.getByTestId('rollback-banner');
    expect(banner.textContent).toContain('new-checkout was rolled back by its guard');
    expect(banner.textContent).toContain('checkout-errors regressed (evidence 41.2 of 20');
    expect(banner.textContent).toContain('It stays at 0% until someone resumes it.');
  });
});
