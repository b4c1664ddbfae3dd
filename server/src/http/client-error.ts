import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import type { ErrorEnvelope } from '@gradual/contract';

/**
 * Requests Node's HTTP parser refuses (a bare CR or NUL in a header, headers
 * over the size limit, a malformed request line) never reach Express. Node
 * would answer them with an empty 400/431; this answers with the envelope
 * instead, like every other error, and closes the connection. When the socket's latest response
 * has already begun (`latestResponse`, kept by the server), no second answer can follow it: the
 * connection is closed.
 */
export function answerClientError(logger: Logger, latestResponse: (socket: Duplex) => ServerResponse | undefined) {
  return (err: NodeJS.ErrnoException, socket: Duplex): void => {
    const inFlight = latestResponse(socket);
    if (err.code === 'ECONNRESET' || !socket.writable || (inFlight?.headersSent && !inFlight.writableFinished)) {
      socket.destroy();
      return;
    }
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const requestId = randomUUID();
    const message =
      status === 431 ? 'The request headers are too large.' : status === 408 ? 'The request took too long to arrive.' : 'The request is not valid HTTP.';
    logger.debug({ err: { code: err.code, message: err.message }, requestId }, 'refused malformed request');
    const envelope: ErrorEnvelope = { code: 'invalid_request', message, requestId };
    const body = JSON.stringify(envelope);
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  };
}
