// The queue of PGlite calls behind the wire server (wire-server.js): PGlite is one PostgreSQL
// session, so every connection's calls run one at a time, through PGlite's public runExclusive
// and execProtocolRawStream. Plain JavaScript, like the rest of the worker's code.

/**
 * Every PGlite call, one at a time and in order, except that while a transaction is open only
 * the calls of the connection that ran last (the one in the transaction) may run.
 */
export class CallQueue {
  constructor(db) {
    this.db = db;
    /** @type {{ conn: object, bytes?: Uint8Array, onData?: (data: Uint8Array) => void, settle: (err?: Error) => void }[]} */
    this.calls = [];
    this.running = false;
    /** Set by stop(): nothing more runs (PGlite may be closed next). */
    this.stopped = false;
    /** The connection whose call ran last. */
    this.owner = undefined;
    /** @type {(() => void)[]} */
    this.idleWaiters = [];
  }

  /** Queues a call (`bytes` undefined: roll back the connection's open transaction, if any). */
  push(call) {
    if (this.stopped) return call.settle(new Error('server stopped'));
    this.calls.push(call);
    void this.run();
  }

  /** Forgets the calls of a closed connection and rolls back its transaction if it holds one. */
  drop(conn) {
    const dropped = this.calls.filter((call) => call.conn === conn);
    this.calls = this.calls.filter((call) => call.conn !== conn);
    for (const call of dropped) call.settle(new Error('connection closed'));
    if (!this.stopped) this.push({ conn, settle: () => {} });
  }

  /** Runs nothing more; resolves once the call in progress, if any, has returned. */
  stop() {
    this.stopped = true;
    for (const call of this.calls.splice(0)) call.settle(new Error('server stopped'));
    return this.running ? new Promise((resolve) => this.idleWaiters.push(resolve)) : Promise.resolve();
  }

  async run() {
    if (this.running) return;
    this.running = true;
    try {
      while (this.calls.length > 0 && !this.stopped) {
        let next = 0;
        if (this.owner && this.db.isInTransaction()) {
          next = this.calls.findIndex((call) => call.conn === this.owner);
          if (next === -1) break; // the transaction's connection sends its next call later
        }
        const [call] = this.calls.splice(next, 1);
        try {
          if (!call.bytes) {
            if (this.owner === call.conn && this.db.isInTransaction()) await this.db.exec('ROLLBACK');
            if (this.owner === call.conn) this.owner = undefined;
          } else {
            this.owner = call.conn;
            await this.db.runExclusive(() => this.db.execProtocolRawStream(call.bytes, { onRawData: call.onData }));
          }
          call.settle();
        } catch (err) {
          call.settle(err instanceof Error ? err : new Error(String(err)));
        }
      }
    } finally {
      this.running = false;
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }
}
