/**
 * The published packages, as a user gets them: `scripts/release/release.ts` builds (unless their
 * dist/ is newer than everything the build reads) and packs `@gradual/sdk` (and `@gradual/cli` once
 * it has a build), the tarballs are installed into empty projects, and then:
 *
 * - plain Node loads the SDK as ESM and CommonJS, in a project without the optional peers;
 * - TypeScript compiles a usage file and every ```ts block of sdk/README.md and README.md, with
 *   `strict` and `exactOptionalPropertyTypes`, under NodeNext and bundler resolution;
 * - the README blocks run, in order, against a real server (a claimed instance, org `acme`, an API
 *   key in GRADUAL_TOKEN); a block after an `<!-- compile-only -->` line is only compiled;
 * - esbuild bundles `createClient` for the browser without any of the live client's code, and
 *   prints the bundle sizes (`npm run size -- --write` puts them into docs/benchmarks.md);
 * - the `gradual` command of the installed CLI answers `--version` and `--help`.
 *
 * Runs once per CI run (the PGlite pass).
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { transform } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bucket } from '@gradual/sdk/evaluation';
import { bundleTable, LIVE_CLIENT_MARKER, measureBundles, releasePack, type BundleSize, type PackedPackage } from '../../scripts/release/release.js';
import { claim, startTestServer, type TestServer } from '../support/server.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const tsc = join(root, 'node_modules/typescript/bin/tsc');

/** The environment without what npm sets for a running script (prefix, package, lifecycle), which would leak into nested npm calls. */
const env = Object.fromEntries(
  Object.entries(process.env).filter(
    ([k]) => !/^npm_/i.test(k) || /^npm_config_(registry|cache|userconfig|globalconfig|fund|audit|update_notifier)$/i.test(k),
  ),
);
const sh = (cmd: string, args: string[], cwd: string, extraEnv: Record<string, string> = {}) =>
  run(cmd, args, { cwd, env: { ...env, ...extraEnv }, maxBuffer: 16 * 1024 * 1024, timeout: 90_000 });
/** A failed command's output (execFile's error carries it), else the error itself. */
const outputOf = (e: unknown): string =>
  typeof e === 'object' && e !== null && 'stdout' in e && typeof e.stdout === 'string'
    ? `${e.stdout}${'stderr' in e && typeof e.stderr === 'string' ? e.stderr : ''}`
    : String(e);
/** The version of a package installed in the repository, so the consumer installs come from npm's cache. */
const repoVersion = async (name: string) => (JSON.parse(await readFile(join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

interface ReadmeBlock {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  code: string;
  /** After an `<!-- compile-only -->` line: type-checked, not run (it needs a test runner, say). */
  compileOnly: boolean;
}

/** Every ```ts block of a Markdown file, verbatim. */
function tsBlocks(file: string, markdown: string): ReadmeBlock[] {
  const lines = markdown.split('\n');
  const blocks: ReadmeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^```ts\s*$/.test(lines[i]!)) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++) body.push(lines[i]!);
    let before = start - 1;
    while (before >= 0 && lines[before]!.trim() === '') before--;
    blocks.push({ file, line: start + 1, code: body.join('\n'), compileOnly: before >= 0 && lines[before]!.trim() === '<!-- compile-only -->' });
  }
  return blocks;
}

/** The runnable blocks of one README as one module, in order (later blocks use what earlier ones declared). */
const asModule = (blocks: ReadmeBlock[]) => blocks.map((b) => `// ${b.file}:${b.line}\n${b.code}`).join('\n\n') + '\nexport {};\n';

/** Test-runner globals the compile-only blocks may use (vitest, jest and node:test shapes alike). */
const TEST_GLOBALS = `
declare global {
  function beforeAll(fn: () => unknown): void;
  function afterAll(fn: () => unknown): void;
  function beforeEach(fn: () => unknown): void;
  function afterEach(fn: () => unknown): void;
  function describe(name: string, fn: () => void): void;
  function test(name: string, fn: () => unknown): void;
  function it(name: string, fn: () => unknown): void;
  function expect(actual: unknown): { toBe(expected: unknown): void; toEqual(expected: unknown): void; toBeDefined(): void };
}
export {};
`;

/** Every file under `path` (a file or a folder), without node_modules and build output. */
function filesUnder(path: string): string[] {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true }).flatMap((entry) =>
    entry.name === 'node_modules' || entry.name === 'dist' ? [] : filesUnder(join(path, entry.name)),
  );
}

/**
 * Whether sdk/dist and cli/dist were built after the last change to anything their builds read
 * (the packages, the contract and scripts/ they import, the TypeScript settings, the lockfile).
 * CI builds them in its published-packages step just before the tests: packing that build again
 * costs a full build (declarations included) for the same files.
 */
function builtIsFresh(): boolean {
  const outputs = ['sdk/dist', 'cli/dist'].map((dir) => join(root, dir));
  if (!outputs.every((dir) => existsSync(dir))) return false;
  const built = outputs.flatMap((dir) => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name)));
  if (built.length === 0) return false;
  const inputs = ['sdk', 'cli', 'contract', 'scripts', 'tsconfig.json', 'package.json', 'package-lock.json'].flatMap((p) => filesUnder(join(root, p)));
  const newestInput = Math.max(...inputs.map((f) => statSync(f).mtimeMs));
  const oldestOutput = Math.min(...built.map((f) => statSync(f).mtimeMs));
  return oldestOutput > newestInput;
}

