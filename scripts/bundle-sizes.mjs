#!/usr/bin/env node
/**
 * What the SDK costs an application's bundle: three entry points bundled by esbuild as a browser
 * application would (ESM, tree-shaking, minified), measured minified and gzipped (level 9).
 *
 * - REST client: `createClient` from `@gradual/sdk`;
 * - live client: `createFlagClient` from `@gradual/sdk` (it includes the evaluator);
 * - evaluator: `compileRuleset` and `bucket` from `@gradual/sdk/evaluation`.
 *
 * `@gradual/sdk` resolves from `--from <dir>` (default the repository root, where it is the
 * workspace and its built `dist/`: run `npm run build -w sdk` first). tests/sdk/pack.test.ts runs the
 * same bundles against the installed tarball.
 *
 * `npm run size` prints the table; `npm run size -- --write` also puts it into docs/benchmarks.md
 * (between the bundle-sizes markers).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The measured entry points: a label and the module an application would write. */
export const ENTRIES = [
  { id: 'rest', label: 'REST client (`createClient`)', code: `export { createClient } from '@gradual/sdk';` },
  { id: 'live', label: 'live client (`createFlagClient`)', code: `export { createFlagClient } from '@gradual/sdk';` },
  { id: 'evaluation', label: 'evaluator (`compileRuleset`, `bucket` from `/evaluation`)', code: `export { compileRuleset, bucket } from '@gradual/sdk/evaluation';` },
];

/**
 * A string only the live client's code holds (the Accept header of its event stream): kept by
 * minification, absent from the REST client's bundle when the live client is tree-shaken away.
 */
export const LIVE_CLIENT_MARKER = 'text/event-stream';

/** Bundles one application module, resolving packages from `resolveDir`; resolves with the minified code. */
export async function bundle(code, resolveDir) {
  const result = await build({
    stdin: { contents: code, resolveDir, loader: 'js', sourcefile: 'app.js' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    treeShaking: true,
    legalComments: 'none',
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}

/** Every entry of ENTRIES bundled from `resolveDir`: `{ id, label, code, minified, gzip }` (bytes). */
export async function measure(resolveDir = root) {
  return Promise.all(
    ENTRIES.map(async (entry) => {
      const code = await bundle(entry.code, resolveDir);
      return { id: entry.id, label: entry.label, code, minified: Buffer.byteLength(code), gzip: gzipSync(code, { level: 9 }).length };
    }),
  );
}

const kB = (bytes) => `${(bytes / 1000).toFixed(1)} kB`;

/** The Markdown table of measure()'s results. */
export function table(results) {
  return [
    '| entry point | minified | minified + gzip |',
    '|---|---|---|',
    ...results.map((r) => `| ${r.label} | ${kB(r.minified)} | ${kB(r.gzip)} |`),
  ].join('\n');
}

const START = '<!-- bundle-sizes:start -->';
const END = '<!-- bundle-sizes:end -->';

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const fromAt = args.indexOf('--from');
  const results = await measure(fromAt >= 0 ? resolve(args[fromAt + 1] ?? '.') : root);
  const text = table(results);
  console.log(text);
  if (args.includes('--write')) {
    const file = join(root, 'docs/benchmarks.md');
    const doc = await readFile(file, 'utf8');
    const start = doc.indexOf(START);
    const end = doc.indexOf(END);
    if (start < 0 || end < start) throw new Error(`docs/benchmarks.md: no ${START} … ${END} section`);
    await writeFile(file, `${doc.slice(0, start + START.length)}\n${text}\n${doc.slice(end)}`);
    console.log('written to docs/benchmarks.md');
  }
}
