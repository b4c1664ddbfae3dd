// @vitest-environment jsdom
import { act, cleanup, render, screen, waitFor } from '@testing-library/react';
import type { Environment, Flag, Project } from '@gradual/sdk';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setApi } from '../api';
import { envelope, fakeApi } from '../test/fake-api';
import { FakeEventSource } from '../test/fake-event-source';
import { flagDefinition } from '../test/fixtures';
import { ProjectPage } from './Project';

const PROJECT = '00000000-0000-4000-8000-0000000000a1';
const OTHER_PROJECT = '00000000-0000-4000-8000-0000000000a2';
const T = '2026-11-20T10:00:00.000Z';
const PROD: Environment = { id: '00000000-0000-4000-8000-0000000000e1', projectId: PROJECT, key: 'production', name: 'Production', version: 4, createdAt: T };
const P: Project = { id: PROJECT, orgId: '00000000-0000-4000-8000-0000000000o1', key: 'web', name: 'Web shop', targetIdField: 'userId', createdAt: T, updatedAt: T };

function flag(key: string, id: string, extra: Partial<Flag> = {}): Flag {
  return flagDefinition({ id: `00000000-0000-4000-8000-0000000000${id}`, projectId: PROJECT, key, name: key, createdAt: T, updatedAt: T, ...extra });
}

beforeEach(() => {
  FakeEventSource.made = [];
  vi.stubGlobal('EventSource', FakeEventSource);
  window.history.replaceState(null, '', `/app/o/acme/p/${PROJECT}`);
});
afterEach(() => {
  cleanup();
  setApi(undefined);
  vi.unstubAllGlobals();
});

/** The project page over a fake API whose flag list the test changes, as a write elsewhere would. */
function renderPage() {
  const data = { flags: [flag('new-checkout', 'f1')] };
  const { client, requests } = fakeApi(({ method, path }) => {
    if (method !== 'GET') return { status: 404, body: envelope('not_found', 'no route') };
    if (path === `/api/v1/projects/${PROJECT}`) return { status: 200, body: P };
    if (path === `/api/v1/projects/${PROJECT}/environments`) return { status: 200, body: [PROD] };
    if (path === `/api/v1/projects/${PROJECT}/flags`) return { status: 200, body: data.flags };
    if (path === `/api/v1/projects/${PROJECT}/configs`) return { status: 200, body: [] };
    if (path === `/api/v1/envs/${PROD.id}/flags` || path === `/api/v1/envs/${PROD.id}/configs`) return { status: 200, body: [] };
    return { status: 404, body: envelope('not_found', 'no route') };
  });
  setApi(client);
  render(<ProjectPage slug="acme" projectId={PROJECT} />);
  const flagLists = () => requests.filter((r) => r.path === `/api/v1/projects/${PROJECT}/flags`).length;
  return { data, flagLists };
}

describe('ProjectPage live', () => {
  it('lists a flag created elsewhere and drops one archived elsewhere, on the organization stream, with one connection for the page', async () => {
    const { data, flagLists } = renderPage();
    await screen.findByText('new-checkout', { selector: 'code' });
    expect(FakeEventSource.made).toHaveLength(1); // the page and its matrix share the organization stream
    const [es] = FakeEventSource.made;
    expect(es!.url).toBe(`${window.location.origin}/api/v1/orgs/acme/events`);
    act(() => es!.emit('ready', { orgId: P.orgId }));
    const before = flagLists();

    // Another project's write: nothing to read again.
    act(() => es!.emit('org-change', { projectId: OTHER_PROJECT, changes: [{ resourceType: 'flag', resourceKey: 'elsewhere', action: 'flag.created' }] }));
    await new Promise((r) => setTimeout(r, 200));
    expect(flagLists()).toBe(before);

    // A flag created in this project (announced in its environment, as the write moved it).
    data.flags = [...data.flags, flag('fresh-search', 'f2')];
    act(() => es!.emit('change', { envId: PROD.id, version: 5, changes: [{ resourceType: 'flag', resourceKey: 'fresh-search', action: 'flag.created' }] }));
    await screen.findByText('fresh-search', { selector: 'code' });

    // A definition edited outside any environment: renamed.
    data.flags = data.flags.map((f) => (f.key === 'new-checkout' ? { ...f, name: 'Checkout, renamed' } : f));
    act(() => es!.emit('org-change', { projectId: PROJECT, changes: [{ resourceType: 'flag', resourceKey: 'new-checkout', action: 'flag.updated' }] }));
    await screen.findByText('Checkout, renamed');

    // Archived elsewhere: the list (archived hidden) no longer has it.
    data.flags = data.flags.filter((f) => f.key !== 'new-checkout');
    act(() => es!.emit('change', { envId: PROD.id, version: 6, changes: [{ resourceType: 'flag', resourceKey: 'new-checkout', action: 'flag.archived' }] }));
    await waitFor(() => expect(screen.queryByText('new-checkout', { selector: 'code' })).toBeNull());
  });
});