const temp: string[] = [];
afterAll(async () => {
  for (const dir of temp) await rm(dir, { recursive: true, force: true });
});
const timings: Record<string, number> = {};
async function step<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await fn();
  } finally {
    timings[name] = Math.round(performance.now() - started);
  }
}

describe.skipIf(!!process.env.DATABASE_URL)('npm pack of @gradual/sdk and @gradual/cli', () => {
  let packed: PackedPackage[];
  let sdk: PackedPackage;
  let cli: PackedPackage | undefined;
  /** The SDK (and CLI), the optional peers and @types/node. */
  let project: string;
  /** The SDK alone: no optional peer. */
  let bare: string;
  let t: TestServer | undefined;
  let serverEnv: Record<string, string>;

  beforeAll(async () => {
    const packDir = await mkdtemp(join(tmpdir(), 'gradual-pack-'));
    project = await mkdtemp(join(tmpdir(), 'gradual-consumer-'));
    bare = await mkdtemp(join(tmpdir(), 'gradual-bare-'));
    temp.push(packDir, project, bare);

    const server = step('server', async () => {
      t = await startTestServer();
      const owner = await claim(t);
      const token = (await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'readme' } })).token;
      // An environment with a ruleset, for the blocks that read GRADUAL_ENV_ID.
      const s = owner.session;
      const projectId = (await s.createProject({ path: { slug: 'acme' }, body: { key: 'readme', name: 'README' } })).id;
      const envId = (await s.createEnvironment({ path: { id: projectId }, body: { key: 'production', name: 'Production' } })).id;
      await s.createFlag({ path: { id: projectId }, body: { key: 'new-checkout', name: 'New checkout', defaultValue: false } });
      await s.putFlagRollout({ path: { envId, key: 'new-checkout' }, body: { percent: 50, newValue: true } });
      serverEnv = { GRADUAL_URL: t.url, GRADUAL_TOKEN: token, GRADUAL_SDK_TOKEN: token, GRADUAL_ENV_ID: envId, GRADUAL_ORG: 'acme' };
    });

    const installed = (async () => {
      const build = !builtIsFresh();
      packed = await step(build ? 'build+pack' : 'pack (build fresh)', () => releasePack({ out: packDir, build }));
      sdk = packed.find((p) => p.name === '@gradual/sdk')!;
      cli = packed.find((p) => p.name === '@gradual/cli');
      const install = (dir: string, specs: string[]) =>
        sh('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts', '--no-package-lock', ...specs], dir).catch((e: unknown) => {
          throw new Error(`npm install in ${dir} failed:\n${outputOf(e)}`);
        });
      const peers = await Promise.all(['msw', '@openfeature/server-sdk', '@types/node'].map(async (name) => `${name}@${await repoVersion(name)}`));
      for (const dir of [project, bare]) await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }, null, 2));
      await Promise.all([
        step('install', () => install(project, [sdk.tarball, ...(cli ? [cli.tarball] : []), ...peers])),
        step('install bare', () => install(bare, [sdk.tarball])),
      ]);
    })();
    // The server starts while the packages build; both must succeed (allSettled: neither failure goes unobserved).
    const results = await Promise.allSettled([installed, server]);
    for (const r of results) if (r.status === 'rejected') throw r.reason;
  }, 240_000);

  afterAll(async () => {
    if (t) {
      const closing = t.close();
      t.server.http.closeAllConnections();
      await closing;
    }
    console.log(`[pack] ${packed?.map((p) => `${p.name}: ${p.files.length} files`).join(', ')}; timings (ms) ${JSON.stringify(timings)}`);
  });

  it('packs the built entries, the README and the CHANGELOG, and nothing else', async () => {
    for (const p of packed) {
      expect(p.files).toContain('package.json');
      expect(p.files).toContain('README.md');
      expect(p.files).toContain('CHANGELOG.md');
      expect(p.files).toContain('LICENSE');
      expect(p.files.filter((f) => !f.startsWith('dist/') && !['package.json', 'README.md', 'CHANGELOG.md', 'LICENSE'].includes(f)), p.name).toEqual([]);
    }
    for (const entry of ['index', 'evaluation/index', 'openfeature/index', 'testing/index']) {
      for (const ext of ['.js', '.cjs', '.d.ts', '.d.cts']) expect(sdk.files).toContain(`dist/${entry}${ext}`);
    }
    // The CHANGELOG describes the packed version.
    const changelog = await readFile(join(bare, 'node_modules/@gradual/sdk/CHANGELOG.md'), 'utf8');
    expect(changelog).toContain(`## ${sdk.version}\n`);

    // The evaluation entry has no runtime dependency: only relative imports, down to every chunk.
    const seen = new Set<string>();
    const bareImports: string[] = [];
    const walk = async (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const code = await readFile(file, 'utf8');
      for (const m of code.matchAll(/\bfrom\s*["']([^"']+)["']|\bimport\s*\(?\s*["']([^"']+)["']/g)) {
        const spec = (m[1] ?? m[2])!;
        if (spec.startsWith('.')) await walk(join(file, '..', spec));
        else bareImports.push(spec);
      }
    };
    await walk(join(bare, 'node_modules/@gradual/sdk/dist/evaluation/index.js'));
    expect(seen.size).toBeGreaterThan(1);
    expect(bareImports, 'imports of the evaluation entry').toEqual([]);
  });

  it('loads from ESM and CommonJS without the optional peers', async () => {
    const installed = await readdir(join(bare, 'node_modules'));
    expect(installed).not.toContain('msw');
    expect(installed).not.toContain('@openfeature');

    const expected = bucket('new-checkout:prod', 'user-1');
    const esm = await sh(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { createClient, GradualApiError, createFlagClient } from '@gradual/sdk';
         import { bucket, compileRuleset } from '@gradual/sdk/evaluation';
         const client = createClient({ baseUrl: 'http://127.0.0.1:9', token: 'svc_x' });
         if (typeof client.getRuleset !== 'function' || typeof createFlagClient !== 'function') throw new Error('missing exports');
         if (!(new GradualApiError(404, { code: 'not_found', message: 'x', requestId: 'r' }) instanceof Error)) throw new Error('GradualApiError');
         const r = compileRuleset({ envId: 'e', version: 1, primitives: [{ kind: 'flag', key: 'f', value: true, rules: [], rollout: null }] });
         console.log(JSON.stringify({ bucket: bucket('new-checkout:prod', 'user-1'), value: r.evaluate('f', {}).value }));`,
      ],
      bare,
    );
    expect(JSON.parse(esm.stdout)).toEqual({ bucket: expected, value: true });

    const cjs = await sh(
      process.execPath,
      [
        '-e',
        `const sdk = require('@gradual/sdk');
         const evaluation = require('@gradual/sdk/evaluation');
         if (typeof sdk.createClient({ baseUrl: 'http://127.0.0.1:9' }).evaluate !== 'function') throw new Error('createClient');
         if (typeof sdk.isGradualApiError !== 'function') throw new Error('isGradualApiError');
         console.log(JSON.stringify({ bucket: evaluation.bucket('new-checkout:prod', 'user-1') }));`,
      ],
      bare,
    );
    expect(JSON.parse(cjs.stdout)).toEqual({ bucket: expected });

    // The optional-peer entries say what is missing instead of half-loading.
    const testing = await sh(process.execPath, ['--input-type=module', '-e', `import('@gradual/sdk/testing').then(() => console.log('loaded'), (e) => console.log(e.code))`], bare);
    expect(testing.stdout.trim()).toBe('ERR_MODULE_NOT_FOUND');
  });

  it('type-checks a usage file and every README block: strict, exactOptionalPropertyTypes, NodeNext and bundler', { timeout: 120_000 }, async () => {
    const usage = `
      import { createClient, GradualApiError, type ErrorCode, type Ruleset } from '@gradual/sdk';
      import { bucket, compileRuleset, type EvaluationResult } from '@gradual/sdk/evaluation';

      const gradual = createClient({ baseUrl: 'http://localhost:8080', token: 'svc_x' });
      export async function main(): Promise<number> {
        const ruleset: Ruleset = await gradual.getRuleset({ path: { envId: 'env' } });
        const result: EvaluationResult | undefined = compileRuleset(ruleset).evaluate('new-checkout', { userId: 'u' });
        try {
          const project = await gradual.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web shop' } });
          const id: string = project.id;
          void id;
        } catch (err) {
          if (err instanceof GradualApiError) {
            const code: ErrorCode = err.code;
            switch (code) {
              case 'key_in_use':
                return 409;
              case 'insufficient_role':
                return 403;
              default:
                return err.status;
            }
          }
          throw err;
        }
        // @ts-expect-error: envId is required
        void gradual.getRuleset({ path: {} });
        return bucket('seed', 'id') + (result ? 1 : 0);
      }
    `;
    const readmes = await Promise.all(['sdk/README.md', 'README.md'].map(async (f) => tsBlocks(f, await readFile(join(root, f), 'utf8'))));
    expect(readmes.map((blocks) => blocks.length)).not.toContain(0);
    const sources: Record<string, string> = { 'test-globals.d.ts': TEST_GLOBALS };
    readmes.forEach((blocks, i) => {
      sources[`readme-${i}`] = asModule(blocks.filter((b) => !b.compileOnly));
      blocks.filter((b) => b.compileOnly).forEach((b, j) => (sources[`readme-${i}-only-${j}`] = `// ${b.file}:${b.line}\n${b.code}\nexport {};\n`));
    });
    const names = Object.keys(sources).filter((n) => n !== 'test-globals.d.ts');
    const dirs = { node: join(project, 'check-node'), bundler: join(project, 'check-bundler') };
    await Promise.all(Object.values(dirs).map((d) => mkdir(d)));
    for (const [name, code] of Object.entries(sources)) {
      if (name.endsWith('.d.ts')) {
        await writeFile(join(dirs.node, name), code);
        await writeFile(join(dirs.bundler, name), code);
      } else {
        await writeFile(join(dirs.node, `${name}.mts`), code);
        await writeFile(join(dirs.bundler, `${name}.ts`), code);
      }
    }
    await writeFile(join(dirs.node, 'usage.mts'), usage);
    await writeFile(join(dirs.node, 'usage.cts'), usage);
    await writeFile(join(dirs.bundler, 'usage.ts'), usage);

    // The README blocks import msw, OpenFeature and @types/node, whose declarations are theirs to
    // check (skipLibCheck); the SDK's own are checked once, by a program that imports only the SDK.
    const base = { strict: true, exactOptionalPropertyTypes: true, noEmit: true, skipLibCheck: true, target: 'ES2022', lib: ['ES2023', 'DOM'], types: ['node'] };
    const tsconfig = (dir: string, name: string, options: object, files: string[]) =>
      writeFile(join(dir, name), JSON.stringify({ compilerOptions: { ...base, ...options }, files }));
    const nodenext = { module: 'nodenext', moduleResolution: 'nodenext' };
    const bundler = { module: 'esnext', moduleResolution: 'bundler' };
    await tsconfig(dirs.node, 'tsconfig.declarations.json', { ...nodenext, skipLibCheck: false, skipDefaultLibCheck: true, types: [] }, ['usage.mts', 'usage.cts']);
    await tsconfig(dirs.node, 'tsconfig.json', nodenext, ['test-globals.d.ts', 'usage.mts', 'usage.cts', ...names.map((n) => `${n}.mts`)]);
    await tsconfig(dirs.bundler, 'tsconfig.json', bundler, ['test-globals.d.ts', 'usage.ts', ...names.map((n) => `${n}.ts`)]);
    const check = async (dir: string, config: string) => {
      const label = `tsc ${dir.slice(dir.lastIndexOf('-') + 1)} ${config}`;
      const out = await step(label, () =>
        sh(process.execPath, [tsc, '-p', config, '--listFiles', '--pretty', 'false'], dir).catch((e: unknown) => ({ failed: true, stdout: outputOf(e) })),
      );
      const errors = out.stdout.split('\n').filter((l) => /error TS\d+/.test(l));
      expect({ label, failed: 'failed' in out, errors }).toEqual({ label, failed: false, errors: [] });
      return out.stdout;
    };
    const [nodeFiles] = await Promise.all([check(dirs.node, 'tsconfig.declarations.json'), check(dirs.node, 'tsconfig.json'), check(dirs.bundler, 'tsconfig.json')]);
    // The CommonJS file loaded the `require` types (.d.cts), the ESM one the `import` types (.d.ts).
    expect(nodeFiles).toMatch(/\/node_modules\/@gradual\/sdk\/dist\/index\.d\.cts$/m);
    expect(nodeFiles).toMatch(/\/node_modules\/@gradual\/sdk\/dist\/index\.d\.ts$/m);
  });

  it.skipIf(!existsSync(join(root, 'cli/tsup.config.ts')))('a typed application compiles against the packed SDK and the module the packed CLI generates, and an archived flag breaks exactly its uses', { timeout: 120_000 }, async () => {
    const dir = join(project, 'typed');
    await mkdir(dir);
    const manifest = (withLegacy: boolean) => ({
      flags: {
        'checkout-new': { flagType: 'boolean', defaultValue: false, 'x-gradual': { name: 'New checkout', variants: { on: true, off: false } } },
        'checkout-layout': { flagType: 'string', defaultValue: 'classic', 'x-gradual': { variants: { control: 'classic', compact: 'compact' } } },
        limits: { flagType: 'object', defaultValue: { maxItems: 10 }, 'x-gradual': { schema: { type: 'object', properties: { maxItems: { type: 'integer' } }, required: ['maxItems'] } } },
        ...(withLegacy ? { 'legacy-banner': { flagType: 'boolean', defaultValue: true } } : {}),
      },
    });
    const app = `
      import { createFlagClient } from '@gradual/sdk';
      import { OpenFeature } from '@openfeature/server-sdk';
      import { typedFlags, typedOpenFeature } from './flags.gen.mjs';

      const flags = typedFlags(createFlagClient({ baseUrl: 'http://localhost:8080', token: 'sdk_x', envId: 'env' }));
      const ctx = { userId: 'u1' };
      export const layout: 'classic' | 'compact' = flags.getString('checkout-layout', ctx, 'classic');
      export const limits: { maxItems: number } = flags.getJson('limits', ctx, { maxItems: 1 });
      export const legacy: boolean = flags.getBoolean('legacy-banner', ctx, false);
      export const remote: Promise<boolean> = typedOpenFeature(OpenFeature.getClient()).getBooleanValue('checkout-new', false);
      // @ts-expect-error a typo is no key
      flags.getBoolean('new-chekout', ctx, false);
      // @ts-expect-error a boolean flag has no string getter
      flags.getString('checkout-new', ctx, 'on');
    `;
    await writeFile(join(dir, 'app.mts'), app);
    await writeFile(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, exactOptionalPropertyTypes: true, noEmit: true, skipLibCheck: true, target: 'ES2022', lib: ['ES2023', 'DOM'], types: [], module: 'nodenext', moduleResolution: 'nodenext' }, files: ['app.mts'] }),
    );
    const generate = async (withLegacy: boolean) => {
      await writeFile(join(dir, 'flags.json'), JSON.stringify(manifest(withLegacy)));
      await sh('npx', ['--no-install', 'gradual', 'types', '--manifest', 'flags.json', '--openfeature', '--out', 'flags.gen.mts'], dir);
    };
    const compile = () => sh(process.execPath, [tsc, '-p', 'tsconfig.json', '--pretty', 'false'], dir).then(() => [] as string[], (e: unknown) => outputOf(e).split('\n').filter((l) => /error TS\d+/.test(l)));
    await generate(true);
    expect(await compile()).toEqual([]);
    await generate(false);
    const errors = await compile();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/app\.mts\(\d+,\d+\): error TS\d+: .*legacy-banner/);
  });

  it('runs the README blocks, in order, against a real server', { timeout: 90_000 }, async () => {
    for (const file of ['sdk/README.md', 'README.md']) {
      const blocks = tsBlocks(file, await readFile(join(root, file), 'utf8')).filter((b) => !b.compileOnly);
      expect(blocks.length, `runnable blocks in ${file}`).toBeGreaterThan(0);
      const { code } = await transform(asModule(blocks), { loader: 'ts', format: 'esm', target: 'node20', sourcefile: file });
      const script = join(project, `${file.replace(/\W/g, '-')}.mjs`);
      await writeFile(script, code);
      // Exits once the blocks are done, whatever they leave open (an OpenFeature provider, say).
      const ran = await step(`run ${file}`, () =>
        sh(process.execPath, ['--input-type=module', '-e', `await import(${JSON.stringify(script)}); process.exit(0);`], project, serverEnv).catch(
          (e: unknown) => ({ failed: true, stdout: outputOf(e) }),
        ),
      );
      expect({ file, failed: 'failed' in ran, output: 'failed' in ran ? ran.stdout : '' }).toEqual({ file, failed: false, output: '' });
    }
  });

  it('bundles createClient for the browser without the live client, and measures the bundles', async () => {
    const sizes: BundleSize[] = await step('esbuild', () => measureBundles(project));
    const size = (id: BundleSize['id']) => sizes.find((s) => s.id === id)!;
    expect(size('live').code, 'the marker is in the live client').toContain(LIVE_CLIENT_MARKER);
    expect(size('rest').code.includes(LIVE_CLIENT_MARKER), 'createClient alone bundles the live client').toBe(false);
    expect(size('evaluation').code.includes(LIVE_CLIENT_MARKER)).toBe(false);
    // The live client calls three operations (ruleset, its stream, usage): createClient's table of
    // every operation stays out of its bundle. A route only the REST client calls shows that.
    const restOnlyRoute = '/api/v1/projects/{id}/webhook-subscriptions';
    expect(size('rest').code, 'the route is in the REST client').toContain(restOnlyRoute);
    expect(size('live').code.includes(restOnlyRoute), 'createFlagClient bundles operations it does not call').toBe(false);
    expect(size('evaluation').gzip).toBeLessThan(size('live').gzip);
    console.log(`[pack] bundle sizes (esbuild, browser, minified; gzip -9):\n${bundleTable(sizes)}`);
  });

  it.skipIf(!existsSync(join(root, 'cli/tsup.config.ts')))('installs the gradual command beside the SDK', async () => {
    expect(cli, 'the CLI tarball').toBeDefined();
    const version = await sh('npx', ['--no-install', 'gradual', '--version'], project);
    expect(version.stdout.trim()).toBe(cli!.version);
    const help = await sh(join(project, 'node_modules/.bin/gradual'), ['--help'], project);
    expect(help.stdout).toMatch(/^Usage: gradual /m);
    // The CLI uses the SDK installed beside it, not a copy of its own.
    expect(existsSync(join(project, 'node_modules/@gradual/cli/node_modules/@gradual/sdk'))).toBe(false);
  });
});

