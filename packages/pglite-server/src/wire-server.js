// The PostgreSQL wire protocol over a socket, in front of one PGlite instance: what lets `pg`
// (and any PostgreSQL client) use PGlite like a server. Types: wire-server.d.ts.
//
// PGlite is one PostgreSQL session. Every connection's messages go through one queue, one PGlite
// call at a time (PGlite's public runExclusive + execProtocolRawStream). While a transaction is
// open, only the connection that opened it runs; the others' calls wait. A connection that closes
// inside its transaction has it rolled back.
//
// Batching: every complete message that has arrived goes to PGlite in one call, and the answer
// goes out in one (corked) write. A prepared query (Bind, Describe, Execute, Sync) is then one
// PGlite call and one write, not four of each: PGlite's execProtocolRawStream runs every message
// in its input in order, and an error in one skips to the next Sync as PostgreSQL does.
//
// A batch ends after a message that completes something (Sync, Query, Flush, …), never after
// Parse, Bind, Describe, Execute or Close: those wait for the Sync that follows them. PGlite is
// one session shared by every connection, and between its Execute and its Sync a statement is
// still in its implicit transaction; a batch that stopped there would let another connection's
// next batch run inside that transaction (the queue keeps connections apart only while an
// explicit transaction is open). Clients send the whole sequence in one write, so this rarely
// waits for anything. (A client that sends Flush and waits for the answer before its Sync, as a
// cursor does, still gets it, unprotected.)
//
// Start-up: SSLRequest and GSSENCRequest are answered 'N' (no encryption), a CancelRequest is
// dropped (PGlite has no backend to signal), the startup packet goes to PGlite, which answers
// with trust authentication. Terminate ends the connection.
//
// Plain JavaScript: it runs in the database's worker thread (pglite-worker.js), which loads no
// TypeScript.
import { createServer } from 'node:net';
import { CallQueue, PINNED_PARAMETERS } from './call-queue.js';

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
/** A startup packet is at most this long (PostgreSQL's MAX_STARTUP_PACKET_LENGTH). */
const MAX_STARTUP_LENGTH = 10_000;
const TERMINATE = 0x58; // 'X'
const HEADER = 5; // type byte + int32 length (which counts itself, not the type byte)
/** Parse, Bind, Describe, Execute, Close: extended-query messages that wait for their Sync (above). */
const AWAITS_SYNC = new Set([0x50, 0x42, 0x44, 0x45, 0x43]);
const ROUTINE_ERRORS = new Set(['ECONNRESET', 'EPIPE']);
const PARAMETER_STATUS = 0x53; // 'S'
const PINNED = new Set(PINNED_PARAMETERS);
const EMPTY = Buffer.alloc(0);

/** A FATAL ErrorResponse: the answer to a connection refused or ended by the server. */
function fatal(code, message) {
  const fields = Buffer.from(`SFATAL\0VFATAL\0C${code}\0M${message}\0\0`);
  const head = Buffer.alloc(HEADER);
  head.write('E');
  head.writeInt32BE(4 + fields.length, 1);
  return Buffer.concat([head, fields]);
}

/** One client connection: start-up, then typed messages in batches (see the top of this file). */
class Connection {
  constructor(socket, queue, log) {
    this.socket = socket;
    this.queue = queue;
    this.log = log;
    /** This connection's pinned session settings (call-queue.js): the baseline, then its own. */
    this.params = new Map(queue.baseline);
    this.startup = true;
    this.closed = false;
    /** Bytes kept for the next read: messages waiting for their Sync, a partial header. */
    this.rest = EMPTY;
    /** A large message arriving in many reads: its pieces, their length, the length awaited. */
    this.pieces = [];
    this.piecesLength = 0;
    this.awaitedBytes = 0;
  }

  receive(data) {
    if (this.closed) return;
    let buffered = data;
    if (this.awaitedBytes) {
      // A large message (a 100,000-ID Bind) arrives in many chunks: collect them, copy once.
      this.pieces.push(data);
      this.piecesLength += data.length;
      if (this.piecesLength < this.awaitedBytes) return;
      buffered = Buffer.concat(this.pieces, this.piecesLength);
      this.pieces = [];
      this.piecesLength = 0;
      this.awaitedBytes = 0;
    } else if (this.rest.length) {
      buffered = Buffer.concat([this.rest, data]);
    }
    this.rest = EMPTY;
    if (this.startup) buffered = this.receiveStartup(buffered);
    if (buffered.length && !this.closed) this.receiveTyped(buffered);
  }

