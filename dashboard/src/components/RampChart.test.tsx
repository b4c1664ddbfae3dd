// @vitest-environment jsdom
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import type { RolloutRamp } from '@gradual/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { setApi } from '../api';
import { formatTime } from '../format';
import { envelope, fakeApi } from '../test/fake-api';
import { markLabel, RampChart, type ChartRollout } from './RampChart';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-11-18T12:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const ENV = '00000000-0000-4000-8000-00000000000e';
const ID = '00000000-0000-4000-8000-0000000000a1';
const RAMP_PATH = `/api/v1/envs/${ENV}/flags/new-checkout/rollout/ramp`;

/** 25% → 50% after an hour → rolled back to 0% half an hour later; now two hours in. */
const ROLLED_BACK: ChartRollout = {
  id: ID,
  environmentId: ENV,
  primitiveKind: 'flag',
  primitiveKey: 'new-checkout',
  status: 'paused',
  percent: 0,
  rampStepIdx: 1,
  planRampStepsSnapshot: [
    { percent: 25, holdForSeconds: 3600 },
    { percent: 50, holdForSeconds: 5400 },
    { percent: 100, holdForSeconds: 0 },
  ],
  planBlackoutDaysOfWeek: [],
  planBlackoutTimezone: 'UTC',
  createdAt: iso(T0),
  updatedAt: iso(T0 + 1.5 * HOUR),
};
const NOW = T0 + 2 * HOUR;

/** The server's ramp of ROLLED_BACK at NOW (GET …/rollout/ramp). */
const RAMP: RolloutRamp = {
  segments: [
    { from: iso(T0), to: iso(T0 + HOUR), percent: 25, phase: 'active', kind: 'done' },
    { from: iso(T0 + HOUR), to: iso(T0 + 1.5 * HOUR), percent: 50, phase: 'active', kind: 'done' },
    { from: iso(T0 + 1.5 * HOUR), to: iso(NOW), percent: 0, phase: 'rolled_back', kind: 'done' },
    { from: iso(NOW), to: iso(NOW + 1.5 * HOUR), percent: 50, phase: 'active', kind: 'planned' },
    { from: iso(NOW + 1.5 * HOUR), to: iso(NOW + 2.5 * HOUR), percent: 100, phase: 'completed', kind: 'planned' },
  ],
  marks: [
    { at: iso(T0), percent: 25, kind: 'done', cause: 'created', step: 0, waitsFor: null, gate: false },
    { at: iso(T0 + HOUR), percent: 50, kind: 'done', cause: 'advanced', step: 1, waitsFor: null, gate: false },
    { at: iso(T0 + 1.5 * HOUR), percent: 0, kind: 'done', cause: 'rolled_back', step: 1, waitsFor: null, gate: false },
    { at: iso(NOW), percent: 50, kind: 'planned', cause: 'resumed', step: 1, waitsFor: 'resume', gate: false },
    { at: iso(NOW + 1.5 * HOUR), percent: 100, kind: 'planned', cause: 'completed', step: 2, waitsFor: 'resume', gate: false },
  ],
  now: iso(NOW),
  start: iso(T0),
  end: iso(NOW + 2.5 * HOUR),
};

afterEach(() => {
  cleanup();
  setApi(undefined);
});

function timeline() {
  const table = screen.getByRole('table', { name: 'Timeline' });
  return within(table)
    .getAllByRole('row')
    .slice(1)
    .map((tr) => within(tr).getAllByRole('cell').map((td) => td.textContent));
}

