import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { RequestHandler } from 'express';
import helmet, { type HelmetOptions } from 'helmet';
import type { Config } from '../config.js';

/**
 * Security headers (helmet) for every answer, by what is answered:
 *
 * - the dashboard (/app): its scripts, styles and fonts from this origin only (plus the hashes of
 *   any inline `<script>`/`<style>` in the index.html served, e.g. the placeholder page's style),
 *   images from this origin and `data:` (the favicon), requests to this origin only;
 * - the API reference (/docs, Swagger UI): the same, without inline blocks;
 * - everything else (the API's JSON, /openapi.yaml, /metrics, health): `default-src 'none'`.
 *
 * Every answer: `frame-ancestors 'none'` (and X-Frame-Options: DENY for older browsers),
 * `X-Content-Type-Options: nosniff`, `Cross-Origin-Opener-Policy: same-origin`,
 * `Cross-Origin-Resource-Policy: same-origin`, and with an https PUBLIC_URL
 * `Strict-Transport-Security` (and `upgrade-insecure-requests` on the pages). Over plain http the
 * header would be ignored by browsers anyway, and a local http server must never ask for https.
 *
 * Referrer-Policy: `no-referrer` on API answers. The pages get `same-origin`: sign-in and
 * invitation links carry their token in the URL, and no other site may see it in a Referer, while
 * the pages' own requests keep their Origin header (under `no-referrer` a browser sends
 * `Origin: null` with a same-origin POST, which the origin check, http/csrf.ts, refuses).
 */

/** HSTS and upgrade-insecure-requests apply only where people reach the server over https. */
function servedOverHttps(config: Pick<Config, 'publicUrl' | 'publicUrlConfigured'>): boolean {
  return config.publicUrlConfigured && config.publicUrl.startsWith('https:');
}

type Directives = Record<string, string[]>;

const API_DIRECTIVES: Directives = { 'default-src': ["'none'"], 'frame-ancestors': ["'none'"] };

function pageDirectives(https: boolean, extra: { script?: string[]; style?: string[] }): Directives {
  return {
    'default-src': ["'self'"],
    'base-uri': ["'none'"],
    'object-src': ["'none'"],
    'script-src': ["'self'", ...(extra.script ?? [])],
    'style-src': ["'self'", ...(extra.style ?? [])],
    'img-src': ["'self'", 'data:'],
    'font-src': ["'self'"],
    'connect-src': ["'self'"],
    'form-action': ["'self'"],
    'frame-ancestors': ["'none'"],
    ...(https ? { 'upgrade-insecure-requests': [] } : {}),
  };
}

function options(https: boolean, directives: Directives, referrer: 'no-referrer' | 'same-origin', page: boolean): HelmetOptions {
  return {
    contentSecurityPolicy: { useDefaults: false, directives },
    crossOriginEmbedderPolicy: false,
    crossOriginOpenerPolicy: { policy: 'same-origin' },
    crossOriginResourcePolicy: { policy: 'same-origin' },
    referrerPolicy: { policy: referrer },
    strictTransportSecurity: https ? { maxAge: 31_536_000, includeSubDomains: false } : false,
    xContentTypeOptions: true,
    xFrameOptions: { action: 'deny' },
    // Headers only a page uses; API answers stay short (they are the hot path).
    originAgentCluster: page,
    xDnsPrefetchControl: page ? { allow: false } : false,
    xDownloadOptions: page,
    xPermittedCrossDomainPolicies: page ? { permittedPolicies: 'none' } : false,
    xXssProtection: page,
    xPoweredBy: false,
  };
}

/**
 * The API answers' security headers that only a document uses (a page a browser renders, frames
 * or navigates from): an event stream (text/event-stream, which no browser renders) drops them
 * once it is authorized, so each of the many long-lived streams holds fewer header bytes. It
 * keeps X-Content-Type-Options, Cross-Origin-Resource-Policy and, over https,
 * Strict-Transport-Security; its error answers (JSON) keep them all.
 */
export const DOCUMENT_ONLY_HEADERS: readonly string[] = ['Content-Security-Policy', 'Cross-Origin-Opener-Policy', 'Referrer-Policy', 'X-Frame-Options'];

/** `'sha256-…'` sources for each inline `<script>` (without src) and `<style>` in a page. */
export function inlineHashes(html: string): { script: string[]; style: string[] } {
  const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
  const of = (pattern: RegExp) => [...html.matchAll(pattern)].map((m) => hash(m[1]!)).filter((h, i, all) => all.indexOf(h) === i);
  return {
    script: of(/<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/gi),
    style: of(/<style[^>]*>([\s\S]*?)<\/style>/gi),
  };
}

/** The API answers' security headers as one middleware (helmet). */
function apiHeaders(config: Pick<Config, 'publicUrl' | 'publicUrlConfigured'>): ReturnType<typeof helmet> {
  return helmet(options(servedOverHttps(config), API_DIRECTIVES, 'no-referrer', false));
}

/** Whether an Express path belongs to `prefix` (the prefix itself or below it). */
function under(path: string, prefix: string): boolean {
  return path.startsWith(prefix) && (path.length === prefix.length || path[prefix.length] === '/');
}

/**
 * The security headers of every answer Express writes, mounted first in app.ts. `dashboardIndex`
 * is the index.html file the dashboard is served from (its inline blocks are hashed once, here).
 */
export function securityHeaders(config: Pick<Config, 'publicUrl' | 'publicUrlConfigured'>, dashboardIndex: string): RequestHandler {
  const https = servedOverHttps(config);
  const inline = inlineHashes(readFileSync(dashboardIndex, 'utf8'));
  const dashboard = helmet(options(https, pageDirectives(https, inline), 'same-origin', true));
  // Swagger UI's page has no inline script or style (its styles are set through the CSSOM, which
  // style-src does not govern); its initializer is a file (http/ops.ts).
  const docs = helmet(options(https, pageDirectives(https, {}), 'same-origin', true));
  const api = apiHeaders(config);
  return (req, res, next) => {
    const path = req.path;
    if (under(path, '/app')) return dashboard(req, res, next);
    if (under(path, '/docs')) return docs(req, res, next);
    return api(req, res, next);
  };
}

/**
 * The API answers' security headers as header pairs (name, value, name, value…), for answers
 * written without Express (http/answer-cache.ts): exactly what the API middleware sets, read off
 * it once.
 */
export function apiSecurityHeaderPairs(config: Pick<Config, 'publicUrl' | 'publicUrlConfigured'>): string[] {
  const req = new IncomingMessage(new Socket());
  const res = new HeaderRecorder(req);
  apiHeaders(config)(req, res, () => {});
  return res.pairs;
}

/** A response that only records the headers set on it, with their names as given. */
class HeaderRecorder extends ServerResponse {
  readonly pairs: string[] = [];
  override setHeader(name: string, value: number | string | readonly string[]): this {
    this.pairs.push(name, String(value));
    return this;
  }
}
