#!/usr/bin/env node
/**
 * Builds the published packages and packs them, as `npm publish` would upload them, into one
 * folder (default `release/`, gitignored):
 *
 * - `@gradual/sdk` (`npm run build -w sdk`, tsup into sdk/dist);
 * - `@gradual/cli` (`npm run build -w cli`), once the workspace has a build (cli/tsup.config.ts).
 *
 * Both builds run at once; the CLI's bundle leaves `@gradual/sdk` external, so it does not wait for
 * the SDK's. Prints one tarball path per line.
 *
 * `npm run release:pack [-- --out <dir>] [-- --json]`. `--json` prints `[{ name, version,
 * tarball, files }]` instead (tests/sdk/pack.test.ts uses it); `--no-build` packs what is built.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));

/** The workspaces that are published, in dependency order, and whether each one has a build yet. */
export function publishedPackages() {
  return [
    { dir: 'sdk', buildable: true },
    { dir: 'cli', buildable: existsSync(join(root, 'cli/tsup.config.ts')) },
  ].filter((p) => p.buildable);
}

/** The environment without what npm sets for a running script (prefix, package, lifecycle), which would leak into nested npm calls. */
function cleanEnv() {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^npm_/i.test(k) || /^npm_config_(registry|cache|userconfig|globalconfig|fund|audit|update_notifier)$/i.test(k),
    ),
  );
}

/**
 * Builds (unless `build` is false) and packs every published package into `out`, emptied first.
 * Resolves with `[{ name, version, tarball, files }]`; `files` are the paths inside the tarball.
 */
export async function releasePack({ out = join(root, 'release'), build = true } = {}) {
  const env = cleanEnv();
  const packages = publishedPackages();
  if (build) {
    await Promise.all(
      packages.map((p) =>
        run('npm', ['run', 'build', '-w', p.dir], { cwd: root, env, maxBuffer: 16 * 1024 * 1024 }).catch((err) => {
          throw new Error(`npm run build -w ${p.dir} failed:\n${err.stdout ?? ''}${err.stderr ?? err}`);
        }),
      ),
    );
  }
  await rm(out, { recursive: true, force: true });
  await mkdir(out, { recursive: true });
  const packed = [];
  for (const p of packages) {
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', out], { cwd: join(root, p.dir), env, maxBuffer: 16 * 1024 * 1024 });
    const [info] = JSON.parse(stdout);
    packed.push({ name: info.name, version: info.version, tarball: join(out, info.filename), files: info.files.map((f) => f.path) });
  }
  return packed;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const outAt = args.indexOf('--out');
  const out = outAt >= 0 ? resolve(args[outAt + 1] ?? '') : undefined;
  if (outAt >= 0 && !args[outAt + 1]) {
    console.error('release-pack: --out needs a directory');
    process.exit(2);
  }
  const packed = await releasePack({ ...(out ? { out } : {}), build: !args.includes('--no-build') });
  if (args.includes('--json')) console.log(JSON.stringify(packed, null, 2));
  else for (const p of packed) console.log(p.tarball);
  if (!existsSync(join(root, 'cli/tsup.config.ts')) && !args.includes('--json')) console.error('release-pack: cli has no build (cli/tsup.config.ts), not packed');
}
