import { defineConfig } from 'vitest/config';

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
    exclude: ['**/node_modules/**', '**/dist/**'],
    globalSetup: ['tests/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores: two files at a time keeps PGlite start-up and PostgreSQL honest.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
