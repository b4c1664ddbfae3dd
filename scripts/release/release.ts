/**
 * Release tooling for the published packages, `@gradual/sdk` and `@gradual/cli`
 * (docs/development.md, "Releasing"). `node --import tsx scripts/release/release.ts <command>`:
 *
 * - `pack` (`npm run release:pack`): builds both packages (at once: the CLI's bundle leaves
 *   `@gradual/sdk` external) and packs them, as `npm publish` would upload them, into `release/`
 *   (gitignored); prints one tarball path per line. `--out <dir>` packs elsewhere, `--no-build`
 *   packs what is built, `--json` prints `[{ name, version, tarball, files }]`.
 * - `lint` (`npm run lint:package`): `pack`, then publint `--strict` on every tarball and
 *   arethetypeswrong on the SDK's; `npm publish --dry-run` in every published package's directory
 *   (below); and `size --check` on the build just made. arethetypeswrong runs with the `node16`
 *   profile: Node 10 resolution ignores `exports`, so no subpath can resolve there, and the package
 *   needs Node 20.19. The CLI is a command (`bin`) with no importable entry point and no types:
 *   arethetypeswrong has nothing to check in it.
 * - `size` (`npm run size`): the SDK's bundle sizes for a browser application (below), from the
 *   built workspace; `--write` puts the table into docs/benchmarks.md, `--check` fails when the
 *   table there is not what is measured (bundleTableDrift()).
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
  const results: { what: string; ok: boolean; output: string }[] = await Promise.all(
    checks.map((c) =>
      run(c.cmd, c.args, { cwd: root, maxBuffer: MAX_BUFFER }).then(
        (r) => ({ ...c, ok: true, output: r.stdout + r.stderr }),
        (err: unknown) => ({ ...c, ok: false, output: outputOf(err) }),
      ),
    ),
  );
  // One at a time: each is a short npm process, and the bundle sizes read the build the pack made.
  for (const dir of publishedPackages()) results.push(await publishDryRun(dir));
  const drift = await bundleTableDrift(await measureBundles());
  results.push({ what: 'bundle sizes in docs/benchmarks.md', ok: drift.length === 0, output: drift.length === 0 ? '' : bundleDriftMessage(drift) });
  for (const r of results) {
    console.log(`${r.ok ? 'ok  ' : 'FAIL'} ${r.what}`);
    if (!r.ok) console.log(r.output.trimEnd().replace(/^/gm, '     '));
  }
  if (packed.some((p) => p.name === '@gradual/cli')) console.log('skip attw @gradual/cli: a command (bin) with no importable entry point or types');
  else console.log('skip @gradual/cli: no build (cli/tsup.config.ts)');
  return results.every((r) => r.ok);
}

/**
 * npm's own warning for a dry run without registry credentials: expected everywhere but on the
 * machine that publishes, and no fault of the package.
 */
const NOT_LOGGED_IN = /^npm warn publish This command requires you to be logged in to .* \(dry-run\)$/;

/**
 * `npm publish --dry-run` in a published package's directory: npm's checks of the manifest (the
 * fields it would auto-correct, `publishConfig`, a prerelease without a tag) and of the packed
 * contents, without uploading. It fails on a non-zero exit or on any `npm warn` line but the
 * "not logged in" one.
 *
 * npm also asks the registry which versions are published, to refuse one that already is; when the
 * registry cannot answer, npm goes on as if none were. `--fetch-retries=0` and `--fetch-timeout`
 * bound what that costs offline (npm's defaults retry for about a minute); online, a version
 * already on the registry fails the check.
 */
