/**
 * The OpenFeature specification's Gherkin suites (tests/fixtures/openfeature-gherkin) as vitest
 * tests against one provider: every pickle (a scenario, or one example row of a Scenario Outline)
 * runs as one test through @openfeature/server-sdk, with the steps of openfeature-gherkin.steps.ts.
 *
 * Scenarios listed in the provider's expected-failures file run with `it.fails`: one that starts
 * passing fails the run until the list is updated. All others must pass.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AstBuilder, GherkinClassicTokenMatcher, Parser, compile } from '@cucumber/gherkin';
import { IdGenerator, type GherkinDocument, type Pickle } from '@cucumber/messages';
import { runStep, World, type GherkinEnv } from './openfeature-gherkin.steps.js';

const FIXTURES = new URL('../fixtures/openfeature-gherkin/', import.meta.url);

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


/**
 * Every feature's scenarios against the provider `setup` registers. `expectedFailuresFile` (in
 * tests/fixtures/openfeature-gherkin) maps feature file → scenario label → why it fails.
 */
export function gherkinSuite(title: string, expectedFailuresFile: string, setup: () => Promise<{ env: GherkinEnv; close(): Promise<void> }>): void {
  const expectedFailures: Record<string, Record<string, string>> = JSON.parse(readFileSync(new URL(expectedFailuresFile, FIXTURES), 'utf8'));
  const outcomes = new Map<string, boolean>();

  describe(title, () => {
    let ready: { env: GherkinEnv; close(): Promise<void> } | undefined;

    beforeAll(async () => {
      ready = await setup();
    });

    afterAll(async () => {
      const passed = [...outcomes.values()].filter(Boolean).length;
      console.log(`${title}: ${passed} of ${outcomes.size} scenarios pass`);
      await ready?.close();
    });

    it(`${expectedFailuresFile} names only scenarios of the vendored features`, () => {
      const known = new Set(FEATURES.flatMap(({ file, scenarios }) => scenarios.map((s) => `${file}: ${s.label}`)));
      const listed = Object.entries(expectedFailures).flatMap(([file, entries]) => Object.keys(entries).map((label) => `${file}: ${label}`));
      expect(listed.filter((l) => !known.has(l))).toEqual([]);
    });

    for (const { file, scenarios } of FEATURES) {
      describe(file, () => {
        for (const { label, pickle } of scenarios) {
          const reason = expectedFailures[file]?.[label];
          const run = async () => {
            const id = `${file}: ${label}`;
            outcomes.set(id, false);
            if (!ready) throw new Error('the provider was not set up');
            const world = new World(ready.env);
            try {
              for (const step of pickle.steps) {
                const table = step.argument?.dataTable?.rows.map((r) => r.cells.map((c) => c.value));
                await runStep(world, step.text, table);
              }
            } finally {
              await world.cleanup();
            }
            outcomes.set(id, true);
          };
          if (reason === undefined) it(label, run);
          else it.fails(`${label} — fails: ${reason}`, run);
        }
      });
    }
  });
}
