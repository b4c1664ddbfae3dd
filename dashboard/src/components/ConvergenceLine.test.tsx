// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react';
import type { Convergence } from '@gradual/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { setApi } from '../api';
import { envelope, fakeApi } from '../test/fake-api';
import { ConvergenceLine, convergenceText } from './ConvergenceLine';

const ENV = '00000000-0000-4000-8000-000000000003';
const LEDGER: Convergence = {
  envId: ENV,
  version: 42,
  at: '2026-12-02T10:00:00.000Z',
  windowSeconds: 300,
  instances: 1204,
  current: 1199,
  currentShare: 1199 / 1204,
  versions: [{ version: 42, committedAt: '2026-12-02T09:59:00.000Z', instances: 1199, p50Ms: 40, p99Ms: 180 }],
  laggards: [{ instanceId: 'pod-7', sdk: { name: 'gradual-go', version: '0.3.1' }, service: 'billing', mode: 'poll', version: 41, lastSeen: '2026-12-02T09:58:00.000Z' }],
  bySdk: [{ name: '@gradual/sdk', version: '0.1.0', instances: 1204, current: 1199 }],
};

afterEach(() => {
  cleanup();
  setApi(undefined);
});

describe('ConvergenceLine', () => {
  it('reads the ledger in one line, the laggards under a disclosure', async () => {
    const { client } = fakeApi((req) => (req.path === `/api/v1/envs/${ENV}/convergence` ? { status: 200, body: LEDGER } : { status: 404, body: envelope('not_found', 'no') }));
    setApi(client);
    render(<ConvergenceLine envId={ENV} version={42} />);
    expect(await screen.findByText('1,204 SDK instances · 99.6 % on v42 · p99 180 ms · 5 laggards')).toBeTruthy();
    expect(screen.getByText('pod-7')).toBeTruthy();
  });

  it('says when nobody acknowledged, and names the version a time belongs to when it is not the current one', () => {
    expect(convergenceText({ ...LEDGER, instances: 0, current: 0, currentShare: null, versions: [], laggards: [], bySdk: [] })).toBe('No SDK instance acknowledged a ruleset in the last 5 minutes');
    expect(convergenceText({ ...LEDGER, version: 43, current: 0, currentShare: 0 })).toBe('1,204 SDK instances · 0.0 % on v43 · p99 180 ms (v42) · 1,204 laggards');
  });
});
