/**
 * Release tooling for the published packages, `@gradual/sdk` and `@gradual/cli`
 * (docs/development.md, "Releasing"). `node --import tsx scripts/release/release.ts <command>`:
 *
 * - `pack` (`npm run release:pack`): builds both packages (at once: the CLI's bundle leaves
 *   `@gradual/sdk` external) and packs them, as `npm publish` would upload them, into `release/`
 *   (gitignored); prints one tarball path per line. `--out <dir>` packs elsewhere, `--no-build`
 *   packs what is built, `--json` prints `[{ name, version, tarball, files }]`.
 * - `lint` (`npm run lint:package`): `pack`, then publint `--strict` on every tarball and
 *   arethetypeswrong on the SDK's. arethetypeswrong runs with the `node16` profile: Node 10
 *   resolution ignores `exports`, so no subpath can resolve there, and the package needs Node 20.19.
 *   The CLI is a command (`bin`) with no importable entry point and no types: arethetypeswrong has
 *   nothing to check in it.
 * - `size` (`npm run size`): the SDK's bundle sizes for a browser application (below), from the
 *   built workspace; `--write` puts the table into docs/benchmarks.md.
 * - `docs-check` (`npm run docs:sdk:check`): fails when docs/reference/sdk/ is not what TypeDoc
 *   generates from the SDK's source (`npm run docs:sdk` regenerates it).
 *
 * tests/sdk/pack.test.ts uses releasePack() and measureBundles() on the installed tarballs.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const MAX_BUFFER = 16 * 1024 * 1024;

/** The environment without what npm sets for a running script (prefix, package, lifecycle), which would leak into nested npm calls. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^npm_/i.test(k) || /^npm_config_(registry|cache|userconfig|globalconfig|fund|audit|update_notifier)$/i.test(k),
    ),
  );
}

/** What a failed execFile printed. */
function outputOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const out = 'stdout' in err && typeof err.stdout === 'string' ? err.stdout : '';
  const errOut = 'stderr' in err && typeof err.stderr === 'string' ? err.stderr : '';
  return out + errOut || err.message;
}

// ── pack ────────────────────────────────────────────────────────────────────

export interface PackedPackage {
  name: string;
  version: string;
  /** Absolute path of the tarball. */
  tarball: string;
  /** Paths inside the tarball (`package.json`, `dist/index.js`…). */
  files: string[];
}

/** The published workspaces, in dependency order: the CLI once it has a build (cli/tsup.config.ts). */
export function publishedPackages(): string[] {
  return ['sdk', ...(existsSync(join(root, 'cli/tsup.config.ts')) ? ['cli'] : [])];
}

/** Builds (unless `build` is false) and packs every published package into `out` (default `release/`), emptied first. */
export async function releasePack(options: { out?: string; build?: boolean } = {}): Promise<PackedPackage[]> {
  const out = options.out ?? join(root, 'release');
  const env = cleanEnv();
  const dirs = publishedPackages();
  if (options.build !== false) {
    await Promise.all(
      dirs.map((dir) =>
        run('npm', ['run', 'build', '-w', dir], { cwd: root, env, maxBuffer: MAX_BUFFER }).catch((err: unknown) => {
          throw new Error(`npm run build -w ${dir} failed:\n${outputOf(err)}`);
        }),
      ),
    );
  }
  await rm(out, { recursive: true, force: true });
  await mkdir(out, { recursive: true });
  const packed: PackedPackage[] = [];
  for (const dir of dirs) {
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', out], { cwd: join(root, dir), env, maxBuffer: MAX_BUFFER });
    const [info] = JSON.parse(stdout) as [{ name: string; version: string; filename: string; files: { path: string }[] }];
    packed.push({ name: info.name, version: info.version, tarball: join(out, info.filename), files: info.files.map((f) => f.path) });
  }
  return packed;
}

// ── lint ────────────────────────────────────────────────────────────────────

