/**
 * vitest globalSetup: builds one migrated template database per run (see database.ts).
 * Wire it in vitest.config.ts: test.globalSetup: ['./tests/support/global-setup.ts'].
 */
import type { TestProject } from 'vitest/node';
import { prepareTestDatabases } from './database-template.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = performance.now();
  const { context, teardown } = await prepareTestDatabases();
  project.provide('gradualTestDatabase', context);
  console.log(`[global-setup] ${context.kind} template database ready in ${Math.round(performance.now() - started)} ms`);
  return teardown;
}
