import { createHash } from 'node:crypto';
import { DomainError } from '../../domain/errors.js';

/** A strong ETag: a digest of the exact JSON representation. */
export function etagOf(body: unknown): string {
  return `"${createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 27)}"`;
}

/** Whether an If-Match / If-None-Match header value names `etag` (`*` names any existing representation). */
export function etagListMatches(header: string, etag: string | null): boolean {
  if (header === etag) return true; // the usual If-None-Match: the one ETag the client was sent
  if (header.trim() === '*') return etag !== null;
  return header.split(',').some((t) => t.trim() === etag);
}

/** If-Match against the current representation (null when the resource does not exist yet) → 412 on mismatch. */
export function checkIfMatch(ifMatch: string | undefined, current: unknown): void {
  if (ifMatch === undefined) return;
  if (!etagListMatches(ifMatch, current === null ? null : etagOf(current))) {
    throw new DomainError('precondition_failed', 'The resource changed since you read it (If-Match does not match its ETag).');
  }
}
