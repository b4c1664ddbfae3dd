import type { Request, RequestHandler } from 'express';
import { DomainError } from '../domain/errors.js';

declare global {
  namespace Express {
    interface Request {
      /** The raw JSON body escapes NUL or a surrogate (set by jsonBodyVerify): its strings are checked. */
      bodyHasSuspectEscapes?: boolean;
    }
  }
}

/** How deep a JSON body may nest. Deeper values overflow the stack of JSON.stringify and PostgreSQL's jsonb. */
export const MAX_JSON_DEPTH = 100;

/** `\u0000` or `\uD800`–`\uDFFF` escapes: the only way a JSON text carries NUL or a (possibly lone) surrogate. */
const SUSPECT_ESCAPE = /\\u(?:0000|[dD][89a-fA-F][0-9a-fA-F]{2})/;

/** Whether a raw JSON text escapes NUL or a surrogate (then its strings need checking). */
export function hasSuspectEscapes(buf: Buffer): boolean {
  return buf.includes('\\u') && SUSPECT_ESCAPE.test(buf.toString('latin1'));
}

/** body-parser `verify`: a cheap scan of the raw text, so only suspect bodies have their strings checked. */
export function jsonBodyVerify(req: Request, _res: unknown, buf: Buffer): void {
  if (hasSuspectEscapes(buf)) req.bodyHasSuspectEscapes = true;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const unstorable = (s: string) => s.includes('\u0000') || LONE_SURROGATE.test(s);
const TEXT_MESSAGE = 'must be well-formed Unicode text without NUL (U+0000)';

/**
 * The first problem in a parsed JSON body: nesting deeper than MAX_JSON_DEPTH,
 * or (when `checkText`) a string or key PostgreSQL cannot store. Iterative, so
 * the check itself cannot overflow.
 */
export function bodyProblem(body: unknown, checkText: boolean): { path: string; message: string } | null {
  const stack: Array<{ value: unknown; path: string[] }> = [{ value: body, path: [] }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      if (checkText && unstorable(value)) return { path: path.join('.') || 'body', message: TEXT_MESSAGE };
      continue;
    }
    if (!value || typeof value !== 'object') continue;
    if (path.length >= MAX_JSON_DEPTH) return { path: 'body', message: `nested deeper than ${MAX_JSON_DEPTH} levels` };
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) {
        const v: unknown = value[i];
        if (v && typeof v === 'object') stack.push({ value: v, path: [...path, String(i)] });
        else if (checkText && typeof v === 'string' && unstorable(v)) return { path: [...path, String(i)].join('.'), message: TEXT_MESSAGE };
      }
      continue;
    }
    for (const [k, v] of Object.entries(value)) {
      if (checkText && unstorable(k)) return { path: [...path, JSON.stringify(k).slice(1, -1)].join('.'), message: TEXT_MESSAGE };
      stack.push({ value: v, path: [...path, k] });
    }
  }
  return null;
}

/**
 * PostgreSQL cannot store U+0000 or a lone surrogate in text or jsonb (and a
 * NUL inside a query breaks the wire protocol), and JSON nested thousands of
 * levels deep overflows the stack on the way to the database. No field of the
 * API needs any of these, so they are refused here with 400 invalid_request
 * (`fields` says where) before any handler or transaction runs.
 */
const PLAIN_JSON_CONTENT_TYPE = /^application\/json\s*(?:;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;

/** Whether a request's body is JSON the /api reader takes without decoding: UTF-8, no content encoding. */
export function isPlainJson(req: Pick<Request, 'headers'>): boolean {
  const encoding = req.headers['content-encoding'];
  const type = req.headers['content-type'];
  return (type === 'application/json' || PLAIN_JSON_CONTENT_TYPE.test(type ?? '')) && (!encoding || encoding === 'identity');
}

/**
 * A body an answer replayed from memory (http/answer-cache.ts) read itself, as the route would
 * take it: JSON without the escapes this guard inspects, nested no deeper than it allows, valid
 * for the route's `schema`; null for anything else, which the route then answers with its own
 * error. The caller checks isPlainJson first.
 */
export function replayableBody<T>(raw: Buffer, schema: { safeParse(value: unknown): { success: true; data: T } | { success: false } }): T | null {
  if (hasSuspectEscapes(raw)) return null;
  let json: unknown;
  try {
    json = JSON.parse(raw.toString('utf8'));
  } catch {
    return null;
  }
  if (bodyProblem(json, false)) return null;
  const input = schema.safeParse(json);
  return input.success ? input.data : null;
}

export function textGuard(): RequestHandler {
  return (req, _res, next) => {
    const url = req.originalUrl;
    const queryAt = url.indexOf('?');
    const pathPart = queryAt < 0 ? url : url.slice(0, queryAt);
    if (pathPart.includes('%00')) return next(new DomainError('invalid_request', 'The path contains NUL (U+0000).', { fields: { path: TEXT_MESSAGE } }));
    if (queryAt >= 0 && url.includes('%00', queryAt)) {
      const hit = bodyProblem(req.query, true);
      return next(new DomainError('invalid_request', 'The query contains NUL (U+0000).', { fields: { [hit?.path ?? 'query']: TEXT_MESSAGE } }));
    }
    if (req.body && typeof req.body === 'object') {
      const hit = bodyProblem(req.body, req.bodyHasSuspectEscapes === true);
      if (hit) return next(new DomainError('invalid_request', 'The body cannot be stored as sent; see fields.', { fields: { [hit.path]: hit.message } }));
    }
    next();
  };
}
