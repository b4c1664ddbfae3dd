import type { IncomingMessage } from 'node:http';

/**
 * The client's address as Express decides it (`req.ip`: X-Forwarded-For's trusted hop under
 * TRUST_PROXY), else the socket's. A request answered in front of Express has `ip` too: its
 * prototype is Express's (server.ts, expressClasses).
 */
export function requestAddress(req: Pick<IncomingMessage, 'socket' | 'headers'> & { ip?: string | undefined }): string {
  // Without X-Forwarded-For, Express's answer is the socket's address whatever TRUST_PROXY says:
  // no need to have it parse the header and walk the trust list.
  if (req.headers['x-forwarded-for'] === undefined) return req.socket.remoteAddress ?? '';
  return req.ip ?? req.socket.remoteAddress ?? '';
}
