// @vitest-environment jsdom
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeEventSource } from '../test/fake-event-source';
import { LiveIndicator } from './LiveIndicator';
import { backoffMs, environmentWrites, mentions, orgResources, parseLiveChangeEvent, parseLiveOrgChangeEvent, projectResources, useLiveReload, type LiveCause, type LiveFilter, type LiveSource } from './live';

function Page({ source, reload, keyName, filter }: { source: LiveSource; reload: (cause: LiveCause) => void; keyName?: string; filter?: LiveFilter }) {
  useLiveReload(source, reload, filter ?? (keyName ? { change: (e) => mentions(e, keyName) } : undefined));
  return <LiveIndicator />;
}

const ENV = '00000000-0000-4000-8000-00000000000e';
const OTHER_ENV = '00000000-0000-4000-8000-00000000000f';
const PROJECT = '00000000-0000-4000-8000-0000000000a1';
const OTHER_PROJECT = '00000000-0000-4000-8000-0000000000a2';
const orgChange = (projectId: string | null, resourceKey: string) => ({ projectId, envId: null, changes: [{ resourceType: 'flag', resourceKey, action: 'flag.updated' }] });
const change = (resourceKey: string) => ({ envId: ENV, version: 3, changes: [{ resourceType: 'rollout', resourceKey, action: 'rollout.advanced' }] });

