import { useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent, type ReactNode } from 'react';

/**
 * A tiny router over the History API: the server answers every /app/* path with index.html, and
 * the app routes itself. Paths in the app are written without the /app prefix.
 */
export const BASE = '/app';

const listeners = new Set<() => void>();
function notify() {
  for (const l of listeners) l();
}
if (typeof window !== 'undefined') window.addEventListener('popstate', notify);

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Location inside the app: path without the /app prefix (always starting with "/"), and query. */
export interface AppLocation {
  path: string;
  search: URLSearchParams;
  href: string;
}

let cachedHref = '';
let cached: AppLocation = { path: '/', search: new URLSearchParams(), href: '' };
function snapshot(): AppLocation {
  const href = window.location.pathname + window.location.search;
  if (href !== cachedHref) {
    cachedHref = href;
    let path = window.location.pathname;
    if (path === BASE || path.startsWith(`${BASE}/`)) path = path.slice(BASE.length);
    cached = { path: path.replace(/\/+$/, '') || '/', search: new URLSearchParams(window.location.search), href };
  }
  return cached;
}

export function useLocation(): AppLocation {
  return useSyncExternalStore(subscribe, snapshot, snapshot);
}

export function toUrl(to: string): string {
  return to.startsWith('/') ? `${BASE}${to}` : to;
}

export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  const url = toUrl(to);
  if (url === window.location.pathname + window.location.search) return;
  if (opts.replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  window.scrollTo?.(0, 0);
  notify();
}

/** Replaces the query string (filters, tabs) without a new history entry. */
export function setQuery(params: Record<string, string | undefined>): void {
  const search = new URLSearchParams(window.location.search);
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === '') search.delete(k);
    else search.set(k, v);
  }
  const qs = search.toString();
  window.history.replaceState(null, '', `${window.location.pathname}${qs ? `?${qs}` : ''}`);
  notify();
}

/** Matches "/o/:slug/p/:id" against a path; returns the params or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split('/').filter(Boolean);
  const s = path.split('/').filter(Boolean);
  if (p.length !== s.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    const seg = p[i]!;
    if (seg.startsWith(':')) params[seg.slice(1)] = decodeURIComponent(s[i]!);
    else if (seg !== s[i]) return null;
  }
  return params;
}

type LinkProps = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> & { to: string; children: ReactNode };

/** An ordinary link (open in a new tab works) that navigates in place on a plain click. */
export function Link({ to, onClick, children, ...rest }: LinkProps) {
  const href = toUrl(to);
  const handle = (e: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(e);
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    if (rest.target && rest.target !== '_self') return;
    e.preventDefault();
    navigate(to);
  };
  return (
    <a href={href} onClick={handle} {...rest}>
      {children}
    </a>
  );
}

/** Path segment encoding for keys and ids. */
export const seg = encodeURIComponent;
