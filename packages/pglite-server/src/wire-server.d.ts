import type { ExecProtocolOptionsStream, PGliteInterface } from '@electric-sql/pglite';

/** What the wire server uses of PGlite (a PGlite instance): all public API. */
export interface ServedPGlite extends Pick<PGliteInterface, 'runExclusive' | 'isInTransaction' | 'exec' | 'query'> {
  execProtocolRawStream(message: Uint8Array, options: ExecProtocolOptionsStream): Promise<void>;
}

/** `debug`: routine (a client resetting its connection); `warn`: worth a look. */
export type WireServerLog = (level: 'debug' | 'warn', msg: string, err?: Error) => void;

export interface WireServerOptions {
  db: ServedPGlite;
  /** A Unix socket path; when absent, TCP on `host`:`port`. */
  path?: string;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: a free port, reported as `port` once listening. */
  port?: number;
  /** Connections over this many are refused with SQLSTATE 53300. Default 8. */
  maxConnections?: number;
  log?: WireServerLog;
}

export interface WireServer {
  path: string | undefined;
  host: string | undefined;
  port: number | undefined;
  /** Open client connections. */
  connections(): number;
  /** Stops listening, closes every connection and waits for the PGlite call in progress. Leaves `db` open. */
  stop(): Promise<void>;
}

/** Serves `db` over the PostgreSQL wire protocol (wire-server.js). Resolves once it listens. */
export function serve(opts: WireServerOptions): Promise<WireServer>;
