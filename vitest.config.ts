import { defineConfig } from 'vitest/config';

/**
 * Test files that never touch the database a run is given: pure units, the embedded database's
 * own package, the packed SDK, Prism's mock, the browser, and the first run (`npm start` always on
 * the embedded database). They run in the embedded pass only; with DATABASE_URL set the run is
 * the server on PostgreSQL, and these would repeat the embedded pass to the letter.
 */
const BACKEND_INDEPENDENT = [
  'packages/pglite-server/**',
  'contract/**',
  'sdk/src/**',
  'dashboard/src/**',
  'server/src/domain/**',
  'server/src/db/watchdog.test.ts',
  'tests/sdk/pack.test.ts',
  'tests/cli/units.test.ts',
  'tests/contract/**',
  'tests/dashboard/**',
  'tests/e2e/**',
];

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
    include: ['**/*.test.ts', '**/*.test.tsx'],
    exclude: ['**/node_modules/**', '**/dist/**', ...(process.env.DATABASE_URL ? BACKEND_INDEPENDENT : [])],
    globalSetup: ['tests/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores: two files at a time keeps PGlite start-up and PostgreSQL honest.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
