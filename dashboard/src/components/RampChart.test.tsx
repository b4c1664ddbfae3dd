// @vitest-environment jsdom
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import type { AuditEventDetail } from '@gradual/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setApi } from '../api';
import { formatTime } from '../format';
import { fakeApi } from '../test/fake-api';
import { RampChart, type ChartRollout } from './RampChart';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-11-18T12:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const ENV = '00000000-0000-4000-8000-00000000000e';
const ID = '00000000-0000-4000-8000-0000000000a1';

/** 25% → 50% after an hour → rolled back to 0% half an hour later; now two hours in. */
const ROLLED_BACK: ChartRollout = {
  id: ID,
  environmentId: ENV,
  primitiveKey: 'new-checkout',
  status: 'paused',
  percent: 0,
  pausedAtPercent: 0,
  pausedReason: 'auto_rollback',
  rolledBackFromPercent: 50,
  rampStepIdx: 1,
  planRampStepsSnapshot: [
    { percent: 25, holdForSeconds: 3600 },
    { percent: 50, holdForSeconds: 5400 },
    { percent: 100, holdForSeconds: 0 },
  ],
  cadence: 'auto',
  planBlackoutDaysOfWeek: [],
  planBlackoutTimezone: 'UTC',
  nextStepAt: null,
  createdAt: iso(T0),
  updatedAt: iso(T0 + 1.5 * HOUR),
};
const NOW = T0 + 2 * HOUR;

function row(id: string, at: number, action: AuditEventDetail['action'], newValue: Record<string, unknown>, resourceId = ID): AuditEventDetail {
  return {
    id,
    createdAt: iso(at),
    actorType: 'system',
    actorId: null,
    delegatorUserId: null,
    approverUserId: null,
    resourceType: 'rollout',
    resourceKey: 'new-checkout',
    resourceId,
    envId: ENV,
    action,
    version: 1,
    reason: null,
    previousValue: null,
    newValue: { status: 'active', pausedAtPercent: null, pausedReason: null, rolledBackFromPercent: null, ...newValue },
    diff: [],
  };
}

const ROWS = [
  row('00000000-0000-4000-8000-0000000000e4', T0 + 1.5 * HOUR, 'rollout.auto_rollback', { status: 'paused', percent: 0, pausedAtPercent: 0, pausedReason: 'auto_rollback', rolledBackFromPercent: 50, rampStepIdx: 1 }),
  row('00000000-0000-4000-8000-0000000000e3', T0 + 1.2 * HOUR, 'rollout.target_ids_added', { percent: 50, rampStepIdx: 1 }),
  row('00000000-0000-4000-8000-0000000000e2', T0 + HOUR, 'rollout.advanced', { percent: 50, rampStepIdx: 1 }),
  row('00000000-0000-4000-8000-0000000000e1', T0, 'rollout.created', { percent: 25, rampStepIdx: 0 }),
  // The flag's previous rollout, a day earlier.
  row('00000000-0000-4000-8000-0000000000e0', T0 - 24 * HOUR, 'rollout.created', { percent: 50, rampStepIdx: 1 }, '00000000-0000-4000-8000-0000000000a0'),
];

beforeEach(() => window.history.pushState(null, '', '/app/o/acme/p/proj/flags/new-checkout'));
afterEach(() => {
  cleanup();
  setApi(undefined);
  window.history.pushState(null, '', '/');
});

function timeline() {
  const table = screen.getByRole('table', { name: 'Timeline' });
  return within(table)
    .getAllByRole('row')
    .slice(1)
    .map((tr) => within(tr).getAllByRole('cell').map((td) => td.textContent));
}

