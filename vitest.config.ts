import { defineConfig } from 'vitest/config';
import EnvironmentGroupingSequencer from './tests/support/sequencer.js';

/**
 * Which files run on PostgreSQL (DATABASE_URL set): those whose outcome depends on the database
 * behind the server. That is the server's own tests (its SQL, transactions, migrations, pools,
 * LISTEN/NOTIFY; server/src/domain is pure) and the server's black-box suites: tests/http (which CI
 * sends through Prism's validating proxy there), tests/hostile (partial writes) and tests/scale
 * (concurrent writers, several processes on one database, database failures). Every other file is a client of that same server or needs no server at all
 * (contract, SDK, CLI, dashboard, browser, packaging, the first run, Prism's mock, the embedded
 * database's own package): it runs on the embedded database only, since on PostgreSQL it would
 * repeat what the suites above check.
 *
 * A new test file joins the PostgreSQL pass by living in one of these folders; one there that never
 * touches the database goes in NOT_ON_POSTGRES. `GRADUAL_TEST_EVERY_FILE=1` runs every file on
 * PostgreSQL.
 */
const ON_POSTGRES = ['server/src/**/*.test.ts', 'tests/http/**/*.test.ts', 'tests/hostile/**/*.test.ts', 'tests/scale/**/*.test.ts'];
// The domain is pure; the watchdog and the statement pool are the embedded database's own; slow
// clients and bodies before authentication test the HTTP server's own limits and admission order;
// security headers, the origin check and the trusted proxy hop are decided before any query. The
// hostile input, scope and tenancy files depend on what the server decides and on SQL alone: the
// embedded database is the same PostgreSQL engine behind the same driver (the wire protocol over a
// socket), one connection or many changes none of their answers, and the PGlite pass ran them.
const NOT_ON_POSTGRES = [
  'server/src/domain/**',
  'server/src/db/watchdog.test.ts',
  'server/src/db/statement-pool.test.ts',
  'tests/hostile/slow-clients.test.ts',
  'tests/hostile/preauth-body.test.ts',
  'tests/hostile/fuzz.test.ts',
  'tests/hostile/targeted.test.ts',
  'tests/hostile/scope-matrix.test.ts',
  'tests/hostile/cross-tenant.test.ts',
  'tests/http/security-headers.test.ts',
  'tests/http/origin.test.ts',
  'tests/http/trust-proxy.test.ts',
];

const postgresSubset = Boolean(process.env.DATABASE_URL) && process.env.GRADUAL_TEST_EVERY_FILE !== '1';

/**
 * One runner for the whole repo. Every test file gets its own fresh database
 * (PGlite by default, PostgreSQL when DATABASE_URL is set) from tests/support.
 */
export default defineConfig({
  resolve: { conditions: ['@gradual/source'] },
  ssr: { resolve: { conditions: ['@gradual/source'] } },
  // The dashboard's component tests (.test.tsx) use React's automatic JSX runtime.
  oxc: { jsx: { runtime: 'automatic' } },
  test: {
    include: postgresSubset ? ON_POSTGRES : ['**/*.test.ts', '**/*.test.tsx'],
    exclude: ['**/node_modules/**', '**/dist/**', ...(postgresSubset ? NOT_ON_POSTGRES : [])],
    globalSetup: ['tests/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // A worker runs its files one after another in one module graph: the server, the ORM and the
    // contract load once per worker, not once per file (that import was a fifth of the suite's
    // time). Each file still gets its own database and its own servers; state a file changes in a
    // module it must restore itself (vi.restoreAllMocks, stubs undone in afterAll).
    isolate: false,
    // Two cores: two files at a time keeps PGlite start-up and PostgreSQL honest.
    maxWorkers: 2,
    // The node files, then the jsdom ones: a worker is replaced at each change of environment.
    sequence: { sequencer: EnvironmentGroupingSequencer },
    reporters: ['default'],
  },
});