  /** Untyped start-up messages (int32 length, int32 code). Returns the bytes after them. */
  receiveStartup(buffered) {
    let at = 0;
    while (this.startup && buffered.length - at >= 8) {
      const length = buffered.readInt32BE(at);
      const code = buffered.readInt32BE(at + 4);
      if (length < 8 || length > MAX_STARTUP_LENGTH) return this.refuse('08P01', `invalid startup packet length ${length}`);
      if (buffered.length - at < length) break;
      const message = buffered.subarray(at, at + length);
      at += length;
      if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
        this.socket.write('N');
      } else if (code === CANCEL_REQUEST) {
        this.socket.end();
        this.closed = true;
        return EMPTY;
      } else if (code >>> 16 === 3) {
        this.startup = false;
        void this.call(message);
      } else {
        return this.refuse('0A000', `unsupported frontend protocol ${code >>> 16}.${code & 0xffff}`);
      }
    }
    if (this.startup) {
      this.rest = buffered.subarray(at);
      return EMPTY;
    }
    return buffered.subarray(at);
  }

  receiveTyped(buffered) {
    let end = 0; // the batch: up to the last message that does not wait for a Sync
    let complete = 0; // every complete message
    while (buffered.length - complete >= HEADER && buffered[complete] !== TERMINATE) {
      const length = 1 + buffered.readInt32BE(complete + 1);
      if (length < HEADER) {
        this.refuse('08P01', `invalid message length ${length - 1}`);
        return;
      }
      if (buffered.length - complete < length) break;
      const type = buffered[complete];
      complete += length;
      if (!AWAITS_SYNC.has(type)) end = complete;
    }
    const next = buffered.length - complete >= HEADER ? buffered[complete] : undefined;
    const rest = buffered.subarray(end);
    if (next === TERMINATE) {
      // The client is done: answer what came before, then close (messages after it are ignored).
      const batch = end > 0 ? this.call(buffered.subarray(0, end)) : Promise.resolve();
      this.closed = true;
      void batch.then(() => this.socket.end());
      return;
    }
    if (next !== undefined) {
      // Kept for the next reads: messages waiting for their Sync, then an incomplete one.
      this.awaitedBytes = complete - end + 1 + buffered.readInt32BE(complete + 1);
      this.pieces = [rest];
      this.piecesLength = rest.length;
    } else {
      this.rest = rest; // nothing, a partial header, or messages waiting for their Sync
    }
    if (end > 0) void this.call(buffered.subarray(0, end));
  }

  /**
   * Queues `bytes` (whole messages) as one PGlite call. PGlite reports its answer in pieces,
   * synchronously while it runs; they are copied out of WASM memory and written together once it
   * returns (a microtask, so before the queue can start the next call: answers stay in order).
   */
  call(bytes) {
    let pending = null;
    const flush = () => {
      const chunks = pending;
      pending = null;
      if (!chunks || !this.socket.writable) return;
      if (chunks.length === 1) return void this.socket.write(chunks[0]);
      this.socket.cork();
      for (const chunk of chunks) this.socket.write(chunk);
      this.socket.uncork();
    };
    const scanner = new ParameterScanner((name, value) => {
      if (!PINNED.has(name)) return;
      this.params.set(name, value);
      this.queue.reported(name, value);
    });
    const onData = (answer) => {
      if (!answer.length) return;
      scanner.push(answer);
      if (!pending) {
        pending = [];
        queueMicrotask(flush);
      }
      pending.push(Buffer.from(answer));
    };
    const message = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
    return new Promise((resolve) => {
      this.queue.push({
        conn: this,
        bytes: message,
        params: this.params,
        onData,
        settle: (err) => {
          flush();
          if (err && !this.closed && !this.queue.stopped) {
            this.log('warn', 'PGlite failed a call; closing its connection', err);
            this.socket.destroy();
          }
          resolve();
        },
      });
    });
  }

  /** Answers a protocol violation with a FATAL error and closes the connection. */
  refuse(code, message) {
    this.log('warn', `closing a connection: ${message}`);
    this.closed = true;
    this.socket.end(fatal(code, message));
    return EMPTY;
  }
}

/**
 * Follows one call's answer, which PGlite hands over in pieces that need not end at message
 * boundaries, and reports each ParameterStatus ('S': a setting's name and new value).
 */
