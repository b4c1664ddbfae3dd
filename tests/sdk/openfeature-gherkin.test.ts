/**
 * The OpenFeature specification's Gherkin suites (tests/fixtures/openfeature-gherkin)
 * against GradualProvider: the specification's test flags are created in Gradual
 * through the HTTP API, and every pickle (a scenario, or one example row of a
 * Scenario Outline) runs as one test through @openfeature/server-sdk.
 *
 * Scenarios listed in expected-failures.json run with `it.fails`: one that starts
 * passing fails the run until the list is updated. All others must pass.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AstBuilder, GherkinClassicTokenMatcher, Parser, compile } from '@cucumber/gherkin';
import { IdGenerator, type GherkinDocument, type Pickle } from '@cucumber/messages';
import { AsyncLocalStorageTransactionContextPropagator, OpenFeature } from '@openfeature/server-sdk';
import { GradualProvider } from '@gradual/sdk/openfeature';
import { claim, startTestServer, type TestServer } from '../support/server.js';
import { createSpecFlags, RecordingGradualProvider, runStep, World, type GherkinEnv } from './openfeature-gherkin.steps.js';

const FIXTURES = new URL('../fixtures/openfeature-gherkin/', import.meta.url);

/** Feature file → scenario label → why Gradual fails it. */
const expectedFailures: Record<string, Record<string, string>> = JSON.parse(readFileSync(new URL('expected-failures.json', FIXTURES), 'utf8'));

interface Scenario {
  label: string;
  pickle: Pickle;
}

/** Example values of each Examples row, by the row's AST node id, and the tags of its Examples block. */
function exampleRows(doc: GherkinDocument): Map<string, { values: string; tags: string }> {
  const rows = new Map<string, { values: string; tags: string }>();
  const children = doc.feature?.children ?? [];
  const scenarios = children.flatMap((c) => [c.scenario, ...(c.rule?.children ?? []).map((rc) => rc.scenario)]);
  for (const scenario of scenarios) {
    for (const examples of scenario?.examples ?? []) {
      const header = examples.tableHeader?.cells.map((c) => c.value) ?? [];
      const tags = examples.tags.map((t) => t.name).join(' ');
      for (const row of examples.tableBody) {
        const values = row.cells.map((c, i) => `${header[i]}=${c.value.replace(/\\"/g, '"')}`).join(', ');
        rows.set(row.id, { values, tags });
      }
    }
  }
  return rows;
}

/**
 * Each pickle with its label: the scenario name, with the example row's values
 * for outlines (and the Examples block's tags where the values alone repeat).
 */
function loadFeature(file: string): Scenario[] {
  const newId = IdGenerator.incrementing();
  const doc = new Parser(new AstBuilder(newId), new GherkinClassicTokenMatcher()).parse(readFileSync(new URL(file, FIXTURES), 'utf8'));
  const rows = exampleRows(doc);
  const pickles = compile(doc, file, newId);
  const plain = pickles.map((p) => {
    const row = p.astNodeIds[1] !== undefined ? rows.get(p.astNodeIds[1]) : undefined;
    return { pickle: p, row, label: row ? `${p.name} [${row.values}]` : p.name };
  });
  const counts = new Map<string, number>();
  for (const s of plain) counts.set(s.label, (counts.get(s.label) ?? 0) + 1);
  return plain.map(({ pickle, row, label }) => ({
    pickle,
    label: row && (counts.get(label) ?? 0) > 1 ? `${pickle.name} ${row.tags} [${row.values}]` : label,
  }));
}

const FEATURES = readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.feature'))
  .sort()
  .map((file) => ({ file, scenarios: loadFeature(file) }));

const outcomes = new Map<string, boolean>();

describe('OpenFeature specification Gherkin suites against GradualProvider', () => {
  let t: TestServer;
  let env: GherkinEnv;

  beforeAll(async () => {
    t = await startTestServer();
    const owner = await claim(t);
    const s = owner.session;
    const projectId = (await s.createProject({ path: { slug: 'acme' }, body: { key: 'spec', name: 'Spec' } })).id;
    const envId = (await s.createEnvironment({ path: { id: projectId }, body: { key: 'test', name: 'Test' } })).id;
    const emptyProject = (await s.createProject({ path: { slug: 'acme' }, body: { key: 'empty', name: 'Empty' } })).id;
    const emptyEnvId = (await s.createEnvironment({ path: { id: emptyProject }, body: { key: 'test', name: 'Test' } })).id;
    const token = (await s.createApiKey({ path: { slug: 'acme' }, body: { name: 'sdk', actions: ['read'] } })).token;
    await createSpecFlags(s, projectId);

    // "a not ready provider" is closed while it still waits for its first ruleset, which the SDK
    // logs as an initialization error; everything else the SDK logs goes to the console.
    OpenFeature.setLogger({
      error: (...args: unknown[]) => {
        if (args[0] !== 'Error during provider initialization:') console.error(...args);
      },
      warn: (...args: unknown[]) => console.warn(...args),
      info: () => undefined,
      debug: () => undefined,
    });
    OpenFeature.setTransactionContextPropagator(new AsyncLocalStorageTransactionContextPropagator());
    const stable = new GradualProvider({ baseUrl: t.url, token, envId, logger: null });
    await OpenFeature.setProviderAndWait('gherkin-stable', stable);
    const recorder = new RecordingGradualProvider({ client: stable.client });
    await OpenFeature.setProviderAndWait('gherkin-context', recorder);
    env = { baseUrl: t.url, token, envId, emptyEnvId, stableDomain: 'gherkin-stable', contextDomain: 'gherkin-context', recorder };
  });

  afterAll(async () => {
    const passed = [...outcomes.values()].filter(Boolean).length;
    console.log(`OpenFeature Gherkin: ${passed} of ${outcomes.size} scenarios pass`);
    await OpenFeature.close();
    if (t) {
      const closing = t.close();
      t.server.http.closeAllConnections();
      await closing;
    }
  });

  it('expected-failures.json names only scenarios of the vendored features', () => {
    const known = new Set(FEATURES.flatMap(({ file, scenarios }) => scenarios.map((s) => `${file}: ${s.label}`)));
    const listed = Object.entries(expectedFailures).flatMap(([file, entries]) => Object.keys(entries).map((label) => `${file}: ${label}`));
    expect(listed.filter((l) => !known.has(l))).toEqual([]);
  });

  for (const { file, scenarios } of FEATURES) {
    describe(file, () => {
      for (const { label, pickle } of scenarios) {
        const reason = expectedFailures[file]?.[label];
        const test = reason === undefined ? it : it.fails;
        test(reason === undefined ? label : `${label} — fails: ${reason}`, async () => {
          const id = `${file}: ${label}`;
          outcomes.set(id, false);
          const world = new World(env);
          try {
            for (const step of pickle.steps) {
              const table = step.argument?.dataTable?.rows.map((r) => r.cells.map((c) => c.value));
              await runStep(world, step.text, table);
            }
          } finally {
            await world.cleanup();
          }
          outcomes.set(id, true);
        });
      }
    });
  }
});
