/**
 * The published package, as a user gets it: build the SDK, `npm pack` it,
 * install the tarball into an empty project and use it from plain Node (ESM
 * and CommonJS) and from TypeScript (NodeNext and bundler resolution).
 *
 * Runs once per CI run (the PGlite pass): it does not touch a database.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { bucket } from '@gradual/sdk/evaluation';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const sdkDir = join(root, 'sdk');
const tsc = join(root, 'node_modules/typescript/bin/tsc');

/** The environment without what npm sets for a running script (prefix, package, lifecycle), which would leak into nested npm calls. */
const env = Object.fromEntries(
  Object.entries(process.env).filter(
    ([k]) => !/^npm_/i.test(k) || /^npm_config_(registry|cache|userconfig|globalconfig|fund|audit|update_notifier)$/i.test(k),
  ),
);
const sh = (cmd: string, args: string[], cwd: string) => run(cmd, args, { cwd, env, maxBuffer: 16 * 1024 * 1024 });
/** A failed command's output (execFile's error carries it), else the error itself. */
const stdoutOf = (e: unknown): string => (typeof e === 'object' && e !== null && 'stdout' in e && typeof e.stdout === 'string' ? e.stdout : String(e));

const temp: string[] = [];
afterAll(async () => {
  for (const dir of temp) await rm(dir, { recursive: true, force: true });
});

describe.skipIf(!!process.env.DATABASE_URL)('npm pack of @gradual/sdk', () => {
  it('builds, packs, installs into an empty project and works from ESM, CommonJS and TypeScript', { timeout: 300_000 }, async () => {
    const timings: Record<string, number> = {};
    const step = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
      const started = performance.now();
      try {
        return await fn();
      } finally {
        timings[name] = Math.round(performance.now() - started);
      }
    };

    await step('build', () => sh('npm', ['run', 'build', '-w', 'sdk'], root));

    // The evaluation entry has no runtime dependency: only relative imports, down to every chunk.
    const seen = new Set<string>();
    const bare: string[] = [];
    const walk = async (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const code = await readFile(file, 'utf8');
      for (const m of code.matchAll(/\bfrom\s*["']([^"']+)["']|\bimport\s*\(?\s*["']([^"']+)["']/g)) {
        const spec = (m[1] ?? m[2])!;
        if (spec.startsWith('.')) await walk(join(file, '..', spec));
        else bare.push(spec);
      }
    };
    await walk(join(sdkDir, 'dist/evaluation/index.js'));
    expect(seen.size).toBeGreaterThan(1);
    expect(bare, 'imports of the evaluation entry').toEqual([]);

    const packDir = await mkdtemp(join(tmpdir(), 'gradual-pack-'));
    const project = await mkdtemp(join(tmpdir(), 'gradual-consumer-'));
    temp.push(packDir, project);
    const { stdout: packed } = await step('pack', () => sh('npm', ['pack', '--json', '--pack-destination', packDir], sdkDir));
    const [info] = JSON.parse(packed) as [{ filename: string; files: { path: string }[] }];
    const files = info.files.map((f) => f.path);
    expect(files).toContain('package.json');
    expect(files).toContain('README.md');
    for (const entry of ['index', 'evaluation/index', 'openfeature/index', 'testing/index']) {
      for (const ext of ['.js', '.cjs', '.d.ts', '.d.cts']) expect(files).toContain(`dist/${entry}${ext}`);
    }
    expect(files.filter((f) => !f.startsWith('dist/') && !['package.json', 'README.md'].includes(f))).toEqual([]);

    // An empty project; the optional peers (msw, @openfeature/server-sdk) are NOT installed, so the
    // main and evaluation entries must load without them.
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }, null, 2));
    await step('install', () =>
      sh('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts', join(packDir, info.filename)], project),
    );
    const installed = await readdir(join(project, 'node_modules'));
    expect(installed).not.toContain('msw');

    const expected = bucket('new-checkout:prod', 'user-1');
    await step('node', async () => {
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
        project,
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
        project,
      );
      expect(JSON.parse(cjs.stdout)).toEqual({ bucket: expected });

      // The optional-peer entries say what is missing instead of half-loading.
      const testing = await sh(process.execPath, ['--input-type=module', '-e', `import('@gradual/sdk/testing').then(() => console.log('loaded'), (e) => console.log(e.code))`], project);
      expect(testing.stdout.trim()).toBe('ERR_MODULE_NOT_FOUND');
    });

    // Types, as a user compiles them.
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
    const base = { strict: true, noEmit: true, skipLibCheck: false, target: 'ES2022', lib: ['ES2023', 'DOM'], types: [] };
    await writeFile(join(project, 'esm.mts'), usage);
    await writeFile(join(project, 'cjs.cts'), usage);
    await writeFile(join(project, 'bundler.ts'), usage);
    await writeFile(join(project, 'tsconfig.node.json'), JSON.stringify({ compilerOptions: { ...base, module: 'nodenext', moduleResolution: 'nodenext' }, files: ['esm.mts', 'cjs.cts'] }));
    await writeFile(join(project, 'tsconfig.bundler.json'), JSON.stringify({ compilerOptions: { ...base, module: 'esnext', moduleResolution: 'bundler' }, files: ['bundler.ts'] }));
    await step('tsc', async () => {
      const check = async (config: string, listFiles = false) => {
        const args = [tsc, '-p', config, ...(listFiles ? ['--listFiles'] : [])];
        const out = await sh(process.execPath, args, project).catch((e: unknown) => ({ failed: true, stdout: stdoutOf(e) }));
        const errors = out.stdout.split('\n').filter((l) => /error TS\d+/.test(l));
        expect({ config, failed: 'failed' in out, errors }).toEqual({ config, failed: false, errors: [] });
        return out.stdout;
      };
      const files = await check('tsconfig.node.json', true);
      // The CommonJS file loaded the `require` types (.d.cts), the ESM one the `import` types (.d.ts).
      expect(files).toMatch(/\/node_modules\/@gradual\/sdk\/dist\/index\.d\.cts$/m);
      expect(files).toMatch(/\/node_modules\/@gradual\/sdk\/dist\/index\.d\.ts$/m);
      await check('tsconfig.bundler.json');
    });

    console.log(`[pack] ${info.filename}: ${files.length} files; timings (ms) ${JSON.stringify(timings)}`);
  });
});