class ParameterScanner {
  constructor(onParameter) {
    this.onParameter = onParameter;
    this.header = Buffer.alloc(HEADER);
    this.headerLength = 0;
    /** Bytes of the current message still to skip. */
    this.skip = 0;
    /** The current ParameterStatus's body, filled up to `filled`. */
    this.body = undefined;
    this.filled = 0;
  }

  push(chunk) {
    let at = 0;
    while (at < chunk.length) {
      if (this.skip > 0) {
        const n = Math.min(this.skip, chunk.length - at);
        this.skip -= n;
        at += n;
      } else if (this.body) {
        const n = Math.min(this.body.length - this.filled, chunk.length - at);
        this.body.set(chunk.subarray(at, at + n), this.filled);
        this.filled += n;
        at += n;
        if (this.filled === this.body.length) {
          const [name, value] = this.body.toString('utf8').split('\0');
          this.body = undefined;
          if (name !== undefined && value !== undefined) this.onParameter(name, value);
        }
      } else if (this.headerLength === 0 && chunk.length - at >= HEADER) {
        this.start(chunk[at], Buffer.from(chunk.buffer, chunk.byteOffset + at + 1, 4).readInt32BE(0) - 4);
        at += HEADER;
      } else {
        const n = Math.min(HEADER - this.headerLength, chunk.length - at);
        this.header.set(chunk.subarray(at, at + n), this.headerLength);
        this.headerLength += n;
        at += n;
        if (this.headerLength === HEADER) {
          this.headerLength = 0;
          this.start(this.header[0], this.header.readInt32BE(1) - 4);
        }
      }
    }
  }

  start(type, bodyLength) {
    if (bodyLength <= 0) return;
    if (type === PARAMETER_STATUS) {
      this.body = Buffer.alloc(bodyLength);
      this.filled = 0;
    } else {
      this.skip = bodyLength;
    }
  }
}

/** The pinned settings' values in `db`'s session now: what every connection starts with. */
async function readBaseline(db) {
  const columns = PINNED_PARAMETERS.map((name, i) => `pg_catalog.current_setting($${i + 1}) as p${i}`);
  const { rows } = await db.query(`select ${columns.join(', ')}`, PINNED_PARAMETERS);
  const row = rows[0] ?? {};
  return new Map(PINNED_PARAMETERS.map((name, i) => [name, String(row[`p${i}`])]));
}

/**
 * Serves `db` on a Unix socket (`path`) or TCP (`host`, default 127.0.0.1; `port`, default 0: a
 * free one). Resolves once it listens.
 */
export async function serve({ db, path, host = '127.0.0.1', port = 0, maxConnections = 8, log = () => {} }) {
  const queue = new CallQueue(db, await readBaseline(db));
  /** @type {Map<import('node:net').Socket, Connection>} */
  const connections = new Map();
  /** Every open socket, refused ones too: stop() closes them all. */
  const sockets = new Set();

  const server = createServer((socket) => {
    // At once, before anything can fail: a client resetting must never raise an unhandled 'error'.
    socket.on('error', (err) => {
      if (ROUTINE_ERRORS.has(err.code)) log('debug', 'client connection reset', err);
      else log('warn', 'socket error', err);
    });
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    if (connections.size >= maxConnections) {
      log('warn', `connection refused: ${maxConnections} connections already open`);
      socket.end(fatal('53300', 'sorry, too many clients already'));
      return;
    }
    socket.setNoDelay(true);
    const conn = new Connection(socket, queue, log);
    connections.set(socket, conn);
    socket.on('data', (data) => {
      try {
        conn.receive(data);
      } catch (err) {
        log('warn', 'closing a connection after an error', err);
        socket.destroy();
      }
    });
    socket.once('close', () => {
      conn.closed = true;
      connections.delete(socket);
      queue.drop(conn);
    });
  });

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    const listening = () => {
      server.off('error', reject);
      server.on('error', (err) => log('warn', 'server error', err));
      resolve();
    };
    if (path) server.listen(path, listening);
    else server.listen(port, host, listening);
  });
  const address = server.address();

  let stopping;
  return {
    path,
    host: path ? undefined : host,
    port: path || typeof address !== 'object' || !address ? undefined : address.port,
    connections: () => connections.size,
    stop() {
      stopping ??= (async () => {
        const closed = new Promise((resolve) => server.close(() => resolve()));
        const idle = queue.stop();
        for (const socket of sockets) socket.destroy();
        await closed;
        await idle;
      })();
      return stopping;
    },
  };
}