/** publint and arethetypeswrong on the packed tarballs; resolves with whether all passed, having printed each result. */
export async function lintPackages(options: { build?: boolean } = {}): Promise<boolean> {
  const packed = await releasePack(options);
  const bin = (name: string) => join(root, 'node_modules/.bin', name);
  const checks = packed.flatMap((p) => [
    { what: `publint --strict ${p.name}`, cmd: bin('publint'), args: ['run', p.tarball, '--strict'] },
    ...(p.name === '@gradual/sdk' ? [{ what: `attw --profile node16 ${p.name}`, cmd: bin('attw'), args: [p.tarball, '--profile', 'node16', '--format', 'table-flipped'] }] : []),
  ]);
  const results = await Promise.all(
    checks.map((c) =>
      run(c.cmd, c.args, { cwd: root, maxBuffer: MAX_BUFFER }).then(
        (r) => ({ ...c, ok: true, output: r.stdout + r.stderr }),
        (err: unknown) => ({ ...c, ok: false, output: outputOf(err) }),
      ),
    ),
  );
  for (const r of results) {
    console.log(`${r.ok ? 'ok  ' : 'FAIL'} ${r.what}`);
    if (!r.ok) console.log(r.output.trimEnd().replace(/^/gm, '     '));
  }
  if (packed.some((p) => p.name === '@gradual/cli')) console.log('skip attw @gradual/cli: a command (bin) with no importable entry point or types');
  else console.log('skip @gradual/cli: no build (cli/tsup.config.ts)');
  return results.every((r) => r.ok);
}

// ── bundle sizes ────────────────────────────────────────────────────────────

export type BundleId = 'rest' | 'live' | 'evaluation';

/** The measured entry points: the module an application would write. */
export const BUNDLE_ENTRIES: { id: BundleId; label: string; code: string }[] = [
  { id: 'rest', label: 'REST client (`createClient`)', code: `export { createClient } from '@gradual/sdk';` },
  { id: 'live', label: 'live client (`createFlagClient`)', code: `export { createFlagClient } from '@gradual/sdk';` },
  { id: 'evaluation', label: 'evaluator (`compileRuleset`, `bucket` from `/evaluation`)', code: `export { compileRuleset, bucket } from '@gradual/sdk/evaluation';` },
];

/**
 * A string only the live client's code holds (the Accept header of its event stream): kept by
 * minification, absent from the REST client's bundle when the live client is tree-shaken away.
 */
export const LIVE_CLIENT_MARKER = 'text/event-stream';

export interface BundleSize {
  id: BundleId;
  label: string;
  /** The minified bundle. */
  code: string;
  /** Bytes, minified. */
  minified: number;
  /** Bytes, minified and gzipped (level 9). */
  gzip: number;
}

/** Bundles one application module as a browser application would (ESM, tree-shaking, minified), resolving packages from `resolveDir`. */
export async function bundle(code: string, resolveDir: string): Promise<string> {
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
  return result.outputFiles[0]!.text;
}

/** Every entry of BUNDLE_ENTRIES bundled from `resolveDir` (default the repository, where `@gradual/sdk` is the built workspace). */
export async function measureBundles(resolveDir = root): Promise<BundleSize[]> {
  return Promise.all(
    BUNDLE_ENTRIES.map(async (entry) => {
      const code = await bundle(entry.code, resolveDir);
      return { id: entry.id, label: entry.label, code, minified: Buffer.byteLength(code), gzip: gzipSync(code, { level: 9 }).length };
    }),
  );
}

const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;

/** The Markdown table of measureBundles()'s results. */
export function bundleTable(sizes: BundleSize[]): string {
  return ['| entry point | minified | minified + gzip |', '|---|---|---|', ...sizes.map((s) => `| ${s.label} | ${kB(s.minified)} | ${kB(s.gzip)} |`)].join('\n');
}

