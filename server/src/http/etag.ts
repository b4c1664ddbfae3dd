import type { Request, Response } from 'express';
import { etagListMatches, etagOf } from '../features/common/etag.js';

/**
 * Sends the ETag and answers whether the client's copy is current
 * (If-None-Match matched → the caller answers 304 with no body).
 */
export function notModified(req: Pick<Request, 'headers'>, res: Response, body: unknown): boolean {
  const etag = etagOf(body);
  res.setHeader('ETag', etag);
  const header = req.headers['if-none-match'];
  return typeof header === 'string' && etagListMatches(header, etag);
}
