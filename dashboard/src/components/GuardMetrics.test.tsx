// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import type { GuardMetric } from '@gradual/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { setApi } from '../api';
import { envelope, fakeApi } from '../test/fake-api';
import { GuardMetrics } from './GuardMetrics';

const PROJECT = '00000000-0000-4000-8000-000000000002';
const PATH = `/api/v1/projects/${PROJECT}/guard-metrics`;
const ERRORS: GuardMetric = {
  key: 'checkout-errors',
  name: 'Checkout errors',
  description: '',
  kind: 'count',
  worse: 'higher',
  event: 'checkout-errors',
  prometheus: null,
  createdAt: '2026-12-01T00:00:00.000Z',
  updatedAt: '2026-12-01T00:00:00.000Z',
};

afterEach(() => {
  cleanup();
  setApi(undefined);
});

describe('GuardMetrics', () => {
  it('lists the metrics, defines one with its kind, direction and event, and shows why one in use cannot be deleted', async () => {
    const defined: GuardMetric[] = [ERRORS];
    const { client, requests } = fakeApi((req) => {
      if (req.method === 'GET' && req.path === PATH) return { status: 200, body: defined };
      if (req.method === 'POST' && req.path === PATH) {
        const made = { ...ERRORS, ...(req.body as object) };
        defined.push(made);
        return { status: 201, body: made };
      }
      if (req.method === 'DELETE') return { status: 409, body: envelope('guard_metric_in_use', 'The guard metric is watched by plan "guarded".') };
      return { status: 404, body: envelope('not_found', 'no') };
    });
    setApi(client);
    render(<GuardMetrics projectId={PROJECT} />);
    await screen.findByRole('button', { name: 'Delete guard metric checkout-errors' });

    fireEvent.change(screen.getByLabelText('Metric key'), { target: { value: 'latency' } });
    fireEvent.change(screen.getByLabelText('Metric kind'), { target: { value: 'mean' } });
    fireEvent.change(screen.getByLabelText('SDK event'), { target: { value: 'checkout-latency' } });
    fireEvent.click(screen.getByRole('button', { name: 'Define metric' }));
    await screen.findByText('checkout-latency', { selector: 'td code' });
    expect(requests.find((r) => r.method === 'POST')!.body).toEqual({ key: 'latency', name: 'latency', kind: 'mean', worse: 'higher', event: 'checkout-latency' });

    fireEvent.click(screen.getByRole('button', { name: 'Delete guard metric checkout-errors' }));
    await waitFor(() => expect(screen.getByRole('alert').textContent).toContain('watched by plan "guarded"'));
  });
});
