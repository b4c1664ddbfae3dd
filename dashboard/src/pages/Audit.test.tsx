// @vitest-environment jsdom
import { act, cleanup, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setApi } from '../api';
import { fakeApi } from '../test/fake-api';
import { FakeEventSource } from '../test/fake-event-source';
import { AuditPage } from './Audit';

const ENV = '00000000-0000-4000-8000-0000000000e1';
const PROJECT = '00000000-0000-4000-8000-0000000000a1';

function row(n: number, action: string, resourceType: string, resourceKey: string, envId: string | null) {
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    createdAt: `2026-11-23T10:0${n}:00.000Z`,
    actorType: 'user',
    actorId: '00000000-0000-4000-8000-0000000000b1',
    actorEmail: 'olive@example.com',
    delegatorUserId: null,
    approverUserId: null,
    resourceType,
    resourceKey,
    resourceId: null,
    envId,
    action,
    version: envId ? 3 : null,
    reason: null,
  };
}

beforeEach(() => {
  FakeEventSource.made = [];
  vi.stubGlobal('EventSource', FakeEventSource);
});
afterEach(() => {
  cleanup();
  setApi(undefined);
  vi.unstubAllGlobals();
});

describe('AuditPage', () => {
  it('lists a write outside any environment as soon as the organization stream announces it', async () => {
    window.history.replaceState(null, '', '/app/o/acme/audit');
    let events = [row(1, 'flag.created', 'flag', 'new-checkout', null)];
    const { client, requests } = fakeApi(() => ({ status: 200, body: { events, nextCursor: null } }));
    setApi(client);
    render(<AuditPage slug="acme" />);
    await screen.findByText('new-checkout');
    const [es] = FakeEventSource.made;
    expect(es!.url).toBe(`${window.location.origin}/api/v1/orgs/acme/events`);
    act(() => es!.emit('ready', { orgId: 'o' }));

    events = [row(2, 'segment.created', 'segment', 'beta-testers', null), ...events];
    act(() => es!.emit('org-change', { projectId: PROJECT, changes: [{ resourceType: 'segment', resourceKey: 'beta-testers', action: 'segment.created' }] }));
    await screen.findByText('beta-testers');
    expect(requests).toHaveLength(2);
  });

  it('widens an environment filter to its project’s rows when the address asks (a flag’s history links so)', async () => {
    window.history.replaceState(null, '', `/app/o/acme/audit?resourceKey=new-checkout&envId=${ENV}&includeProjectRows=true`);
    const { client, requests } = fakeApi(() => ({ status: 200, body: { events: [row(1, 'flag.archived', 'flag', 'new-checkout', null)], nextCursor: null } }));
    setApi(client);
    render(<AuditPage slug="acme" />);
    await waitFor(() => expect(requests).toHaveLength(1));
    expect(requests[0]!.query.get('includeProjectRows')).toBe('true');
    expect(requests[0]!.query.get('envId')).toBe(ENV);
    await screen.findByText(/and its project/);
  });
});
