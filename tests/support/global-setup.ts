/**
 * vitest globalSetup: builds one migrated template database per run (see database.ts) and, with
 * GRADUAL_TEST_VIA_PRISM=1, starts the one Prism validating proxy every test server's requests go
 * through (prism.ts, startSharedPrism).
 * Wire it in vitest.config.ts: test.globalSetup: ['./tests/support/global-setup.ts'].
 */
import type { TestProject } from 'vitest/node';
import { prepareTestDatabases } from './database-template.js';
import { startSharedPrism, type SharedPrism } from './prism.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = performance.now();
  const { context, teardown } = await prepareTestDatabases();
  project.provide('gradualTestDatabase', context);
  console.log(`[global-setup] ${context.kind} template database ready in ${Math.round(performance.now() - started)} ms`);
  let prism: SharedPrism | undefined;
  if (process.env.GRADUAL_TEST_VIA_PRISM === '1') {
    try {
      prism = await startSharedPrism();
    } catch (err) {
      await teardown();
      throw err;
    }
  }
  project.provide('gradualPrism', prism?.url);
  return async () => {
    await prism?.close();
    await teardown();
  };
}