describe('RampChart', () => {
  it('reads the history from the audit log and draws a rollback as 0%, nothing before the rollout existed', async () => {
    const { client, requests } = fakeApi((req) => {
      if (req.path === '/api/v1/orgs/acme/audit') return { status: 200, body: { events: ROWS.map(({ previousValue: _p, newValue: _n, diff: _d, ...s }) => s), nextCursor: null } };
      const detail = ROWS.find((r) => req.path === `/api/v1/audit/events/${r.id}`);
      return detail ? { status: 200, body: detail } : { status: 404, body: { code: 'not_found', message: 'no', requestId: 'r' } };
    });
    setApi(client);
    render(<RampChart rollout={ROLLED_BACK} now={NOW} />);

    await waitFor(() => expect(timeline()).toHaveLength(5));
    expect(timeline()).toEqual([
      [formatTime(iso(T0)), '25%', 'started', 'done'],
      [formatTime(iso(T0 + HOUR)), '50%', 'advanced', 'done'],
      [formatTime(iso(T0 + 1.5 * HOUR)), '0%', 'rolled back', 'done'],
      [`≥ ${formatTime(iso(NOW))}, after a resume`, '50%', 'resumes', 'planned'],
      [`≥ ${formatTime(iso(NOW + 1.5 * HOUR))}, after a resume`, '100%', 'completes', 'planned'],
    ]);
    // Only this rollout's state changes are read in detail: not the allow-list edit, not the earlier rollout.
    expect(requests.filter((r) => r.path.startsWith('/api/v1/audit/events/')).map((r) => r.path.slice(-2)).sort()).toEqual(['e1', 'e2', 'e4']);

    const steps = within(screen.getByRole('table', { name: 'Plan steps' }))
      .getAllByRole('row')
      .slice(1)
      .map((tr) => within(tr).getAllByRole('cell').map((td) => td.textContent));
    expect(steps).toEqual([
      ['1', '25%', '1 h', `done ${formatTime(iso(T0))}`, '—'],
      ['2', '50%', '1 h 30 min', `done ${formatTime(iso(T0 + HOUR))}`, `planned ≥ ${formatTime(iso(NOW))}, after a resume`],
      ['3', '100%', 'final', '—', `planned ≥ ${formatTime(iso(NOW + 1.5 * HOUR))}, after a resume`],
    ]);
    const chart = screen.getByRole('img');
    expect(chart.getAttribute('aria-label')).toContain('Now at 0%, rolled back');
    // Done and planned are drawn differently: a solid path and a dashed one.
    expect(chart.querySelector('path[data-kind="done"]')?.getAttribute('class')).toBe('ramp-done');
    expect(chart.querySelector('path[data-kind="planned"]')?.getAttribute('class')).toBe('ramp-planned');
    expect(screen.getByText(/done \(recorded\)/)).toBeTruthy();
    expect(screen.getByText(/planned \(projected from the plan\)/)).toBeTruthy();
  });

  it('draws a given history without reading the audit log; the done line starts where the rollout did', () => {
    const { client, requests } = fakeApi(() => ({ status: 500 }));
    setApi(client);
    const { container } = render(
      <RampChart
        rollout={ROLLED_BACK}
        now={NOW}
        history={[
          { at: T0, action: 'rollout.created', state: { status: 'active', percent: 25, pausedAtPercent: null, pausedReason: null, rolledBackFromPercent: null, rampStepIdx: 0 } },
          { at: T0 + 1.5 * HOUR, action: 'rollout.auto_rollback', state: { status: 'paused', percent: 0, pausedAtPercent: 0, pausedReason: 'auto_rollback', rolledBackFromPercent: 50, rampStepIdx: 1 } },
        ]}
      />,
    );
    expect(requests).toEqual([]);
    expect(timeline().map((r) => [r[1], r[3]])).toEqual([
      ['25%', 'done'],
      ['0%', 'done'],
      ['50%', 'planned'],
      ['100%', 'planned'],
    ]);
    // The first point of the done line is the rollout's creation, the leftmost point of the chart's span.
    const done = container.querySelector('path[data-kind="done"]')!.getAttribute('d')!;
    const firstX = Number(done.split(' ')[1]);
    const xs = [...done.matchAll(/[ML] ([\d.]+) /g)].map((m) => Number(m[1]));
    expect(Math.min(...xs)).toBe(firstX);
  });

  it('without an organization in the page, the past is the rollout’s current state since its last change', () => {
    window.history.pushState(null, '', '/');
    const { client, requests } = fakeApi(() => ({ status: 500 }));
    setApi(client);
    render(<RampChart rollout={ROLLED_BACK} now={NOW} />);
    expect(requests).toEqual([]);
    expect(timeline()[0]).toEqual([formatTime(iso(T0 + 1.5 * HOUR)), '0%', 'rolled back', 'done']);
    expect(timeline().filter((r) => r[3] === 'done')).toHaveLength(1);
  });
});
