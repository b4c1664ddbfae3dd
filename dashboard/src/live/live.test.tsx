// @vitest-environment jsdom
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LiveIndicator } from './LiveIndicator';
import { backoffMs, mentions, useLiveReload, type LiveSource } from './live';

/** A stand-in for the browser's EventSource: the test opens, fails and feeds each instance. */
class FakeEventSource {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSED = 2;
  static made: FakeEventSource[] = [];
  readyState = FakeEventSource.CONNECTING;
  onerror: (() => void) | null = null;
  closed = false;
  private readonly handlers = new Map<string, Array<(e: { data: string }) => void>>();
  constructor(readonly url: string) {
    FakeEventSource.made.push(this);
  }
  addEventListener(name: string, handler: (e: { data: string }) => void) {
    this.handlers.set(name, [...(this.handlers.get(name) ?? []), handler]);
  }
  close() {
    this.closed = true;
    this.readyState = FakeEventSource.CLOSED;
  }
  emit(name: string, data: unknown) {
    for (const handler of this.handlers.get(name) ?? []) handler({ data: JSON.stringify(data) });
  }
  /** A dropped connection the browser retries (CONNECTING), or a refused one it gives up (CLOSED). */
  fail(closed: boolean) {
    this.readyState = closed ? FakeEventSource.CLOSED : FakeEventSource.CONNECTING;
    this.onerror?.();
  }
}

function Page({ source, reload, keyName }: { source: LiveSource; reload: () => void; keyName?: string }) {
  useLiveReload(source, reload, keyName ? (e) => mentions(e, keyName) : undefined);
  return <LiveIndicator />;
}

const ENV = '00000000-0000-4000-8000-00000000000e';
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

  it('backs off from 1 s doubling to 30 s', () => {
    expect([0, 1, 2, 3, 4, 5, 10].map(backoffMs)).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  });
});
