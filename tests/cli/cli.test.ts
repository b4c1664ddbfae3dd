import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { Command } from 'commander';
import { buildProgram } from '../../cli/src/program.js';
import { claim, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';

/**
 * The `gradual` command end to end: the real process against a real server and database, one
 * server for the whole file. The command is bundled once from its sources as cli/tsup.config.ts
 * bundles it (its dependencies external, loaded from node_modules), with the SDK taken from its
 * sources too, so that each of the many runs starts in a fraction of what compiling TypeScript
 * on every start would take.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BUNDLE_DIR = join(ROOT, 'tests/artifacts', `cli-${process.pid}`);
const MAIN = join(BUNDLE_DIR, 'main.mjs');
const cliPackage = JSON.parse(readFileSync(join(ROOT, 'cli/package.json'), 'utf8')) as { dependencies: Record<string, string> };
const sdkPackage = JSON.parse(readFileSync(join(ROOT, 'sdk/package.json'), 'utf8')) as { dependencies: Record<string, string> };

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

// Each test runs the CLI as a process a dozen times or more (about half a second each when two
// test files share the two cores), so a test may take longer than the default 30 s.
describe('gradual CLI', { timeout: 120_000 }, () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let dir: string;
  let configFile: string;
  let token: string;
  let projectId: string;
  let prodId: string;
  let rollbackToken: string;

  /** Runs `gradual <args>` with the config file in a temporary directory and no GRADUAL_* variables but those given. */
  const gradual = (args: string[], opts: { stdin?: string; env?: Record<string, string> } = {}): Promise<Run> =>
    new Promise((resolve, reject) => {
      const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GRADUAL_')));
      const child = spawn(process.execPath, [MAIN, ...args], {
        cwd: ROOT,
        env: { ...env, GRADUAL_CONFIG: configFile, GRADUAL_PROJECT: 'web', ...opts.env },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
      child.stdin.end(opts.stdin ?? '');
    });
  const json = (run: Run): unknown => {
    if (run.code !== 0) throw new Error(`exit ${run.code}: ${run.stderr}`);
    return JSON.parse(run.stdout);
  };
  /** A failed run: its exit code and the error code it printed on stderr. */
  const failure = (run: Run) => ({ code: run.code, error: /code: ([a-z_]+)|"code":"([a-z_]+)"/.exec(run.stderr)?.slice(1).find(Boolean) ?? run.stderr });
  const version = async () => (await owner.session.getEnvironment({ path: { envId: prodId } })).version;

  beforeAll(async () => {
    const external = [...Object.keys(cliPackage.dependencies), ...Object.keys(sdkPackage.dependencies)].filter((name) => name !== '@gradual/sdk');
    await build({
      entryPoints: [join(ROOT, 'cli/src/main.ts')],
      outdir: BUNDLE_DIR,
      entryNames: '[name]',
      outExtension: { '.js': '.mjs' },
      // As the published build: `gradual mcp`'s server is a chunk of its own, loaded only by that command.
      splitting: true,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      conditions: ['@gradual/source'],
      external: external.flatMap((name) => [name, `${name}/*`]),
      logLevel: 'error',
    });
    t = await startTestServer();
    owner = await claim(t);
    const s = owner.session;
    projectId = (await s.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
    prodId = (await s.createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } })).id;
    await s.createEnvironment({ path: { id: projectId }, body: { key: 'staging', name: 'Staging' } });
    token = (await s.createApiKey({ path: { slug: 'acme' }, body: { name: 'ci' } })).token;
    rollbackToken = (await s.createRollbackSecret({ path: { envId: prodId }, body: { name: 'alertmanager' } })).token;
    dir = await mkdtemp(join(tmpdir(), 'gradual-cli-'));
    configFile = join(dir, 'config', 'gradual', 'config.json');
  });
  afterAll(async () => {
    await t?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
    await rm(BUNDLE_DIR, { recursive: true, force: true });
  });

  it('logs in (config file 0600 in a 0700 directory), refuses a bad token with the API error, and reports whoami', async () => {
    const bad = await gradual(['login', '--url', t.url, '--org', 'acme', '--token', 'svc_not-a-real-key']);
    expect(failure(bad)).toEqual({ code: 1, error: 'unauthorized' });
    expect(bad.stderr).toMatch(/request id: \S+/);
    await expect(stat(configFile)).rejects.toThrow();

    const noUrl = await gradual(['login', '--org', 'acme', '--token', token]);
    expect(failure(noUrl)).toEqual({ code: 1, error: 'invalid_option' });

    expect(failure(await gradual(['login', '--url', t.url, '--org', 'other', '--token', token]))).toEqual({ code: 1, error: 'org_mismatch' });

    // The token read from stdin; the organization is the token's own.
    const login = await gradual(['login', '--url', t.url], { stdin: `${token}\n` });
    expect(login.code, login.stderr).toBe(0);
    expect((await stat(configFile)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'config', 'gradual'))).mode & 0o777).toBe(0o700);
    expect(JSON.parse(await readFile(configFile, 'utf8'))).toEqual({ url: t.url, token, org: 'acme' });

    const who = json(await gradual(['whoami', '--json']));
    expect(who).toMatchObject({
      url: t.url,
      type: 'api_key',
      organization: { slug: 'acme', name: 'Acme' },
      apiKey: { name: 'ci', requiresApproval: false },
      sources: { url: 'config file', token: 'config file', org: 'config file' },
    });
    expect(JSON.stringify(who)).not.toContain(token);
    // The environment overrides the file, and an option overrides both.
    const overridden = await gradual(['whoami', '--json', '--org', 'nope'], { env: { GRADUAL_TOKEN: 'svc_other' } });
    expect(failure(overridden)).toEqual({ code: 1, error: 'unauthorized' });
    expect(JSON.parse(overridden.stderr)).toMatchObject({ error: { code: 'unauthorized', status: 401, requestId: expect.any(String) } });
  });

  it('login refuses plain http:// to another machine unless --insecure, takes the token from GRADUAL_TOKEN, and warns about --token', async () => {
    const before = await readFile(configFile, 'utf8');
    for (const url of ['http://flags.example.com', 'http://10.0.0.5:8080/', 'http://[fd00::1]:8080']) {
      const refused = await gradual(['login', '--url', url, '--org', 'acme'], { env: { GRADUAL_TOKEN: token } });
      expect(failure(refused), url).toEqual({ code: 1, error: 'insecure_url' });
      expect(refused.stderr).toMatch(/--insecure/);
    }
    expect(failure(await gradual(['login', '--org', 'acme'], { env: { GRADUAL_URL: 'http://flags.example.com', GRADUAL_TOKEN: token } }))).toEqual({ code: 1, error: 'insecure_url' });
    // --insecure lets it try (here a name that never resolves: the request fails, no insecure_url).
    const insecure = await gradual(['login', '--url', 'http://gradual.invalid', '--insecure', '--json'], { env: { GRADUAL_TOKEN: token } });
    expect(insecure.code).toBe(1);
    expect(failure(insecure).error).not.toBe('insecure_url');
    expect(await readFile(configFile, 'utf8')).toBe(before);

    // The token from GRADUAL_TOKEN (nothing on stdin, nothing on the command line).
    const fromEnv = await gradual(['login', '--url', t.url, '--json'], { env: { GRADUAL_TOKEN: token } });
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
    expect(fromEnv.stderr).toBe('');
    expect(JSON.parse(await readFile(configFile, 'utf8'))).toEqual({ url: t.url, token, org: 'acme' });
    // --token still works, with a warning that other users can read it in the process list.
    const onArgv = await gradual(['login', '--url', t.url, '--token', token]);
    expect(onArgv.code, onArgv.stderr).toBe(0);
    expect(onArgv.stderr).toMatch(/--token is visible to other users of this machine/);
    expect((await stat(configFile)).mode & 0o777).toBe(0o600);
  });

  it('creates, lists and shows flags; bad input names the problem', async () => {
    const created = json(await gradual(['flags', 'create', 'dark-mode', '--name', 'Dark mode', '--json']));
    expect(created).toMatchObject({ key: 'dark-mode', name: 'Dark mode', valueType: 'boolean', defaultValue: false });
    const list = json(await gradual(['flags', 'list', '--json']));
    expect(list).toEqual([expect.objectContaining({ key: 'dark-mode' })]);
    const states = json(await gradual(['flags', 'list', '--env', 'prod', '--json']));
    expect(states).toEqual([expect.objectContaining({ key: 'dark-mode', value: false, rollout: null })]);
    const human = await gradual(['flags', 'list']);
    expect(human.stdout).toMatch(/^key\s+name\s+type\s+default\ndark-mode\s+Dark mode\s+boolean\s+false$/m);

    const bad = await Promise.all([
      gradual(['flags', 'create', 'x', '--type', 'date']),
      gradual(['flags', 'create', 'dark-mode']),
      gradual(['flags', 'get', 'dark-mode', '--env', 'qa']),
      gradual(['flags', 'list', '--project', 'shop']),
    ]);
    expect(bad.map(failure)).toEqual(
      ['invalid_option', 'key_in_use', 'environment_not_found', 'project_not_found'].map((error) => ({ code: 1, error })),
    );
  });

  it('creates a flag with named variants, its default named by one; a malformed --variant is refused before any call', async () => {
    await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'lab', name: 'Lab' } });
    const lab = { env: { GRADUAL_PROJECT: 'lab' } };
    const layout = json(
      await gradual(['flags', 'create', 'layout', '--type', 'string', '--variant', 'control="classic"', '--variant', 'treatment-a="compact"', '--default-variant', 'control', '--json'], lab),
    );
    expect(layout).toMatchObject({ key: 'layout', defaultValue: 'classic', variants: { control: 'classic', 'treatment-a': 'compact' } });
    const human = await gradual(['flags', 'create', 'size', '--type', 'number', '--variant', 's=1', '--variant', 'l=3', '--default-variant', 'l'], lab);
    expect(human.stdout).toMatch(/created flag size \(number, default 3, variants s, l\)/);
    const bad = await Promise.all([
      gradual(['flags', 'create', 'y', '--type', 'string', '--variant', 'nope', '--default', '"x"']),
      gradual(['flags', 'create', 'y', '--variant', 'on=true', '--default', 'true', '--default-variant', 'on']),
    ]);
    expect(bad.map(failure)).toEqual([{ code: 1, error: 'invalid_option' }, { code: 1, error: 'invalid_option' }]);
  });

  /** A project with an environment `prod` and the flags and configs tests/fixtures/typed-app uses. */
  const typedAppProject = async (key: string) => {
    const s = owner.session;
    const id = (await s.createProject({ path: { slug: 'acme' }, body: { key, name: key } })).id;
    await s.createEnvironment({ path: { id }, body: { key: 'prod', name: 'Prod' } });
    const path = { id };
    await s.createFlag({ path, body: { key: 'checkout-new', name: 'New checkout', description: 'The one-page checkout', defaultValue: false, variants: { on: true, off: false } } });
    await s.createFlag({ path, body: { key: 'checkout-layout', name: 'Layout', valueType: 'string', variants: { control: 'classic', compact: 'compact' }, defaultVariant: 'control' } });
    await s.createFlag({ path, body: { key: 'page-size', name: 'Page size', valueType: 'number', defaultValue: 20, variants: { small: 10, large: 50 } } });
    await s.createFlag({ path, body: { key: 'banner', name: 'Banner', valueType: 'string', defaultValue: 'Hello' } });
    await s.createFlag({ path, body: { key: 'legacy-banner', name: 'Legacy banner', defaultValue: true } });
    await s.createConfig({ path, body: { key: 'limits', name: 'Limits', defaultValue: { maxItems: 10 } } });
    const checkoutSchema = { type: 'object', properties: { maxItems: { type: 'integer' }, currency: { enum: ['EUR', 'USD'] } }, required: ['maxItems'], additionalProperties: false };
    await s.createConfig({ path, body: { key: 'checkout-config', name: 'Checkout config', schema: checkoutSchema, defaultValue: { maxItems: 10, currency: 'EUR' } } });
    return id;
  };

  it('types a project\'s flags: a sample application compiles against the module, its wrong keys and types do not, --check finds it stale once a flag is archived, and the archived flag\'s uses stop compiling', async () => {
    const s = owner.session;
    const typed = await typedAppProject('typed');
    const app = join(ROOT, 'tests/fixtures/typed-app');
    const out = join(app, 'flags.gen.ts');
    const types = (...more: string[]) => gradual(['types', '--project', 'typed', '--openfeature', '--react', '--out', out, ...more]);
    const compile = () =>
      new Promise<Run>((resolve) => {
        const child = spawn(join(ROOT, 'node_modules/.bin/tsgo'), ['-p', app, '--pretty', 'false'], { cwd: ROOT });
        let stdout = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.on('close', (code) => resolve({ code, stdout, stderr: '' }));
      });

    expect((await types()).stderr).toBe('');
    expect(await readFile(out, 'utf8')).toMatch(/"checkout-layout": "classic" \| "compact";/);
    expect((await types('--check')).code).toBe(0);
    const compiled = await compile();
    expect(compiled.code, compiled.stdout).toBe(0);

    await s.archiveFlag({ path: { id: typed, key: 'legacy-banner' } });
    expect(failure(await types('--check'))).toEqual({ code: 1, error: 'types_stale' });
    expect((await types()).code).toBe(0);
    const removed = await compile();
    expect(removed.code).not.toBe(0);
    expect(removed.stdout).toMatch(/app\.ts\(\d+,\d+\): error TS\d+: .*legacy-banner/);
    expect(removed.stdout.trim().split('\n')).toHaveLength(1); // that use only

    // From a manifest file in the OpenFeature CLI's format (no x-gradual: plain value types).
    const file = join(dir, 'flags.json');
    await writeFile(file, JSON.stringify({ flags: { 'dark-mode': { flagType: 'boolean', defaultValue: false }, ratio: { flagType: 'float', defaultValue: 0.5 } } }));
    const fromFile = await gradual(['types', '--manifest', file]);
    expect(fromFile.stdout).toMatch(/"dark-mode": boolean;\n\s+"ratio": number;/);
    await writeFile(file, JSON.stringify({ flags: { x: { flagType: 'number', defaultValue: 1 } } }));
    expect(failure(await gradual(['types', '--manifest', file]))).toEqual({ code: 1, error: 'invalid_manifest' });
  });

  it('finds the flags and configs nobody evaluated, proves through the application\'s own type check which its code no longer uses, reports that for the dashboard, and archives them', async () => {
    const tidy = await typedAppProject('tidy');
    const s = owner.session;
    // Nothing in the application uses these two.
    await s.createFlag({ path: { id: tidy }, body: { key: 'forgotten', name: 'Forgotten', defaultValue: false } });
    await s.createConfig({ path: { id: tidy }, body: { key: 'old-theme', name: 'Old theme', defaultValue: { color: 'blue' } } });
    const app = join(ROOT, 'tests/fixtures/typed-app');
    const out = join(app, 'flags.gen.ts');
    expect((await gradual(['types', '--project', 'tidy', '--openfeature', '--react', '--out', out])).code).toBe(0);
    const prod = (await s.listEnvironments({ path: { id: tidy } })).find((e) => e.key === 'prod')!.id;
    const sdk = t.asToken((await s.createApiKey({ path: { slug: 'acme' }, body: { name: 'tidy backend', kind: 'sdk', environments: [prod] } })).token);

    // Two days on, only two of them were evaluated in the last day.
    await t.advanceClock(2 * 24 * 3600);
    await sdk.evaluate({ path: { envId: prod }, body: { context: { userId: 'u1' }, keys: ['checkout-new', 'banner'] } });
    await t.advanceClock(60);
    const stale = (...more: string[]) => gradual(['flags', 'stale', '--project', 'tidy', '--days', '1', ...more]);

    const unchecked = json(await stale('--json')) as { keys: { key: string; verdict: string }[]; checked: unknown };
    expect(unchecked.checked).toBeNull();
    expect(unchecked.keys.map((k) => [k.key, k.verdict])).toEqual([
      ['checkout-config', 'unproven'],
      ['limits', 'unproven'],
      ['old-theme', 'unproven'],
      ['checkout-layout', 'unproven'],
      ['forgotten', 'unproven'],
      ['legacy-banner', 'unproven'],
      ['page-size', 'unproven'],
    ]);

    const tsconfig = join(app, 'tsconfig.json');
    const checked = json(await stale('--tsconfig', tsconfig, '--types', out, '--report', 'acme/typed-app', '--commit', 'abc123', '--json')) as {
      checked: { typescript: string; files: number; notChecked: string[] };
      reported: { repository: string; checks: number };
      keys: { key: string; kind: string; verdict: string; references: number | null; locations: string[]; next: string }[];
    };
    expect(checked.checked.notChecked).toEqual([]);
    expect(checked.checked.files).toBeGreaterThan(1);
    const byKey = Object.fromEntries(checked.keys.map((k) => [k.key, k]));
    expect(byKey.forgotten).toMatchObject({ kind: 'flag', verdict: 'safe_to_remove', references: 0, next: 'gradual flags archive forgotten --project tidy' });
    expect(byKey['old-theme']).toMatchObject({ kind: 'config', verdict: 'safe_to_remove', next: 'gradual flags archive --config old-theme --project tidy' });
    for (const key of ['checkout-layout', 'legacy-banner', 'page-size', 'checkout-config', 'limits']) {
      expect(byKey[key], key).toMatchObject({ verdict: 'referenced' });
      expect(byKey[key]!.locations.every((l) => /^tests\/fixtures\/typed-app\/app\.ts:\d+$/.test(l)), key).toBe(true);
    }
    expect(byKey['legacy-banner']!.references).toBe(1);
    expect(checked.reported).toEqual({ repository: 'acme/typed-app', checks: 7 });
    // What the dashboard shows: safe to remove, with the evidence.
    const insights = await t.asToken(token).listInsights({ path: { id: tidy }, query: { staleAfterDays: 1 } });
    const forgotten = insights.find((i) => i.key === 'forgotten')!;
    expect(forgotten).toMatchObject({ safeToRemove: true, codeReferences: [{ repository: 'acme/typed-app', commit: 'abc123', references: 0 }] });
    expect(insights.find((i) => i.key === 'legacy-banner')).toMatchObject({ safeToRemove: false, codeReferences: [{ references: 1 }] });

    // In words; an approval-required key cannot archive: a person does.
    const agent = (await s.createApiKey({ path: { slug: 'acme' }, body: { name: 'tidy agent', requiresApproval: true } })).token;
    const human = await gradual(['flags', 'stale', '--project', 'tidy', '--days', '1', '--tsconfig', tsconfig, '--types', out], { env: { GRADUAL_TOKEN: agent } });
    expect(human.stdout).toMatch(/^type check: .*tsconfig\.json \(TypeScript [\d.]+, \d+ files\)$/m);
    expect(human.stdout).toMatch(/forgotten\s+flag\s+not in 1 days\s+0\s+safe_to_remove\s+a person archives it \(approval required\): gradual flags archive forgotten --project tidy/);

    // A module that is not what the server generates now proves nothing.
    await s.createFlag({ path: { id: tidy }, body: { key: 'brand-new', name: 'Brand new', defaultValue: false } });
    expect(failure(await stale('--tsconfig', tsconfig, '--types', out))).toEqual({ code: 1, error: 'types_stale' });
    expect(failure(await stale('--tsconfig', tsconfig))).toEqual({ code: 1, error: 'invalid_option' });

    expect(json(await gradual(['flags', 'archive', 'forgotten', '--project', 'tidy', '--json']))).toMatchObject({ key: 'forgotten', archivedAt: expect.any(String) });
    expect(json(await gradual(['flags', 'archive', '--config', 'old-theme', '--project', 'tidy', '--json']))).toMatchObject({ key: 'old-theme' });
    const after = json(await stale('--json')) as { keys: { key: string }[] };
    expect(after.keys.map((k) => k.key)).not.toContain('forgotten');
    expect(after.keys.map((k) => k.key)).not.toContain('old-theme');
  });

  const manifest = `# flags as code
version: 1
project: web
plans:
  ramp:
    name: Ramp
    cadence: auto
    rampSteps:
      - { percent: 10, holdForSeconds: 3600 }
      - { percent: 50, holdForSeconds: 3600 }
      - { percent: 100, holdForSeconds: 0 }
flags:
  new-checkout:
    name: New checkout
    description: The one-page checkout
    defaultValue: false
    environments:
      prod:
        value: false
        rules:
          - description: Staff first
            conditions: [{ attribute: email, operator: ends_with, values: ["@acme.test"] }]
            value: true
      staging:
        value: true
configs:
  limits:
    name: Limits
    defaultValue: { maxItems: 10 }
    environments:
      prod:
        value: { maxItems: 20 }
`;

  it('applies gradual.yaml: a dry run writes nothing, the apply creates, a second apply and the export re-applied change nothing', async () => {
    const file = join(dir, 'gradual.yaml');
    await writeFile(file, manifest);
    const before = await version();

    const dry = json(await gradual(['apply', '-f', file, '--dry-run', '--json']));
    expect(dry).toMatchObject({ dryRun: true, writes: 0, summary: { create: 3, update: 2, unchanged: 0 } });
    expect(await version()).toBe(before);
    expect(await owner.session.listRolloutPlans({ path: { id: projectId } })).toEqual([]);
    const dryText = await gradual(['apply', '-f', file, '--dry-run']);
    expect(dryText.stdout).toContain('+ create plan ramp');
    expect(dryText.stdout).toContain('~ update flag new-checkout environments.staging.value: false → true');
    expect(dryText.stdout).toContain('dry run: nothing written');

    const applied = json(await gradual(['apply', '-f', file, '--json', '--reason', 'gitops']));
    expect(applied).toMatchObject({ dryRun: false, summary: { create: 3, update: 2 } });
    const state = await owner.session.getFlagState({ path: { envId: prodId, key: 'new-checkout' } });
    expect(state.rules).toEqual([{ description: 'Staff first', conditions: [{ attribute: 'email', operator: 'ends_with', values: ['@acme.test'] }], value: true }]);
    expect((await owner.session.getConfigState({ path: { envId: prodId, key: 'limits' } })).value).toEqual({ maxItems: 20 });
    const [audit] = (await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { limit: 1 } })).events;
    expect(audit?.reason).toBe('gitops');

    const after = await version();
    const again = await gradual(['apply', '-f', file]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^no changes: project web matches /m);
    expect(again.stdout).not.toMatch(/^[+~]/m);
    expect(await version()).toBe(after);

    // The export holds everything (the flag made by `flags create` too); applied back, nothing changes.
    const exported = await gradual(['export']);
    expect(exported.code, exported.stderr).toBe(0);
    const doc = parse(exported.stdout) as { flags: Record<string, unknown>; plans: Record<string, unknown> };
    expect(Object.keys(doc.flags).sort()).toEqual(['dark-mode', 'new-checkout']);
    expect(doc.plans.ramp).toMatchObject({ cadence: 'auto', blackoutTimezone: 'UTC' });
    const exportFile = join(dir, 'exported.yaml');
    await writeFile(exportFile, exported.stdout);
    const roundTrip = json(await gradual(['apply', '-f', exportFile, '--json']));
    expect(roundTrip).toMatchObject({ writes: 0, summary: { create: 0, update: 0, unchanged: 4 } });
    expect(await version()).toBe(after);

    // A changed field is shown as before → after.
    await writeFile(file, manifest.replace('value: { maxItems: 20 }', 'value: { maxItems: 30 }').replace('holdForSeconds: 3600 }\n      - { percent: 100', 'holdForSeconds: 7200 }\n      - { percent: 100'));
    const diff = await gradual(['apply', '-f', file, '--dry-run']);
    expect(diff.stdout).toContain('~ update config limits environments.prod.value: {"maxItems":20} → {"maxItems":30}');
    expect(diff.stdout).toMatch(/~ update plan ramp rampSteps: .*"holdForSeconds":3600.* → .*"holdForSeconds":7200/);
    expect(await version()).toBe(after);
  });

  it('rejects a bad gradual.yaml with its line and path, and a change the API cannot make before writing anything', async () => {
    const file = join(dir, 'bad.yaml');
    await writeFile(file, manifest.replace('    cadence: auto', '    cadense: auto').replace('            value: true\n', '            value: true\n            weight: 3\n').replace('percent: 50,', 'percent: 150,'));
    const bad = await gradual(['apply', '-f', file]);
    expect(failure(bad)).toEqual({ code: 1, error: 'invalid_file' });
    expect(bad.stderr).toContain('bad.yaml:6:5: plans.ramp: unknown field cadense');
    expect(bad.stderr).toContain('bad.yaml:10:20: plans.ramp.rampSteps.1.percent: Number must be less than or equal to 100');
    expect(bad.stderr).toMatch(/bad\.yaml:21:13: flags\.new-checkout\.environments\.prod\.rules\.0: unknown field weight/);

    await writeFile(file, 'version: 1\nproject: web\nflags:\n  a: [unclosed\n');
    const unclosed = await gradual(['apply', '-f', file]);
    expect(failure(unclosed)).toEqual({ code: 1, error: 'invalid_yaml' });
    expect(unclosed.stderr).toMatch(/bad\.yaml:5:1: Flow sequence in block collection must be sufficiently indented and end with a \]/);

    const before = await version();
    await writeFile(file, manifest.replace('name: New checkout', 'name: Newer checkout').replace('value: { maxItems: 20 }', 'value: { maxItems: 40 }'));
    const conflict = await gradual(['apply', '-f', file]);
    expect(failure(conflict)).toEqual({ code: 1, error: 'apply_conflict' });
    expect(conflict.stderr).toContain('flags.new-checkout.name: "New checkout" → "Newer checkout" cannot be applied');
    expect(await version()).toBe(before);
  });

  const fire = (key: string) =>
    fetch(`${t.url}/api/v1/webhooks/rollback/envs/${prodId}/flags/${key}`, { method: 'POST', headers: { authorization: `Bearer ${rollbackToken}` } });

  it('starts a rollout on a plan, waits for a step while the clock moves, and sees a rollback (wait exits 3)', async () => {
    const where = ['new-checkout', '--env', 'prod'];
    const started = json(await gradual(['rollout', 'start', ...where, '--plan', 'ramp', '--value', 'true', '--json']));
    expect(started).toMatchObject({ status: 'active', percent: 10, planKey: 'ramp', newValue: true });

    const waiting = gradual(['rollout', 'wait', ...where, '--until', '50', '--interval', '100ms', '--timeout', '30s', '--json']);
    // The hold is an hour of the server's clock, not of the test's.
    await new Promise((r) => setTimeout(r, 300));
    await t.advanceClock(3601);
    const reached = await waiting;
    expect(reached.code, reached.stderr).toBe(0);
    expect(JSON.parse(reached.stdout)).toMatchObject({ outcome: 'reached', exitCode: 0, rollout: { percent: 50, status: 'active' } });

    expect((await fire('new-checkout')).status).toBe(200);
    const status = json(await gradual(['rollout', 'status', ...where, '--json']));
    expect(status).toMatchObject({ status: 'paused', pausedReason: 'auto_rollback', percent: 0, rolledBackFromPercent: 50, lastAutoRollback: { secretName: 'alertmanager' } });
    const human = await gradual(['rollout', 'status', ...where]);
    expect(human.stdout).toMatch(/status\s+paused \(auto_rollback, rolled back from 50%\) at 0%/);

    const rolledBack = await gradual(['rollout', 'wait', ...where, '--until', 'completed', '--interval', '100ms']);
    expect(rolledBack.code).toBe(3);
    expect(rolledBack.stdout).toContain('rolled back by alertmanager from 50% to 0%');
  });

  it('resumes, rolls back now (wait exits 3) and resumes again, pauses with a reason, times out (exit 2), and cancels (exit 4); bad rollout input fails', async () => {
    const where = ['new-checkout', '--env', 'prod'];
    expect(json(await gradual(['rollout', 'resume', ...where, '--json']))).toMatchObject({ status: 'active', percent: 50 });
    // The kill switch: the same state change as an alert's rollback, with the reason in the audit log.
    const rolledBack = await gradual(['rollout', 'rollback', ...where, '--reason', 'error budget burnt']);
    expect(rolledBack.stdout).toBe('rolled back flag new-checkout: paused (auto_rollback, rolled back from 50%) at 0%\n');
    const [rollbackRow] = (await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'rollout', limit: 1 } })).events;
    expect(rollbackRow).toMatchObject({ action: 'rollout.rolled_back', reason: 'error budget burnt' });
    expect((await gradual(['rollout', 'wait', ...where, '--until', '100', '--interval', '100ms'])).code).toBe(3);
    expect((await gradual(['rollout', 'rollback', ...where])).code).not.toBe(0);
    expect(json(await gradual(['rollout', 'resume', ...where, '--json']))).toMatchObject({ status: 'active', percent: 50 });
    const paused = await gradual(['rollout', 'pause', ...where, '--reason', 'checkout errors']);
    expect(paused.stdout).toBe('paused flag new-checkout: paused (user) at 50%\n');
    const [audit] = (await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { resourceType: 'rollout', limit: 1 } })).events;
    expect(audit).toMatchObject({ action: 'rollout.paused', reason: 'checkout errors' });

    const timedOut = await gradual(['rollout', 'wait', ...where, '--until', '100', '--interval', '100ms', '--timeout', '400ms', '--json']);
    expect(timedOut.code).toBe(2);
    expect(JSON.parse(timedOut.stdout)).toMatchObject({ outcome: 'timed_out', rollout: { status: 'paused' } });

    expect(json(await gradual(['rollout', 'advance', ...where, '--json']))).toMatchObject({ percent: 100 });
    expect(json(await gradual(['rollout', 'cancel', ...where, '--reason', 'abandoned', '--json']))).toMatchObject({ status: 'cancelled' });
    expect((await gradual(['rollout', 'wait', ...where, '--until', '10', '--interval', '100ms'])).code).toBe(4);

    const [percent, noFlag, duration, missing] = await Promise.all([
      gradual(['rollout', 'start', ...where, '--percent', '150']),
      gradual(['rollout', 'start', '--env', 'prod', '--percent', '5']),
      gradual(['rollout', 'wait', ...where, '--until', '10', '--timeout', 'soon']),
      gradual(['rollout', 'status', 'no-such-flag', '--env', 'prod']),
    ]);
    expect([percent, noFlag, duration, missing].map(failure)).toEqual(['invalid_option', 'invalid_option', 'invalid_option', 'not_found'].map((error) => ({ code: 1, error })));
    expect(percent.stderr).toContain('--percent: "150" is not a percent between 0 and 100');
    expect(missing.stderr).toMatch(/status: 404, request id: \S+/);
  });

  it('reports a proposal when an approval-required key starts a rollout (exit 0)', async () => {
    const approval = (await owner.session.createApiKey({ path: { slug: 'acme' }, body: { name: 'agent', requiresApproval: true } })).token;
    const run = await gradual(['rollout', 'start', 'dark-mode', '--env', 'prod', '--percent', '5', '--value', 'true'], { env: { GRADUAL_TOKEN: approval } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^proposal [0-9a-f-]{36} waits for approval \(rollout\.put on flag dark-mode/);
    const status = await owner.session.getFlagState({ path: { envId: prodId, key: 'dark-mode' } });
    expect(status.rollout).toBeNull();
  });

  it('adds IDs from a file in chunks and removes IDs given as CSV on stdin; an ID the API refuses names its line', async () => {
    await owner.session.putFlagRollout({ path: { envId: prodId, key: 'dark-mode' }, body: { percent: 0, newValue: true } });
    const ids = Array.from({ length: 2500 }, (_, i) => `user-${i}`);
    const file = join(dir, 'ids.txt');
    await writeFile(file, `# beta users\n${ids.join('\n')}\n\nuser-0\n`);
    const added = json(await gradual(['targets', 'add', 'dark-mode', '--env', 'prod', '--file', file, '--chunk-size', '1000', '--json']));
    expect(added).toEqual({ added: 2500, count: 2500, read: 2501, requests: 3 });
    expect((await owner.session.checkFlagTargetId({ path: { envId: prodId, key: 'dark-mode', targetId: 'user-2499' } })).contains).toBe(true);

    const csv = `"user-1",ann@acme.test\nuser-2,bob@acme.test\n"user-""x""",nobody\n`;
    const removed = json(await gradual(['targets', 'remove', 'dark-mode', '--env', 'prod', '--file', '-', '--json'], { stdin: csv }));
    expect(removed).toEqual({ removed: 2, count: 2498, read: 3, requests: 1 });

    await writeFile(file, `ok-1\n${'x'.repeat(257)}\n`);
    const [bad, absent, unknown] = await Promise.all([
      gradual(['targets', 'add', 'dark-mode', '--env', 'prod', '--file', file]),
      gradual(['targets', 'add', 'dark-mode', '--env', 'prod', '--file', join(dir, 'absent.txt')]),
      gradual(['targets', 'add', 'nope', '--env', 'prod', '--file', '-'], { stdin: 'a\n' }),
    ]);
    expect([bad, absent, unknown].map(failure)).toEqual(['invalid_file', 'invalid_file', 'not_found'].map((error) => ({ code: 1, error })));
    expect(bad.stderr).toContain('ids.txt:2: ID of 257 characters');
    expect((await owner.session.getFlagRollout({ path: { envId: prodId, key: 'dark-mode' } })).targetIdsCount).toBe(2498);
  });

  it('shows a progress bar on a terminal, and none when stderr is a pipe', async () => {
    const ids = Array.from({ length: 1200 }, (_, i) => `bar-${i}`);
    const file = join(dir, 'bar-ids.txt');
    await writeFile(file, ids.join('\n'));
    const args = ['targets', 'add', 'dark-mode', '--env', 'prod', '--file', file, '--chunk-size', '500'];
    // script(1) runs the command on a pseudo-terminal and copies what it wrote to its own stdout.
    const quote = (arg: string) => `'${arg.replaceAll("'", `'\\''`)}'`;
    const onTerminal = await new Promise<Run>((resolve, reject) => {
      const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GRADUAL_')));
      const child = spawn('script', ['-qefc', [process.execPath, MAIN, ...args].map(quote).join(' '), '/dev/null'], {
        cwd: ROOT,
        env: { ...env, GRADUAL_CONFIG: configFile, GRADUAL_PROJECT: 'web', TERM: 'xterm' },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr: '' }));
      child.stdin.end();
    });
    expect(onTerminal.code, onTerminal.stdout).toBe(0);
    expect(onTerminal.stdout).toMatch(/add [█░]+ 1200\/1200 IDs/);
    expect(onTerminal.stdout).toContain('added 1200 of 1200 IDs read (3 requests)');

    const piped = await gradual(['targets', 'remove', 'dark-mode', '--env', 'prod', '--file', file]);
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toContain('removed 1200 of 1200 IDs read (1 request)');
    expect(piped.stderr).not.toContain('IDs |');
  });

  /** Every runnable command of the program as its path (`flags get`), by commander's own tree. */
  const leafCommands = (cmd: Command, prefix: string[] = []): string[] =>
    cmd.commands.flatMap((sub) => (sub.commands.length > 0 ? leafCommands(sub, [...prefix, sub.name()]) : [[...prefix, sub.name()].join(' ')]));

  it('prints JSON and only JSON with --json from every command that can succeed (mcp speaks JSON-RPC on stdio instead)', async () => {
    const ids = join(dir, 'sweep-ids.txt');
    await writeFile(ids, 'sweep-1\nsweep-2\nsweep-3\n');
    const manifestFile = join(dir, 'sweep.yaml');
    await writeFile(manifestFile, (await gradual(['export'])).stdout);
    const where = ['json-sweep', '--env', 'prod'];
    // In order: each run leaves the state the next one needs; logout then login leaves the config as it was.
    const runs: [command: string, args: string[]][] = [
      ['whoami', []],
      ['flags create', ['json-sweep', '--name', 'JSON sweep']],
      ['flags list', []],
      ['flags list', ['--env', 'prod']],
      ['flags get', ['json-sweep']],
      ['flags get', where],
      ['flags stale', ['--days', '7']],
      ['rollout start', [...where, '--plan', 'ramp', '--value', 'true']],
      ['rollout status', where],
      ['guard status', where],
      ['convergence', ['--env', 'prod', '--window', '10']],
      ['rollout pause', [...where, '--reason', 'sweep']],
      ['rollout resume', where],
      ['rollout advance', where],
      ['rollout wait', [...where, '--until', '50', '--interval', '100ms', '--timeout', '10s']],
      ['targets add', [...where, '--file', ids]],
      ['targets remove', [...where, '--file', '-']],
      ['rollout rollback', [...where, '--reason', 'sweep']],
      ['rollout cancel', [...where, '--reason', 'sweep']],
      ['export', []],
      ['apply', ['-f', manifestFile, '--dry-run']],
      ['apply', ['-f', manifestFile]],
      ['types', ['--out', join(dir, 'sweep-types.ts')]],
      ['flags archive', ['json-sweep']],
      ['logout', []],
      ['login', ['--url', t.url, '--token', token]],
    ];
    const covered = new Set(runs.map(([command]) => command));
    expect(leafCommands(buildProgram()).filter((command) => command !== 'mcp').sort()).toEqual([...covered].sort());

    for (const [command, args] of runs) {
      const run = await gradual([...command.split(' '), ...args, '--json'], { stdin: 'sweep-2\n' });
      expect(run.code, `${command}: ${run.stderr}`).toBe(0);
      expect(() => JSON.parse(run.stdout) as unknown, `${command} --json printed:\n${run.stdout}`).not.toThrow();
      expect(run.stderr, `${command} --json wrote to stderr`).toBe('');
    }
    expect(JSON.parse(await readFile(configFile, 'utf8'))).toEqual({ url: t.url, token, org: 'acme' });
  });

  it('logs out', async () => {
    expect(json(await gradual(['logout', '--json']))).toEqual({ removed: true, configPath: configFile });
    expect(failure(await gradual(['flags', 'list']))).toEqual({ code: 1, error: 'not_logged_in' });
  });
});
