import { useEffect, useLayoutEffect, useRef, useSyncExternalStore } from 'react';
import type { LiveChange, LiveChangeEvent, LiveOrgChangeEvent } from '@gradual/sdk';

export type { LiveChange, LiveChangeEvent, LiveOrgChangeEvent };

/** What a page follows: one environment, or every environment of an organization and the writes outside them. */
export type LiveSource = { envId: string } | { orgSlug: string };

/**
 * Which announced writes concern a page. `change`: a write that moved an environment's version
 * (both streams); `orgChange`: the changes of a write that move no version (the organization's
 * stream only): outside any environment (`envId` null: a definition, segment, plan, webhook
 * subscription, project, member or API key), or of one environment that keep its version (an
 * environment created or deleted, rollback secrets, proposals). A member left out accepts every
 * event of its kind.
 */
export interface LiveFilter {
  change?: (event: LiveChangeEvent) => boolean;
  orgChange?: (event: LiveOrgChangeEvent) => boolean;
}

/** Why a page reloads: relevant events of either kind arrived, or both after a reconnection (changes may have been missed). */
export interface LiveCause {
  change: boolean;
  orgChange: boolean;
}

export type LiveStatus = 'connecting' | 'live' | 'reconnecting';

/** The server's event stream of a source (same origin: the session cookie authenticates it). */
export function liveUrl(source: LiveSource, origin = window.location.origin): string {
  const path = 'envId' in source ? `/api/v1/envs/${encodeURIComponent(source.envId)}/events` : `/api/v1/orgs/${encodeURIComponent(source.orgSlug)}/events`;
  return new URL(path, origin).toString();
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseChange(value: unknown): LiveChange | null {
  if (!isRecord(value)) return null;
  const { resourceType, resourceKey, action } = value;
  if (typeof resourceType !== 'string' || typeof action !== 'string') return null;
  if (resourceKey !== null && typeof resourceKey !== 'string') return null;
  return { resourceType, resourceKey, action };
}

function parseChanges(value: unknown): LiveChange[] | null {
  if (!Array.isArray(value)) return null;
  const changes: LiveChange[] = [];
  for (const item of value) {
    const change = parseChange(item);
    if (!change) return null;
    changes.push(change);
  }
  return changes;
}

/** The data of a `change` event, built field by field as the SDK's `LiveChangeEvent` (null when it is not one). */
export function parseLiveChangeEvent(data: unknown): LiveChangeEvent | null {
  if (!isRecord(data)) return null;
  const { envId, version } = data;
  const changes = parseChanges(data.changes);
  if (typeof envId !== 'string' || typeof version !== 'number' || !changes) return null;
  return { envId, version, changes };
}

/**
 * The data of an `org-change` event, built field by field as the SDK's `LiveOrgChangeEvent` (null
 * when it is not one). Without `envId` (a server from before it was sent) it is of no environment.
 */
export function parseLiveOrgChangeEvent(data: unknown): LiveOrgChangeEvent | null {
  if (!isRecord(data)) return null;
  const { projectId } = data;
  const envId = data.envId ?? null;
  const changes = parseChanges(data.changes);
  if ((projectId !== null && typeof projectId !== 'string') || (envId !== null && typeof envId !== 'string') || !changes) return null;
  return { projectId, envId, changes };
}

function parseJson(text: unknown): unknown {
  try {
    return JSON.parse(String(text));
  } catch {
    return undefined;
  }
}

/** Reconnect delays after the stream was refused or lost for good: 1 s, 2 s, 4 s … at most 30 s. */
export function backoffMs(attempt: number): number {
  return Math.min(30_000, 1000 * 2 ** Math.max(0, attempt));
}

/** Events arriving this close together cause one reload. */
const COALESCE_MS = 100;

/* The status of every open stream, for the one indicator in the page frame. */
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

interface Subscriber {
  change: (event: LiveChangeEvent) => void;
  orgChange: (event: LiveOrgChangeEvent) => void;
  reconnected: () => void;
}

/**
 * One EventSource per stream URL, shared by every subscription on the page (a browser holds few
 * connections per origin). The browser's EventSource retries a dropped connection itself; a
 * refused or closed one is opened again with backoff. Closed when its last subscriber leaves.
 */
const streams = new Map<string, { subscribers: Set<Subscriber>; stop: () => void }>();

function openStream(url: string, subscribers: Set<Subscriber>): () => void {
  const id = Symbol(url);
  let stream: EventSource | null = null;
  let attempt = 0;
  let opened = false;
  let stopped = false;
  let retry: ReturnType<typeof setTimeout> | undefined;

  const connect = () => {
    const es = new EventSource(url);
    stream = es;
    es.addEventListener('ready', () => {
      if (opened) for (const s of subscribers) s.reconnected(); // what changed meanwhile was not announced
      opened = true;
      attempt = 0;
      setStatus(id, 'live');
    });
    es.addEventListener('change', (message) => {
      const event = parseLiveChangeEvent(parseJson(message.data));
      if (event) for (const s of subscribers) s.change(event);
    });
    es.addEventListener('org-change', (message) => {
      const event = parseLiveOrgChangeEvent(parseJson(message.data));
      if (event) for (const s of subscribers) s.orgChange(event);
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
    stream?.close();
    setStatus(id, null);
  };
}

function subscribe(url: string, subscriber: Subscriber): () => void {
  let shared = streams.get(url);
  if (!shared) {
    const subscribers = new Set<Subscriber>();
    shared = { subscribers, stop: openStream(url, subscribers) };
    streams.set(url, shared);
  }
  shared.subscribers.add(subscriber);
  const mine = shared;
  return () => {
    mine.subscribers.delete(subscriber);
    if (mine.subscribers.size > 0) return;
    mine.stop();
    if (streams.get(url) === mine) streams.delete(url);
  };
}

/**
 * Keeps a page's resources current: subscribes to the source's event stream and calls `reload`
 * (once per burst, with what caused it) when an event arrives that `relevant` accepts (every event
 * by default), and after a reconnection. Subscriptions to the same source share one connection.
 */
export function useLiveReload(source: LiveSource | null, reload: (cause: LiveCause) => unknown, relevant?: LiveFilter): void {
  const latest = useRef({ reload, relevant });
  useLayoutEffect(() => {
    latest.current = { reload, relevant };
  });
  const url = source && typeof window !== 'undefined' ? liveUrl(source) : null;

  useEffect(() => {
    if (!url || typeof EventSource === 'undefined') return;
    let pending: ReturnType<typeof setTimeout> | undefined;
    let cause: LiveCause = { change: false, orgChange: false };

    const reloadSoon = (next: Partial<LiveCause>) => {
      cause = { change: cause.change || next.change === true, orgChange: cause.orgChange || next.orgChange === true };
      if (pending !== undefined) return;
      pending = setTimeout(() => {
        pending = undefined;
        const why = cause;
        cause = { change: false, orgChange: false };
        void latest.current.reload(why);
      }, COALESCE_MS);
    };

    const unsubscribe = subscribe(url, {
      change: (event) => {
        if (latest.current.relevant?.change?.(event) ?? true) reloadSoon({ change: true });
      },
      orgChange: (event) => {
        if (latest.current.relevant?.orgChange?.(event) ?? true) reloadSoon({ orgChange: true });
      },
      reconnected: () => reloadSoon({ change: true, orgChange: true }),
    });
    return () => {
      clearTimeout(pending);
      unsubscribe();
    };
  }, [url]);
}

/**
 * Whether an event mentions `key` (a flag or config, or another resource of `resourceTypes`), or
 * says nothing of what changed (a caller restricted to some resources may get an empty list).
 */
export function mentions(event: { changes: readonly LiveChange[] }, key: string, resourceTypes?: readonly string[]): boolean {
  return event.changes.length === 0 || event.changes.some((c) => c.resourceKey === key && (!resourceTypes || resourceTypes.includes(c.resourceType)));
}

/** Whether an event lists a change of one of `resourceTypes`, or says nothing of what changed. */
export function touches(event: { changes: readonly LiveChange[] }, ...resourceTypes: string[]): boolean {
  return event.changes.length === 0 || event.changes.some((c) => resourceTypes.includes(c.resourceType));
}

/**
 * The writes of a project's resources of `resourceTypes` (of one `key` when given): those outside
 * any environment, and environment writes that list them (a write that also moves rulesets, such
 * as a flag's creation, or one that keeps the version, such as a proposal), in `envIds` when given
 * and in any environment otherwise. An environment's own creation or deletion is in `envIds` even
 * before the page knows the environment.
 */
export function projectResources(projectId: string, resourceTypes: readonly string[], options: { key?: string; envIds?: readonly string[] } = {}): Required<LiveFilter> {
  const { key, envIds } = options;
  const match = (e: { changes: readonly LiveChange[] }) => (key === undefined ? touches(e, ...resourceTypes) : mentions(e, key, resourceTypes));
  const known = (e: { envId: string | null; changes: readonly LiveChange[] }) =>
    !envIds || e.envId === null || envIds.includes(e.envId) || (resourceTypes.includes('environment') && e.changes.some((c) => c.resourceType === 'environment'));
  return {
    change: (e) => known(e) && match(e),
    orgChange: (e) => e.projectId === projectId && known(e) && match(e),
  };
}

/**
 * Every write of one environment, on the organization's stream: those that moved its version
 * (`change`) and those that kept it (`org-change` with its `envId`: rollback secrets, proposals,
 * the environment created or deleted).
 */
export function environmentWrites(envId: string): Required<LiveFilter> {
  return { change: (e) => e.envId === envId, orgChange: (e) => e.envId === envId };
}

/** The writes of resources of `resourceTypes` anywhere in the organization (members, invitations, API keys). */
export function orgResources(...resourceTypes: string[]): Required<LiveFilter> {
  return { change: (e) => touches(e, ...resourceTypes), orgChange: (e) => touches(e, ...resourceTypes) };
}
