import type { IncomingMessage, ServerResponse } from 'node:http';
import onHeaders from 'on-headers';

/** How long after its answer begins the rest of a refused body is read and discarded, at most. */
export const LINGER_MS = 2_000;
/** How much of the rest of a refused body is read and discarded, at most. */
export const LINGER_BYTES = 4 * 1024 * 1024;

const lingering = new WeakSet<IncomingMessage>();

/**
 * Makes this answer the connection's last (`Connection: close`) and closes the connection
 * lingeringly. An answer sent before the request's body has arrived (a refusal: 401, 413, …)
 * would otherwise close a socket with body bytes still unread, which the kernel answers with a
 * reset: a client that writes its whole body before it reads (Node's `http`, many SDKs) gets
 * EPIPE or ECONNRESET, and the reset can discard the answer before the client reads it. So the
 * close is staged (RFC 9112 §9.6): the answer, a half-close (FIN), then the rest of the body read
 * and discarded until it ends, the client closes, LINGER_MS pass or LINGER_BYTES have been read,
 * whichever comes first; only then does the socket close. When the whole body has arrived by the
 * time the answer begins, the connection closes at once. Call it before the answer is sent.
 */
export function lingeringClose(req: IncomingMessage, res: ServerResponse): void {
  if (res.headersSent || lingering.has(req)) return;
  lingering.add(req);
  res.setHeader('Connection', 'close');
  const socket = req.socket;
  const closeSoon = socket.destroySoon.bind(socket);
  let draining = false;
  onHeaders(res, () => {
    if (req.complete) return;
    draining = true;
    discardRest(req, closeSoon);
  });
  // Node's HTTP server ends the socket of a `Connection: close` answer with destroySoon() once the
  // answer is written: a FIN, then the socket destroyed, unread bytes or not. While the rest of
  // the body is discarded, only the FIN (the half-close); discardRest closes the socket.
  socket.destroySoon = () => {
    if (draining && !req.complete) socket.end();
    else closeSoon();
  };
}

/** Reads and discards what is left of `req`'s body, within the limits, then closes its socket (`close`). */
function discardRest(req: IncomingMessage, close: () => void): void {
  let read = 0;
  const count = (chunk: Buffer) => {
    read += chunk.length;
    if (read > LINGER_BYTES) done();
  };
  const done = () => {
    clearTimeout(timer);
    req.off('data', count).off('end', done);
    close();
  };
  const timer = setTimeout(done, LINGER_MS).unref();
  req.socket.once('close', () => clearTimeout(timer));
  req.on('data', count);
  // The whole body has arrived: nothing unread is left to reset the connection.
  req.once('end', done);
  req.resume();
}
