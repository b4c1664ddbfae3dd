import { defineConfig } from 'vitest/config';
export default defineConfig({
  root: '/work/main',
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'] } },
  test: { include: ['server/src/domain/rollouts/**/*.test.ts'], pool: 'forks', maxWorkers: 2 },
});
