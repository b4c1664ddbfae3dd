#!/usr/bin/env node
/**
 * Lints the published packages as they are packed (scripts/release-pack.mjs builds and packs them
 * into release/):
 *
 * - publint `--strict` (warnings fail too) on every tarball: package.json fields, exports, files;
 * - arethetypeswrong on `@gradual/sdk`, profile `node16`: every subpath export resolves to the
 *   right types under Node's ESM and CommonJS resolution and under bundlers. The `node10` profile
 *   is left out: Node 10 resolution ignores `exports`, so subpaths cannot resolve there, and the
 *   package needs Node 20.19.
 * - `@gradual/cli` is a command (`bin`) with no importable entry point and no types, so
 *   arethetypeswrong has nothing to check in it.
 *
 * `npm run lint:package`; `-- --no-build` lints what is built.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { releasePack } from './release-pack.mjs';

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));
const bin = (name) => join(root, 'node_modules/.bin', name);

const packed = await releasePack({ build: !process.argv.includes('--no-build') });
const checks = packed.flatMap((p) => [
  { what: `publint --strict ${p.name}`, cmd: bin('publint'), args: ['run', p.tarball, '--strict'] },
  ...(p.name === '@gradual/sdk' ? [{ what: `attw --profile node16 ${p.name}`, cmd: bin('attw'), args: [p.tarball, '--profile', 'node16', '--format', 'table-flipped'] }] : []),
]);
const results = await Promise.all(
  checks.map((c) =>
    run(c.cmd, c.args, { cwd: root, maxBuffer: 16 * 1024 * 1024 }).then(
      (r) => ({ ...c, ok: true, output: r.stdout + r.stderr }),
      (err) => ({ ...c, ok: false, output: `${err.stdout ?? ''}${err.stderr ?? err}` }),
    ),
  ),
);
for (const r of results) {
  console.log(`${r.ok ? 'ok  ' : 'FAIL'} ${r.what}`);
  if (!r.ok) console.log(r.output.trimEnd().replace(/^/gm, '     '));
}
if (!packed.some((p) => p.name === '@gradual/cli')) console.log('skip @gradual/cli: no build yet (cli/tsup.config.ts)');
process.exit(results.every((r) => r.ok) ? 0 : 1);
