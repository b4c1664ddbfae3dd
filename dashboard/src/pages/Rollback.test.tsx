// @vitest-environment jsdom
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setApi } from '../api';
import { SessionProvider } from '../session';
import { fakeApi } from '../test/fake-api';
import { FakeEventSource } from '../test/fake-event-source';
import { RollbackPage } from './Rollback';

const T = '2026-11-23T10:00:00.000Z';
const ORG = '00000000-0000-4000-8000-0000000000c1';
const PROJECT = '00000000-0000-4000-8000-0000000000a1';
const ENV = '00000000-0000-4000-8000-0000000000e1';
const OTHER_ENV = '00000000-0000-4000-8000-0000000000e2';

const secret = (n: number, name: string) => ({ id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`, name, tokenPrefix: 'svcrb_ab', createdAt: T, lastFiredAt: null, revokedAt: null });

beforeEach(() => {
  FakeEventSource.made = [];
  vi.stubGlobal('EventSource', FakeEventSource);
  window.history.replaceState(null, '', `/app/o/acme/p/${PROJECT}/e/${ENV}/rollback`);
});
afterEach(() => {
  cleanup();
  setApi(undefined);
  vi.unstubAllGlobals();
});

/** The rollback page over a fake API whose secret list the test changes, as a write elsewhere would. */
function renderPage() {
  const data: { secrets: Array<ReturnType<typeof secret>>; fires: unknown[] } = { secrets: [secret(1, 'grafana-prod')], fires: [] };
  const { client, requests } = fakeApi(({ path }) => {
    if (path === `/api/v1/projects/${PROJECT}`) return { status: 200, body: { id: PROJECT, orgId: ORG, key: 'web', name: 'Web', createdAt: T } };
    if (path === `/api/v1/envs/${ENV}`) return { status: 200, body: { id: ENV, projectId: PROJECT, key: 'prod', name: 'Prod', version: 4, createdAt: T } };
    if (path === `/api/v1/envs/${ENV}/rollback-webhook-secrets`) return { status: 200, body: data.secrets };
    if (path === `/api/v1/envs/${ENV}/rollback-fires`) return { status: 200, body: { fires: data.fires } };
    return { status: 401, body: { error: { code: 'unauthorized', message: 'Sign in.', requestId: 'req-test' } } };
  });
  setApi(client);
  render(
    <SessionProvider>
      <RollbackPage slug="acme" projectId={PROJECT} envId={ENV} />
    </SessionProvider>,
  );
  const secretLists = () => requests.filter((r) => r.path === `/api/v1/envs/${ENV}/rollback-webhook-secrets`).length;
  return { data, secretLists };
}

const minted = (envId: string | null, name: string) => ({
  projectId: PROJECT,
  envId,
  changes: [{ resourceType: 'rollback_secret', resourceKey: name, action: 'rollback_secret.created' }],
});

describe('RollbackPage live', () => {
  it('lists a secret minted elsewhere (an org-change of its environment) and reads again on a rollback or any other fire, not on other environments’ writes', async () => {
    const { data, secretLists } = renderPage();
    await screen.findByText('grafana-prod');
    expect(FakeEventSource.made).toHaveLength(1);
    const [es] = FakeEventSource.made;
    expect(es!.url).toBe(`${window.location.origin}/api/v1/orgs/acme/events`);
    act(() => es!.emit('ready', { orgId: ORG }));
    const before = secretLists();

    // Another environment's secret and rollout, and a write of no environment: nothing to read again.
    vi.useFakeTimers();
    try {
      act(() => {
        es!.emit('org-change', minted(OTHER_ENV, 'elsewhere'));
        es!.emit('org-change', { projectId: PROJECT, envId: null, changes: [{ resourceType: 'flag', resourceKey: 'checkout', action: 'flag.created' }] });
        es!.emit('change', { envId: OTHER_ENV, version: 9, changes: [{ resourceType: 'rollout', resourceKey: 'checkout', action: 'rollout.rolled_back' }] });
      });
      act(() => {
        vi.advanceTimersByTime(500);
      });
      expect(secretLists()).toBe(before);
    } finally {
      vi.useRealTimers();
    }

    data.secrets = [secret(2, 'datadog-prod'), ...data.secrets];
    act(() => es!.emit('org-change', minted(ENV, 'datadog-prod')));
    await screen.findByText('datadog-prod');
    expect(secretLists()).toBe(before + 1);

    act(() => es!.emit('change', { envId: ENV, version: 5, changes: [{ resourceType: 'rollout', resourceKey: 'checkout', action: 'rollout.rolled_back' }] }));
    await vi.waitFor(() => expect(secretLists()).toBe(before + 2));

    // A fire that moved no rollout (here a wrong secret) has no audit row: its org-change brings it into the history.
    data.fires = [
      { id: '00000000-0000-4000-8000-0000000000f1', rolloutId: null, secretId: null, secretName: null, primitiveKind: 'flag', primitiveKey: 'checkout', outcome: 'error_unauthorized', sourceIp: '10.0.0.9', parsedMonitorUrl: null, payloadFingerprint: 'ab', firedAt: T },
    ];
    act(() => es!.emit('org-change', { projectId: PROJECT, envId: ENV, changes: [{ resourceType: 'rollout', resourceKey: 'checkout', action: 'rollback.fired' }] }));
    await screen.findByText('Unauthorized');
  });
});
