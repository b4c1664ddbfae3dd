import { useEffect, useLayoutEffect, useRef, useSyncExternalStore } from 'react';

/** What a page follows: one environment, or every environment of an organization (audit log, lists). */
export type LiveSource = { envId: string } | { orgSlug: string };

/** One committed write, as the server's event stream announces it. */
export interface LiveChangeEvent {
  envId: string;
  version: number;
  changes: Array<{ resourceType: string; resourceKey: string | null; action: string }>;
}

export type LiveStatus = 'connecting' | 'live' | 'reconnecting';

/** The server's event stream of a source (same origin: the session cookie authenticates it). */
export function liveUrl(source: LiveSource, origin = window.location.origin): string {
  const path = 'envId' in source ? `/api/v1/envs/${encodeURIComponent(source.envId)}/events` : `/api/v1/orgs/${encodeURIComponent(source.orgSlug)}/events`;
  return new URL(path, origin).toString();
}

export function isLiveChangeEvent(value: unknown): value is LiveChangeEvent {
  if (typeof value !== 'object' || value === null) return false;
  const { envId, version, changes } = value as Record<string, unknown>;
  return typeof envId === 'string' && typeof version === 'number' && Array.isArray(changes);
}

/** Reconnect delays after the stream was refused or lost for good: 1 s, 2 s, 4 s … at most 30 s. */
export function backoffMs(attempt: number): number {
  return Math.min(30_000, 1000 * 2 ** Math.max(0, attempt));
}

/** Events arriving this close together cause one reload. */
const COALESCE_MS = 100;

/* The status of every open subscription, for the one indicator in the page frame. */
const statuses = new Map<symbol, LiveStatus>();
const listeners = new Set<() => void>();
let summary: LiveStatus | null = null;

function setStatus(id: symbol, status: LiveStatus | null): void {
  if (status) statuses.set(id, status);
  else statuses.delete(id);
  const values = [...statuses.values()];
  const next = values.length === 0 ? null : values.includes('reconnecting') ? 'reconnecting' : values.includes('connecting') ? 'connecting' : 'live';
  if (next === summary) return;
  summary = next;
  for (const listener of listeners) listener();
}

/** The live state of the page's subscriptions: null when nothing on the page is live. */
export function useLiveStatus(): LiveStatus | null {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => summary,
    () => null,
  );
}

/**
 * Keeps a page's resources current: subscribes to the source's event stream and reloads when a
 * change arrives that `relevant` accepts (every change by default), and after a reconnection
 * (changes may have been missed meanwhile). The browser's EventSource retries a dropped
 * connection itself; a refused or closed one is opened again with backoff.
 */
export function useLiveReload(source: LiveSource | null, reload: () => unknown, relevant?: (event: LiveChangeEvent) => boolean): void {
  const latest = useRef({ reload, relevant });
  useLayoutEffect(() => {
    latest.current = { reload, relevant };
  });
  const url = source && typeof window !== 'undefined' ? liveUrl(source) : null;

  useEffect(() => {
    if (!url || typeof EventSource === 'undefined') return;
    const id = Symbol(url);
    let stream: EventSource | null = null;
    let attempt = 0;
    let opened = false;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let pending: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;

    const reloadSoon = () => {
      if (pending !== undefined) return;
      pending = setTimeout(() => {
        pending = undefined;
        void latest.current.reload();
      }, COALESCE_MS);
    };

    const connect = () => {
      const es = new EventSource(url);
      stream = es;
      es.addEventListener('ready', () => {
        if (opened) reloadSoon(); // a reconnection: what changed meanwhile was not announced
        opened = true;
        attempt = 0;
        setStatus(id, 'live');
      });
      es.addEventListener('change', (message) => {
        let data: unknown;
        try {
          data = JSON.parse(String(message.data));
        } catch {
          return;
        }
        if (!isLiveChangeEvent(data)) return;
        if (latest.current.relevant?.(data) ?? true) reloadSoon();
      });
      es.onerror = () => {
        setStatus(id, 'reconnecting');
        if (es.readyState !== EventSource.CLOSED || stopped) return; // the browser retries by itself
        es.close();
        retry = setTimeout(connect, backoffMs(attempt++));
      };
    };

    setStatus(id, 'connecting');
    connect();
    return () => {
      stopped = true;
      clearTimeout(retry);
      clearTimeout(pending);
      stream?.close();
      setStatus(id, null);
    };
  }, [url]);
}

/** Whether an event mentions `key` (a flag or config) or says nothing of what changed. */
export function mentions(event: LiveChangeEvent, key: string): boolean {
  return event.changes.length === 0 || event.changes.some((c) => c.resourceKey === key);
}
