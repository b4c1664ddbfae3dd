// The queue of PGlite calls behind the wire server (wire-server.js): PGlite is one PostgreSQL
// session, so every connection's calls run one at a time, through PGlite's public runExclusive
// and execProtocolRawStream. Plain JavaScript, like the rest of the worker's code.
//
// Session settings: the one session's settings would leak from one connection to every other
// (pg_dump's `set_config('search_path', '', false)` would break every unqualified query of the
// other clients). The settings PostgreSQL reports to clients (ParameterStatus: search_path,
// TimeZone, DateStyle, standard_conforming_strings, …, PINNED_PARAMETERS) are kept per
// connection: each connection starts with the values the session had when the server started,
// what it sets itself (as its answers report) is its own, and before each of its calls the
// session is set back to its values when another connection changed them. A connection that
// closes has the session's other settings reset (RESET ALL).

/** Reported settings kept per connection (above). */
export const PINNED_PARAMETERS = [
  'search_path',
  'TimeZone',
  'DateStyle',
  'IntervalStyle',
  'standard_conforming_strings',
  'client_encoding',
  'application_name',
  'default_transaction_read_only',
];

/**
 * Every PGlite call, one at a time and in order, except that while a transaction is open only
 * the calls of the connection that ran last (the one in the transaction) may run.
 */
export class CallQueue {
  /** `baseline`: the values of PINNED_PARAMETERS every connection starts with. */
  constructor(db, baseline = new Map()) {
    this.db = db;
    this.baseline = baseline;
    /** What the session's pinned settings are now, as far as this queue knows. */
    this.session = new Map(baseline);
    /** @type {{ conn: object, bytes?: Uint8Array, params?: Map<string, string>, onData?: (data: Uint8Array) => void, settle: (err?: Error) => void }[]} */
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

  /** A connection's answer reported a setting: it is the session's value now. */
  reported(name, value) {
    this.session.set(name, value);
  }

  /** Sets the session's pinned settings back to `params` (a connection's own) where they differ. */
  async pin(params) {
    const names = [];
    const values = [];
    for (const [name, value] of params) {
      if (this.session.get(name) === value) continue;
      names.push(name);
      values.push(name, value);
    }
    if (names.length === 0) return;
    const calls = names.map((_, i) => `pg_catalog.set_config($${2 * i + 1}, $${2 * i + 2}, false)`);
    await this.db.query(`select ${calls.join(', ')}`, values);
    for (const name of names) this.session.set(name, params.get(name));
  }

  /** A connection closed: the settings it may have changed go back to their defaults. */
  async resetSession() {
    await this.db.exec('RESET ALL');
    this.session = new Map(this.baseline);
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
            if (!this.db.isInTransaction()) await this.resetSession();
          } else {
            if (call.params && !this.db.isInTransaction()) await this.pin(call.params);
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