describe('RampChart', () => {
  it('draws the server’s ramp: a rollback as 0%, the done line from the rollout’s start, the planned one from now', async () => {
    const { client, requests } = fakeApi((req) => (req.path === RAMP_PATH ? { status: 200, body: RAMP } : { status: 404, body: envelope('not_found', 'no') }));
    setApi(client);
    const { container } = render(<RampChart rollout={ROLLED_BACK} now={NOW} />);

    await waitFor(() => expect(timeline()).toHaveLength(5));
    expect(timeline()).toEqual([
      [formatTime(iso(T0)), '25%', 'started', 'done'],
      [formatTime(iso(T0 + HOUR)), '50%', 'advanced', 'done'],
      [formatTime(iso(T0 + 1.5 * HOUR)), '0%', 'rolled back', 'done'],
      [`≥ ${formatTime(iso(NOW))}, after a resume`, '50%', 'resumes', 'planned'],
      [`≥ ${formatTime(iso(NOW + 1.5 * HOUR))}, after a resume`, '100%', 'completes', 'planned'],
    ]);
    // One request: the ramp route, no audit reads.
    expect(requests.map((r) => r.path)).toEqual([RAMP_PATH]);

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
    // The first point of the done line is the rollout's creation, the leftmost point of the chart's span.
    const done = container.querySelector('path[data-kind="done"]')!.getAttribute('d')!;
    const xs = [...done.matchAll(/[ML] ([\d.]+) /g)].map((m) => Number(m[1]));
    expect(Math.min(...xs)).toBe(Number(done.split(' ')[1]));
    // The now line is at the server's now, where the done line ends and the planned one starts.
    const nowX = Number(container.querySelector('line.now-line')!.getAttribute('x1'));
    expect(Math.max(...xs)).toBeCloseTo(nowX);
    expect(Number(container.querySelector('path[data-kind="planned"]')!.getAttribute('d')!.split(' ')[1])).toBeCloseTo(nowX);
  });

  it('reads a config rollout’s ramp from the config route', async () => {
    const { client, requests } = fakeApi(() => ({ status: 200, body: RAMP }));
    setApi(client);
    render(<RampChart rollout={{ ...ROLLED_BACK, primitiveKind: 'config', primitiveKey: 'limits' }} now={NOW} />);
    await waitFor(() => expect(timeline()).toHaveLength(5));
    expect(requests.map((r) => r.path)).toEqual([`/api/v1/envs/${ENV}/configs/limits/rollout/ramp`]);
  });

  it('reads the ramp again when the rollout changes, keeping the drawn one meanwhile', async () => {
    let answer = RAMP;
    const { client, requests } = fakeApi(() => ({ status: 200, body: answer }));
    setApi(client);
    const { rerender } = render(<RampChart rollout={ROLLED_BACK} now={NOW} />);
    await waitFor(() => expect(timeline()).toHaveLength(5));
    // The same rollout a moment later: nothing to read.
    rerender(<RampChart rollout={ROLLED_BACK} now={NOW + 1000} />);
    expect(requests).toHaveLength(1);

    // Resumed (a live update or this page's action): the rollout's updatedAt moves on.
    answer = {
      ...RAMP,
      marks: [...RAMP.marks.filter((m) => m.kind === 'done'), { at: iso(NOW + 60_000), percent: 50, kind: 'done', cause: 'resumed', step: 1, waitsFor: null, gate: false }],
    };
    rerender(<RampChart rollout={{ ...ROLLED_BACK, status: 'active', percent: 50, updatedAt: iso(NOW + 60_000) }} now={NOW + 60_000} />);
    expect(timeline()).toHaveLength(5);
    await waitFor(() => expect(timeline().at(-1)).toEqual([formatTime(iso(NOW + 60_000)), '50%', 'resumed', 'done']));
    expect(requests).toHaveLength(2);
  });

  it('says when the ramp cannot be read', async () => {
    const { client } = fakeApi(() => ({ status: 500, body: envelope('internal', 'boom') }));
    setApi(client);
    render(<RampChart rollout={ROLLED_BACK} now={NOW} />);
    expect((await screen.findByRole('alert')).textContent).toBe('The ramp could not be read.');
  });

  it.each([
    [{ kind: 'done', cause: 'created', step: 0 }, 'started'],
    [{ kind: 'done', cause: 'approval_gate', step: 0 }, 'approval gate'],
    [{ kind: 'done', cause: 'current', step: 1 }, 'at this percent'],
    [{ kind: 'planned', cause: 'step', step: 1 }, 'step 2'],
    [{ kind: 'planned', cause: 'approval_gate', step: 0 }, 'approval gate'],
    [{ kind: 'planned', cause: 'resumed', step: 1 }, 'resumes'],
    [{ kind: 'planned', cause: 'completed', step: 2 }, 'completes'],
  ] as const)('labels %o as "%s"', (mark, label) => {
    expect(markLabel(mark)).toBe(label);
  });
});
