import type { IncomingMessage } from 'node:http';

/**
 * The client's address as Express decides it (`req.ip`: X-Forwarded-For's trusted hop under
 * TRUST_PROXY), else the socket's. A request answered in front of Express has `ip` too: its
 * prototype is Express's (server.ts, expressClasses).
 */
export function requestAddress(req: Pick<IncomingMessage, 'socket'> & { ip?: string | undefined }): string {
  return req.ip ?? req.socket.remoteAddress ?? '';
}