describe.skipIf(!!process.env.DATABASE_URL)('changesets', () => {
  it('versions the SDK and the CLI together and writes their CHANGELOG entries', async () => {
    // A copy of what `changeset version` reads and writes, with one pending changeset for the SDK only.
    const dir = await mkdtemp(join(tmpdir(), 'gradual-changeset-'));
    temp.push(dir);
    const packages = ['sdk', 'cli'];
    const rootPkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
    await writeFile(join(dir, 'package.json'), JSON.stringify({ ...rootPkg, workspaces: packages }, null, 2));
    await mkdir(join(dir, '.changeset'));
    await writeFile(join(dir, '.changeset/config.json'), await readFile(join(root, '.changeset/config.json')));
    await writeFile(join(dir, '.changeset/quiet-owls-fly.md'), `---\n'@gradual/sdk': minor\n---\n\nThe live client reports exposures.\n`);
    const before: Record<string, { version: string }> = {};
    for (const p of packages) {
      await mkdir(join(dir, p));
      for (const f of ['package.json', 'CHANGELOG.md']) await writeFile(join(dir, p, f), await readFile(join(root, p, f)));
      before[p] = JSON.parse(await readFile(join(root, p, 'package.json'), 'utf8')) as { version: string };
    }
    await sh(process.execPath, [join(root, 'node_modules/@changesets/cli/bin.js'), 'version'], dir);

    const [major, minor] = before.sdk!.version.split('.').map(Number);
    const next = `${major}.${minor! + 1}.0`;
    const sdkPkg = JSON.parse(await readFile(join(dir, 'sdk/package.json'), 'utf8')) as { version: string };
    const cliPkg = JSON.parse(await readFile(join(dir, 'cli/package.json'), 'utf8')) as { version: string; dependencies: Record<string, string> };
    expect({ sdk: sdkPkg.version, cli: cliPkg.version, cliDependsOn: cliPkg.dependencies['@gradual/sdk'] }).toEqual({ sdk: next, cli: next, cliDependsOn: `^${next}` });
    const sdkLog = await readFile(join(dir, 'sdk/CHANGELOG.md'), 'utf8');
    const cliLog = await readFile(join(dir, 'cli/CHANGELOG.md'), 'utf8');
    expect(sdkLog).toMatch(new RegExp(`^# @gradual/sdk\\n\\n## ${next}\\n\\n### Minor Changes\\n\\n- The live client reports exposures\\.\\n\\n## ${before.sdk!.version}\\n`));
    expect(cliLog).toMatch(new RegExp(`^# @gradual/cli\\n\\n## ${next}\\n\\n### Patch Changes\\n\\n- Updated dependencies\\n  - @gradual/sdk@${next}\\n\\n## ${before.cli!.version}\\n`));
    expect(await readdir(join(dir, '.changeset'))).toEqual(['config.json']);
  });
});