beforeEach(() => {
  vi.useFakeTimers();
  FakeEventSource.made = [];
  vi.stubGlobal('EventSource', FakeEventSource);
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe('useLiveReload', () => {
  it('subscribes to the environment, reloads once per burst of relevant changes, and says Live in text', () => {
    const reload = vi.fn();
    render(<Page source={{ envId: ENV }} reload={reload} keyName="checkout" />);
    const [es] = FakeEventSource.made;
    expect(es!.url).toBe(`${window.location.origin}/api/v1/envs/${ENV}/events`);
    expect(screen.getByTestId('live-indicator').textContent).toBe('Connecting…');
    act(() => es!.emit('ready', { envId: ENV, version: 2 }));
    expect(screen.getByTestId('live-indicator').textContent).toBe('Live');
    expect(reload).not.toHaveBeenCalled();

    act(() => es!.emit('change', change('search')));
    act(() => void vi.advanceTimersByTime(500));
    expect(reload).not.toHaveBeenCalled(); // another flag's change
    act(() => {
      es!.emit('change', change('checkout'));
      es!.emit('change', change('checkout'));
    });
    act(() => void vi.advanceTimersByTime(150));
    expect(reload).toHaveBeenCalledTimes(1);
  });

  it('shows Reconnecting…, reopens a refused stream with backoff, and reloads once back', () => {
    const reload = vi.fn();
    render(<Page source={{ orgSlug: 'acme' }} reload={reload} />);
    const first = FakeEventSource.made[0]!;
    expect(first.url).toBe(`${window.location.origin}/api/v1/orgs/acme/events`);
    act(() => first.emit('ready', { orgId: 'o' }));
    act(() => first.fail(false)); // dropped: the browser retries itself
    expect(screen.getByTestId('live-indicator').textContent).toBe('Reconnecting…');
    expect(FakeEventSource.made).toHaveLength(1);
    act(() => first.fail(true)); // refused: opened again after the backoff
    act(() => void vi.advanceTimersByTime(backoffMs(0) - 1));
    expect(FakeEventSource.made).toHaveLength(1);
    act(() => void vi.advanceTimersByTime(1));
    const second = FakeEventSource.made[1]!;
    act(() => second.fail(true));
    act(() => void vi.advanceTimersByTime(backoffMs(1)));
    const third = FakeEventSource.made[2]!;
    act(() => third.emit('ready', { orgId: 'o' }));
    expect(screen.getByTestId('live-indicator').textContent).toBe('Live');
    act(() => void vi.advanceTimersByTime(150));
    expect(reload).toHaveBeenCalledTimes(1); // changes in between were not announced
  });

  it('closes the stream and hides the indicator when the page goes', () => {
    const { unmount } = render(<Page source={{ envId: ENV }} reload={() => {}} />);
    unmount();
    expect(FakeEventSource.made[0]!.closed).toBe(true);
    render(<LiveIndicator />);
    expect(screen.queryByTestId('live-indicator')).toBeNull();
  });

  it('follows org-change events with their own filter and says what caused the reload', () => {
    const reload = vi.fn();
    const filter = projectResources(PROJECT, ['flag'], { key: 'checkout', envIds: [ENV] });
    render(<Page source={{ orgSlug: 'acme' }} reload={reload} filter={filter} />);
    const [es] = FakeEventSource.made;
    act(() => es!.emit('ready', { orgId: 'o' }));

    act(() => {
      es!.emit('org-change', orgChange(OTHER_PROJECT, 'checkout')); // another project's flag of the same key
      es!.emit('org-change', orgChange(PROJECT, 'search'));
      es!.emit('org-change', { projectId: PROJECT }); // not an org-change event: ignored
      es!.emit('change', { ...change('checkout'), envId: '00000000-0000-4000-8000-0000000000ff' }); // another environment
    });
    act(() => void vi.advanceTimersByTime(150));
    expect(reload).not.toHaveBeenCalled();

    act(() => es!.emit('org-change', orgChange(PROJECT, 'checkout')));
    act(() => void vi.advanceTimersByTime(150));
    expect(reload).toHaveBeenCalledTimes(1);
    expect(reload).toHaveBeenLastCalledWith({ change: false, orgChange: true });

    act(() => {
      es!.emit('org-change', orgChange(PROJECT, 'checkout'));
      es!.emit('change', { envId: ENV, version: 4, changes: [{ resourceType: 'flag', resourceKey: 'checkout', action: 'flag.created' }] });
    });
    act(() => void vi.advanceTimersByTime(150));
    expect(reload).toHaveBeenCalledTimes(2);
    expect(reload).toHaveBeenLastCalledWith({ change: true, orgChange: true });
  });

  it('shares one connection between the subscriptions of a source, closing it with the last', () => {
    const members = vi.fn();
    const keys = vi.fn();
    const { unmount } = render(
      <>
        <Page source={{ orgSlug: 'acme' }} reload={members} filter={orgResources('member')} />
        <Page source={{ orgSlug: 'acme' }} reload={keys} filter={orgResources('api_token')} />
      </>,
    );
    expect(FakeEventSource.made).toHaveLength(1);
    const [es] = FakeEventSource.made;
    act(() => es!.emit('ready', { orgId: 'o' }));
    act(() => es!.emit('org-change', { projectId: null, changes: [{ resourceType: 'member', resourceKey: 'a@example.com', action: 'member.role_changed' }] }));
    act(() => void vi.advanceTimersByTime(150));
    expect(members).toHaveBeenCalledTimes(1);
    expect(keys).not.toHaveBeenCalled();
    expect(screen.getAllByTestId('live-indicator').map((n) => n.textContent)).toEqual(['Live', 'Live']);
    unmount();
    expect(es!.closed).toBe(true);
  });

  it('backs off from 1 s doubling to 30 s', () => {
    expect([0, 1, 2, 3, 4, 5, 10].map(backoffMs)).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  });
});

describe('event data', () => {
  it('reads a change and an org-change as the SDK types them, and nothing else', () => {
    const data = { envId: ENV, version: 3, changes: [{ resourceType: 'rollout', resourceKey: null, action: 'rollout.advanced' }] };
    expect(parseLiveChangeEvent(data)).toEqual(data);
    expect(parseLiveChangeEvent({ ...data, extra: 1 })).toEqual(data);
    expect(parseLiveChangeEvent({ ...data, version: '3' })).toBeNull();
    expect(parseLiveChangeEvent({ ...data, changes: [{ resourceType: 'rollout', action: 'x' }] })).toBeNull();
    expect(parseLiveChangeEvent(null)).toBeNull();
    const org = { projectId: null, envId: null, changes: [{ resourceType: 'member', resourceKey: 'a@example.com', action: 'member.removed' }] };
    expect(parseLiveOrgChangeEvent(org)).toEqual(org);
    const secret = { projectId: PROJECT, envId: ENV, changes: [{ resourceType: 'rollback_secret', resourceKey: 'alerts', action: 'rollback_secret.created' }] };
    expect(parseLiveOrgChangeEvent(secret)).toEqual(secret);
    expect(parseLiveOrgChangeEvent({ projectId: PROJECT, changes: [] })).toEqual({ projectId: PROJECT, envId: null, changes: [] }); // an older server's
    expect(parseLiveOrgChangeEvent({ changes: [] })).toBeNull();
    expect(parseLiveOrgChangeEvent({ projectId: 7, changes: [] })).toBeNull();
    expect(parseLiveOrgChangeEvent({ projectId: PROJECT, envId: 7, changes: [] })).toBeNull();
    expect(parseLiveOrgChangeEvent([])).toBeNull();
  });

  it('matches a resource by key and type, and an empty list as unknown', () => {
    const e = { changes: [{ resourceType: 'config', resourceKey: 'checkout', action: 'config.updated' }] };
    expect(mentions(e, 'checkout')).toBe(true);
    expect(mentions(e, 'checkout', ['flag', 'rollout'])).toBe(false);
    expect(mentions({ changes: [] }, 'checkout', ['flag'])).toBe(true);
    const segments = projectResources(PROJECT, ['segment']);
    expect(segments.orgChange({ projectId: PROJECT, envId: null, changes: [{ resourceType: 'segment', resourceKey: 'beta', action: 'segment.created' }] })).toBe(true);
    expect(segments.orgChange({ projectId: PROJECT, envId: null, ...e })).toBe(false);
    expect(segments.orgChange({ projectId: null, envId: null, changes: [{ resourceType: 'segment', resourceKey: 'beta', action: 'segment.created' }] })).toBe(false);
    const proposal = { projectId: PROJECT, changes: [{ resourceType: 'proposal', resourceKey: 'checkout', action: 'proposal.created' }] };
    const inEnv = projectResources(PROJECT, ['flag', 'proposal'], { key: 'checkout', envIds: [ENV] });
    expect(inEnv.orgChange({ ...proposal, envId: ENV })).toBe(true);
    expect(inEnv.orgChange({ ...proposal, envId: OTHER_ENV })).toBe(false);
    expect(inEnv.orgChange({ ...proposal, envId: null })).toBe(true);
    const created = { projectId: PROJECT, envId: OTHER_ENV, changes: [{ resourceType: 'environment', resourceKey: 'qa', action: 'environment.created' }] };
    expect(projectResources(PROJECT, ['flag', 'environment'], { envIds: [ENV] }).orgChange(created)).toBe(true); // not known yet, but about itself
    expect(projectResources(PROJECT, ['flag', 'environment'], { envIds: [ENV] }).change({ ...created, version: 1 })).toBe(true);
    expect(inEnv.orgChange(created)).toBe(false);
  });

  it('follows every write of one environment, with its version moved or not', () => {
    const writes = environmentWrites(ENV);
    const secret = { projectId: PROJECT, changes: [{ resourceType: 'rollback_secret', resourceKey: 'alerts', action: 'rollback_secret.created' }] };
    expect(writes.orgChange({ ...secret, envId: ENV })).toBe(true);
    expect(writes.orgChange({ ...secret, envId: OTHER_ENV })).toBe(false);
    expect(writes.orgChange({ ...secret, envId: null })).toBe(false);
    expect(writes.change(change('checkout'))).toBe(true);
    expect(writes.change({ ...change('checkout'), envId: OTHER_ENV })).toBe(false);
  });
});
