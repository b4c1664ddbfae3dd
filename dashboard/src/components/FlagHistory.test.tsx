// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { setApi } from '../api';
import { envelope, fakeApi } from '../test/fake-api';
import { FlagHistory, HISTORY_PAGE_SIZE } from './FlagHistory';

afterEach(() => {
  cleanup();
  setApi(undefined);
});

const ENV = '00000000-0000-4000-8000-0000000000e1';

let n = 0;
function event(action: string, resourceType: string, createdAt: string, extra: Record<string, unknown> = {}) {
  n += 1;
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    createdAt,
    actorType: 'user',
    actorId: '00000000-0000-4000-8000-0000000000u1',
    actorEmail: 'olive@example.com',
    delegatorUserId: null,
    approverUserId: null,
    resourceType,
    resourceKey: 'new-checkout',
    resourceId: null,
    envId: ENV,
    action,
    version: 7,
    reason: null,
    ...extra,
  };
}

describe('FlagHistory', () => {
  it('lists this flag’s audit rows in this environment, newest first, and pages to older ones', async () => {
    const newest = event('rollout.created', 'rollout', '2026-11-23T10:00:00.000Z', { reason: 'ship it', version: 9 });
    const sameKeyConfig = event('config.update_value', 'config', '2026-11-23T09:00:00.000Z');
    const value = event('flag.update_value', 'flag', '2026-11-22T10:00:00.000Z', { actorType: 'system', actorId: null, actorEmail: undefined });
    const created = event('flag.created', 'flag', '2026-11-20T10:00:00.000Z', { envId: null, version: null });
    const archived = event('flag.archived', 'flag', '2026-11-23T09:30:00.000Z', { envId: null, version: null });
    const otherRestored = event('config.restored', 'config', '2026-11-23T09:20:00.000Z', { envId: null, version: null });
    const { client, requests } = fakeApi(({ method, path, query }) => {
      if (method !== 'GET' || path !== '/api/v1/orgs/acme/audit') return { status: 404, body: envelope('not_found', 'no route') };
      return query.get('cursor') === 'page-2'
        ? { status: 200, body: { events: [created], nextCursor: null } }
        : { status: 200, body: { events: [newest, archived, sameKeyConfig, otherRestored, value], nextCursor: 'page-2' } };
    });
    setApi(client);

    render(<FlagHistory slug="acme" envId={ENV} kind="flag" primitiveKey="new-checkout" />);
    const table = await screen.findByRole('table');
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((r) => r.getAttribute('data-action'))).toEqual(['rollout.created', 'flag.archived', 'flag.update_value']);
    expect(rows[0]!.textContent).toContain('olive@example.com');
    expect(rows[0]!.textContent).toContain('“ship it”');
    expect(rows[0]!.lastElementChild?.textContent).toBe('9');
    expect(rows[2]!.textContent).toContain('scheduler');
    expect(rows[1]!.lastElementChild?.textContent).toBe('—'); // a project-level row has no environment version

    const first = requests[0]!.query;
    expect(first.get('resourceKey')).toBe('new-checkout');
    expect(first.get('envId')).toBe(ENV);
    expect(first.get('includeProjectRows')).toBe('true'); // creation, details, archive and restore name no environment
    expect(first.get('limit')).toBe(String(HISTORY_PAGE_SIZE));
    expect(first.has('resourceType')).toBe(false);

    fireEvent.click(screen.getByRole('button', { name: 'Older entries' }));
    await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(5));
    expect(requests[1]!.query.get('cursor')).toBe('page-2');
    expect(requests[1]!.query.get('resourceKey')).toBe('new-checkout');
    expect(requests[1]!.query.get('includeProjectRows')).toBe('true');
    expect(within(table).getAllByRole('row')[4]!.getAttribute('data-action')).toBe('flag.created');
    expect(screen.queryByRole('button', { name: 'Older entries' })).toBeNull();

    const full = screen.getByRole('link', { name: 'Details in the audit log' });
    expect(full.getAttribute('href')).toBe(`/app/o/acme/audit?resourceKey=new-checkout&envId=${ENV}&includeProjectRows=true`);
  });

  it('loads again when the state on the page changes', async () => {
    let calls = 0;
    setApi(
      fakeApi(() => {
        calls += 1;
        return { status: 200, body: { events: calls === 1 ? [] : [event('rollout.paused', 'rollout', '2026-11-23T11:00:00.000Z')], nextCursor: null } };
      }).client,
    );
    const { rerender } = render(<FlagHistory slug="acme" envId={ENV} kind="flag" primitiveKey="new-checkout" refresh="v1" />);
    await screen.findByText('No changes recorded in this environment yet.');
    rerender(<FlagHistory slug="acme" envId={ENV} kind="flag" primitiveKey="new-checkout" refresh="v2" />);
    await screen.findByText('Rollout paused');
  });

  it('keeps the entries on screen while it reads them again', async () => {
    let answer = (): unknown => ({ events: [event('rollout.paused', 'rollout', '2026-11-23T11:00:00.000Z')], nextCursor: null });
    let release = () => {};
    setApi(
      fakeApi(async () => ({ status: 200, body: await answer() })).client,
    );
    const { rerender } = render(<FlagHistory slug="acme" envId={ENV} kind="flag" primitiveKey="new-checkout" refresh="v1" />);
    await screen.findByText('Rollout paused');
    const gate = new Promise<void>((r) => (release = r));
    answer = () => gate.then(() => ({ events: [event('rollout.resumed', 'rollout', '2026-11-23T12:00:00.000Z'), event('rollout.paused', 'rollout', '2026-11-23T11:00:00.000Z')], nextCursor: null }));
    rerender(<FlagHistory slug="acme" envId={ENV} kind="flag" primitiveKey="new-checkout" refresh="v2" />);
    expect(screen.getByText('Rollout paused')).toBeTruthy();
    expect(screen.queryByText('Loading…')).toBeNull();
    release();
    await screen.findByText('Rollout resumed');
  });

  it('offers older entries when a page held only the other kind’s rows of the same key', async () => {
    setApi(
      fakeApi(({ query }) =>
        query.get('cursor')
          ? { status: 200, body: { events: [event('flag.update_rules', 'flag', '2026-11-20T10:00:00.000Z')], nextCursor: null } }
          : { status: 200, body: { events: [event('config.update_value', 'config', '2026-11-23T10:00:00.000Z')], nextCursor: 'page-2' } },
      ).client,
    );
    render(<FlagHistory slug="acme" envId={ENV} kind="flag" primitiveKey="new-checkout" />);
    const older = await screen.findByRole('button', { name: 'Older entries' });
    expect(screen.queryByText('No changes recorded in this environment yet.')).toBeNull();
    fireEvent.click(older);
    await screen.findByText('Flag rules changed');
    expect(screen.queryByText('Config value changed')).toBeNull();
  });

  it('shows why the history could not be read', async () => {
    setApi(fakeApi(() => ({ status: 403, body: envelope('insufficient_role', 'Not allowed.') })).client);
    render(<FlagHistory slug="acme" envId={ENV} kind="config" primitiveKey="new-checkout" />);
    await waitFor(() => expect(screen.getByRole('alert')).toBeTruthy());
  });
});
