import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { DomainError } from '../domain/errors.js';

/** A strong ETag: a digest of the exact JSON representation. */
export function etagOf(body: unknown): string {
  return `"${createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 27)}"`;
}

function listMatches(header: string, etag: string | null): boolean {
  if (header.trim() === '*') return etag !== null;
  return header.split(',').some((t) => t.trim() === etag);
}

/**
 * Sends the ETag and answers whether the client's copy is current
 * (If-None-Match matched → the caller answers 304 with no body).
 */
export function notModified(req: Request, res: Response, body: unknown): boolean {
  const etag = etagOf(body);
  res.setHeader('ETag', etag);
  const header = req.headers['if-none-match'];
  return typeof header === 'string' && listMatches(header, etag);
}

/** If-Match against the current representation (null when the resource does not exist yet) → 412 on mismatch. */
export function checkIfMatch(ifMatch: string | undefined, current: unknown | null): void {
  if (ifMatch === undefined) return;
  if (!listMatches(ifMatch, current === null ? null : etagOf(current))) {
    throw new DomainError('precondition_failed', 'The resource changed since you read it (If-Match does not match its ETag).');
  }
}