/** Puts `table` into docs/benchmarks.md, between the bundle-sizes markers. */
async function writeBundleTable(table: string): Promise<void> {
  const [start, end] = ['<!-- bundle-sizes:start -->', '<!-- bundle-sizes:end -->'];
  const file = join(root, 'docs/benchmarks.md');
  const doc = await readFile(file, 'utf8');
  const from = doc.indexOf(start);
  const to = doc.indexOf(end);
  if (from < 0 || to < from) throw new Error(`docs/benchmarks.md: no ${start} … ${end} section`);
  await writeFile(file, `${doc.slice(0, from + start.length)}\n${table}\n${doc.slice(to)}`);
}

// ── API reference ───────────────────────────────────────────────────────────

/** Every file under `dir`, as sorted paths relative to it; none when `dir` does not exist. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

/** The differences between docs/reference/sdk/ and what TypeDoc generates now (`stale: <file>`…); none when it is fresh. */
export async function sdkDocsDrift(): Promise<string[]> {
  const committed = join(root, 'docs/reference/sdk');
  const fresh = await mkdtemp(join(tmpdir(), 'gradual-sdk-docs-'));
  try {
    const typedoc = join(root, 'node_modules/typedoc/bin/typedoc');
    await run(process.execPath, ['--import', 'tsx', typedoc, '--options', 'sdk/typedoc.json', '--out', fresh, '--logLevel', 'Error'], { cwd: root, maxBuffer: MAX_BUFFER }).catch(
      (err: unknown) => {
        throw new Error(`TypeDoc failed:\n${outputOf(err)}`);
      },
    );
    const [want, have] = await Promise.all([filesUnder(fresh), filesUnder(committed)]);
    const drift: string[] = [];
    for (const f of want) {
      if (!have.includes(f)) drift.push(`missing: ${f}`);
      else if ((await readFile(join(fresh, f), 'utf8')) !== (await readFile(join(committed, f), 'utf8'))) drift.push(`stale:   ${f}`);
    }
    for (const f of have) if (!want.includes(f)) drift.push(`extra:   ${f}`);
    return drift;
  } finally {
    await rm(fresh, { recursive: true, force: true });
  }
}

// ── command line ────────────────────────────────────────────────────────────

async function main(args: string[]): Promise<number> {
  const [command, ...rest] = args;
  const build = !rest.includes('--no-build');
  switch (command) {
    case 'pack': {
      const outAt = rest.indexOf('--out');
      if (outAt >= 0 && !rest[outAt + 1]) throw new Error('release pack: --out needs a directory');
      const packed = await releasePack({ ...(outAt >= 0 ? { out: resolve(rest[outAt + 1]!) } : {}), build });
      if (rest.includes('--json')) console.log(JSON.stringify(packed, null, 2));
      else for (const p of packed) console.log(p.tarball);
      if (!packed.some((p) => p.name === '@gradual/cli')) console.error('release pack: cli has no build (cli/tsup.config.ts), not packed');
      return 0;
    }
    case 'lint':
      return (await lintPackages({ build })) ? 0 : 1;
    case 'size': {
      const table = bundleTable(await measureBundles());
      console.log(table);
      if (rest.includes('--write')) {
        await writeBundleTable(table);
        console.log('written to docs/benchmarks.md');
      }
      return 0;
    }
    case 'docs-check': {
      const drift = await sdkDocsDrift();
      if (drift.length > 0) {
        console.error(`docs/reference/sdk/ is not what the SDK's source generates; run \`npm run docs:sdk\` and commit it.\n${drift.map((d) => `  ${d}`).join('\n')}`);
        return 1;
      }
      console.log('docs/reference/sdk/ is up to date');
      return 0;
    }
    default:
      console.error('usage: node --import tsx scripts/release/release.ts pack [--out <dir>] [--json] [--no-build] | lint [--no-build] | size [--write] | docs-check');
      return 2;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
