/**
 * Which databases the bench runs on, and a fresh one per benchmark.
 *
 * Embedded PGlite always; PostgreSQL when BENCH_DATABASE_URL or DATABASE_URL names an admin
 * database (e.g. postgres://postgres@127.0.0.1:5432/postgres), or when the default local server
 * answers. Every benchmark gets a fresh database through the test harness
 * (tests/support/server.ts → tests/support/database.ts): an in-memory copy of a migrated
 * template on PGlite, a new `gradual_t_…` database (created, migrated, dropped WITH (FORCE)) on
 * PostgreSQL. The test harness prefix means a crashed bench's leftovers are also swept by the
 * test suite's global setup after 6 h.
 */
import { connect } from 'node:net';
import { withAdminConnection } from '../../server/src/db/admin.js';
import { startTestServer, type TestServer } from '../../tests/support/server.js';

export type BackendKind = 'embedded' | 'postgres';

export interface Backend {
  kind: BackendKind;
  /** Admin database URL (PostgreSQL only); passwords are never printed. */
  adminUrl?: string;
  label: string;
}

const DEFAULT_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

function redact(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

function tcpReachable(url: string, timeoutMs = 1000): Promise<boolean> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: u.hostname || '127.0.0.1', port: Number(u.port || 5432) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * The backends to run, honouring BENCH_BACKENDS=embedded|postgres|all (default all reachable).
 * An explicitly configured PostgreSQL URL that does not answer is an error; the implicit
 * local default is just skipped.
 */
export async function detectBackends(): Promise<{ backends: Backend[]; notes: string[] }> {
  const wanted = (process.env.BENCH_BACKENDS ?? 'all').split(',').map((s) => s.trim());
  const want = (k: BackendKind) => wanted.includes('all') || wanted.includes(k);
  const backends: Backend[] = [];
  const notes: string[] = [];
  if (want('embedded')) backends.push({ kind: 'embedded', label: 'PGlite (embedded)' });
  if (want('postgres')) {
    const explicit = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL;
    const adminUrl = explicit ?? DEFAULT_ADMIN_URL;
    let ok = await tcpReachable(adminUrl);
    if (ok) {
      ok = await withAdminConnection(adminUrl, async (execute) => {
        const rows = await execute('show server_version');
        const version = rows[0]?.server_version;
        notes.push(`PostgreSQL ${typeof version === 'string' ? version : '?'} at ${redact(adminUrl)}`);
        return true;
      }).catch((err: Error) => {
        notes.push(`PostgreSQL at ${redact(adminUrl)} refused: ${err.message}`);
        return false;
      });
    }
    if (ok) backends.push({ kind: 'postgres', adminUrl, label: `PostgreSQL (${new URL(adminUrl).host})` });
    else if (explicit) throw new Error(`PostgreSQL at ${redact(adminUrl)} is not reachable`);
    else notes.push(`no PostgreSQL at ${redact(adminUrl)}: PostgreSQL runs skipped`);
  }
  return { backends, notes };
}

/**
 * A real server (settable test clock, so no background scheduler ticks; silent logs) on a
 * fresh database of `backend`, exactly as the HTTP tests start one. close() stops the server
 * and drops the database.
 */
export async function startBenchServer(backend: Backend, env: Record<string, string> = {}): Promise<TestServer> {
  // The harness picks PostgreSQL from DATABASE_URL, read synchronously when startTestServer is
  // called: point it at our admin database for that call only (loadConfig gets its own env).
  const saved = process.env.DATABASE_URL;
  if (backend.kind === 'postgres') process.env.DATABASE_URL = backend.adminUrl;
  else delete process.env.DATABASE_URL;
  let starting: Promise<TestServer>;
  try {
    starting = startTestServer(env);
  } finally {
    if (saved === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = saved;
  }
  const t = await starting;
  if (t.url !== t.server.url) {
    await t.close();
    throw new Error('the test server is behind a proxy (GRADUAL_TEST_VIA_PRISM?): refusing to measure through it');
  }
  if (t.server.deps.db.kind !== backend.kind) {
    await t.close();
    throw new Error(`asked for a ${backend.kind} database, got ${t.server.deps.db.kind}`);
  }
  return t;
}