export async function publishDryRun(dir: string): Promise<{ what: string; ok: boolean; output: string }> {
  const what = `npm publish --dry-run ${dir}/`;
  const args = ['publish', '--dry-run', '--fetch-retries=0', '--fetch-timeout=10000'];
  try {
    const { stdout, stderr } = await run('npm', args, { cwd: join(root, dir), env: cleanEnv(), maxBuffer: MAX_BUFFER });
    const warnings = stderr.split('\n').filter((line) => /^npm warn/i.test(line) && !NOT_LOGGED_IN.test(line));
    return { what, ok: warnings.length === 0, output: warnings.length === 0 ? stdout + stderr : warnings.join('\n') };
  } catch (err) {
    return { what, ok: false, output: outputOf(err) };
  }
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

const BENCHMARKS_DOC = join(root, 'docs/benchmarks.md');
const [TABLE_START, TABLE_END] = ['<!-- bundle-sizes:start -->', '<!-- bundle-sizes:end -->'];

/** docs/benchmarks.md and where the text between its bundle-sizes markers starts and ends. */
async function readBundleSection(): Promise<{ doc: string; from: number; to: number }> {
  const doc = await readFile(BENCHMARKS_DOC, 'utf8');
  const from = doc.indexOf(TABLE_START);
  const to = doc.indexOf(TABLE_END);
  if (from < 0 || to < from) throw new Error(`docs/benchmarks.md: no ${TABLE_START} … ${TABLE_END} section`);
  return { doc, from: from + TABLE_START.length, to };
}

/** Puts `table` into docs/benchmarks.md, between the bundle-sizes markers. */
async function writeBundleTable(table: string): Promise<void> {
  const { doc, from, to } = await readBundleSection();
  await writeFile(BENCHMARKS_DOC, `${doc.slice(0, from)}\n${table}\n${doc.slice(to)}`);
}

/**
 * How far a figure of the committed table may be from a fresh measurement, in bytes: one step of
 * the table's last digit (0.1 kB). The minified bundles are the same wherever they are built
 * (esbuild's version is pinned), but the gzip figures depend on the zlib of the Node.js that
 * measures them, which can differ by some bytes and so move a figure across a rounding boundary.
 * Any real change of the SDK's weight beyond that fails the check.
 */
export const BUNDLE_SIZE_TOLERANCE_BYTES = 100;

/**
 * The rows of docs/benchmarks.md's bundle-size table that disagree with `sizes` by more than
 * BUNDLE_SIZE_TOLERANCE_BYTES (or are missing, or name no measured entry); none when it is fresh.
 * `table` defaults to the committed document's.
 */
export async function bundleTableDrift(sizes: BundleSize[], table?: string): Promise<string[]> {
  const { doc, from, to } = table === undefined ? await readBundleSection() : { doc: table, from: 0, to: table.length };
  const text = doc.slice(from, to);
  const rows = new Map<string, { minified: number; gzip: number }>();
  for (const line of text.split('\n')) {
    const cells = /^\|\s*(.+?)\s*\|\s*([\d.]+) kB\s*\|\s*([\d.]+) kB\s*\|$/.exec(line.trim());
    if (cells) rows.set(cells[1]!, { minified: Math.round(Number(cells[2]) * 1000), gzip: Math.round(Number(cells[3]) * 1000) });
  }
  const drift: string[] = [];
  for (const s of sizes) {
    const row = rows.get(s.label);
    rows.delete(s.label);
    if (!row) drift.push(`missing: ${s.label} (measured ${kB(s.minified)} / ${kB(s.gzip)})`);
    else if (Math.abs(row.minified - s.minified) > BUNDLE_SIZE_TOLERANCE_BYTES || Math.abs(row.gzip - s.gzip) > BUNDLE_SIZE_TOLERANCE_BYTES) {
      drift.push(`stale:   ${s.label}: the table says ${kB(row.minified)} / ${kB(row.gzip)}, measured ${kB(s.minified)} / ${kB(s.gzip)} (${s.minified} / ${s.gzip} bytes)`);
    }
  }
  for (const label of rows.keys()) drift.push(`extra:   ${label}`);
  return drift;
}

const bundleDriftMessage = (drift: string[]) =>
  `docs/benchmarks.md's bundle sizes are not what the built SDK measures (tolerance ${BUNDLE_SIZE_TOLERANCE_BYTES} bytes); run \`npm run build -w sdk && npm run size -- --write\` and commit it.\n${drift.map((d) => `  ${d}`).join('\n')}`;

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
      const sizes = await measureBundles();
      const table = bundleTable(sizes);
      console.log(table);
      if (rest.includes('--check')) {
        const drift = await bundleTableDrift(sizes);
        if (drift.length > 0) {
          console.error(bundleDriftMessage(drift));
          return 1;
        }
        console.log('docs/benchmarks.md agrees');
      }
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
      console.error('usage: node --import tsx scripts/release/release.ts pack [--out <dir>] [--json] [--no-build] | lint [--no-build] | size [--write] [--check] | docs-check');
      return 2;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
