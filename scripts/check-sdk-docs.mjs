#!/usr/bin/env node
/**
 * Fails when the committed API reference of the SDK (docs/reference/sdk/) is not what TypeDoc
 * generates from the SDK's source now: regenerates it into a temporary folder with sdk/typedoc.json
 * and compares every file. `npm run docs:sdk` regenerates it in place.
 *
 * `npm run docs:sdk:check`.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));
const committed = join(root, 'docs/reference/sdk');

/** Every file under `dir`, as paths relative to it; none when `dir` does not exist. */
async function files(dir) {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => relative(dir, join(e.parentPath, e.name))).sort();
}

const fresh = await mkdtemp(join(tmpdir(), 'gradual-sdk-docs-'));
try {
  const typedoc = join(root, 'node_modules/typedoc/bin/typedoc');
  try {
    await run(process.execPath, [typedoc, '--options', 'sdk/typedoc.json', '--out', fresh, '--logLevel', 'Error'], { cwd: root, maxBuffer: 16 * 1024 * 1024 });
  } catch (err) {
    console.error(`TypeDoc failed:\n${err.stdout ?? ''}${err.stderr ?? err}`);
    process.exit(1);
  }
  const [want, have] = await Promise.all([files(fresh), files(committed)]);
  const problems = [];
  for (const f of want) {
    if (!have.includes(f)) problems.push(`missing: ${f}`);
    else if ((await readFile(join(fresh, f), 'utf8')) !== (await readFile(join(committed, f), 'utf8'))) problems.push(`stale:   ${f}`);
  }
  for (const f of have) if (!want.includes(f)) problems.push(`extra:   ${f}`);
  if (problems.length > 0) {
    console.error(`docs/reference/sdk/ is not what the SDK's source generates; run \`npm run docs:sdk\` and commit it.\n${problems.map((p) => `  ${p}`).join('\n')}`);
    process.exit(1);
  }
  console.log(`docs/reference/sdk/: ${want.length} files, up to date`);
} finally {
  await rm(fresh, { recursive: true, force: true });
}
