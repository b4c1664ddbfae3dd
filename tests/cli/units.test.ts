import { chmod, link, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Convergence, Rollout, RolloutGuard } from '@gradual/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convergenceTable } from '../../cli/src/commands/convergence.js';
import { guardTable, waitVerdict } from '../../cli/src/commands/rollout.js';
import { cleartextToAnotherHost, configPath, writeConfig } from '../../cli/src/config.js';
import { parseDuration } from '../../cli/src/duration.js';
import { CliError } from '../../cli/src/errors.js';
import { computeChanges } from '../../cli/src/gitops/changes.js';
import type { Remote } from '../../cli/src/gitops/remote.js';
import { parseGradualFile } from '../../cli/src/gitops/schema.js';
import { readTargetIds } from '../../cli/src/target-file.js';

/** The pure parts of the `gradual` command: what cli.test.ts cannot reach case by case through a process. */

const cliError = (fn: () => unknown): CliError => {
  try {
    fn();
  } catch (err) {
    if (err instanceof CliError) return err;
    throw err;
  }
  throw new Error('expected a CliError');
};

describe('durations', () => {
  it.each([
    ['500ms', 500],
    ['90s', 90_000],
    ['10m', 600_000],
    ['1h30m', 5_400_000],
    ['45', 45_000],
    ['1.5s', 1500],
  ])('%s is %d ms', (text, ms) => expect(parseDuration(text, '--timeout')).toBe(ms));
  it.each(['', 'soon', '10 m', '5d', 'm10', '10m5'])('refuses %j', (text) => {
    expect(cliError(() => parseDuration(text, '--timeout'))).toMatchObject({ code: 'invalid_option', message: expect.stringContaining('--timeout') });
  });
});

describe('the config path', () => {
  it('is GRADUAL_CONFIG, else under XDG_CONFIG_HOME, else under ~/.config', () => {
    expect(configPath({ GRADUAL_CONFIG: '/x/c.json', XDG_CONFIG_HOME: '/xdg' })).toBe('/x/c.json');
    expect(configPath({ XDG_CONFIG_HOME: '/xdg' })).toBe('/xdg/gradual/config.json');
    expect(configPath({})).toMatch(/\/\.config\/gradual\/config\.json$/);
  });
});

describe('the config file', () => {
  let dir: string;
  beforeAll(async () => (dir = await mkdtemp(join(tmpdir(), 'gradual-config-'))));
  afterAll(() => rm(dir, { recursive: true, force: true }));
  const stored = { url: 'https://flags.example.com', token: 'svc_secret-token', org: 'acme' };

  it('is created 0600 in directories it creates 0700, leaving no temporary file', async () => {
    const path = join(dir, 'fresh', 'gradual', 'config.json');
    await writeConfig(path, stored);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'fresh', 'gradual'))).mode & 0o777).toBe(0o700);
    expect((await stat(join(dir, 'fresh'))).mode & 0o777).toBe(0o700);
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual(stored);
    expect(await readdir(join(dir, 'fresh', 'gradual'))).toEqual(['config.json']);
  });

  it('never writes the token into an existing file others may read: a new 0600 file replaces it', async () => {
    const path = join(dir, 'config.json');
    const elsewhere = join(dir, 'other-link.json');
    await writeFile(path, '{}\n');
    await chmod(path, 0o644);
    await link(path, elsewhere); // the same file under another name, readable by others
    await writeConfig(path, stored);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual(stored);
    expect(await readFile(elsewhere, 'utf8')).toBe('{}\n');
    expect((await stat(elsewhere)).mode & 0o777).toBe(0o644);
  });
});

describe('plain http:// to another machine', () => {
  it.each(['http://flags.example.com', 'http://10.0.0.5:8080', 'http://[fd00::1]/', 'http://localhost.example.com', 'http://127.0.0.1.nip.io', 'http://[::2]'])('%s sends the token in clear text', (url) => {
    expect(cleartextToAnotherHost(new URL(url))).toBe(true);
  });
  it.each(['https://flags.example.com', 'https://10.0.0.5', 'http://localhost:8080', 'http://LOCALHOST.:8080', 'http://127.0.0.1:8080', 'http://127.1.2.3', 'http://[::1]:8080', 'http://[::ffff:127.0.0.1]'])(
    '%s does not',
    (url) => {
      expect(cleartextToAnotherHost(new URL(url))).toBe(false);
    },
  );
});

describe('target-ID files', () => {
  let dir: string;
  beforeAll(async () => (dir = await mkdtemp(join(tmpdir(), 'gradual-ids-'))));
  afterAll(() => rm(dir, { recursive: true, force: true }));
  const read = async (text: string) => {
    const file = join(dir, 'ids');
    await writeFile(file, text);
    return readTargetIds(file);
  };

  it('reads one ID per line or the first CSV column, CRLF or not, skipping blanks and comments', async () => {
    expect(await read('a\r\nb\r\n\r\n# note\r\n  c  \r\n')).toEqual(['a', 'b', 'c']);
    expect(await read('"x,1",first\n"say ""hi""",2\nplain,3,4\n')).toEqual(['x,1', 'say "hi"', 'plain']);
    expect(await read('')).toEqual([]);
  });

  it('names the line of an ID the API would refuse', async () => {
    await expect(read(`ok\n"unterminated\n`)).rejects.toMatchObject({ code: 'invalid_file', message: expect.stringMatching(/:2: unterminated quoted field$/) });
    await expect(read(`ok\n,second column only\n`)).rejects.toMatchObject({ code: 'invalid_file', message: expect.stringMatching(/:2: empty ID$/) });
    await expect(read(`${'x'.repeat(256)}\n${'y'.repeat(257)}\n`)).rejects.toMatchObject({ message: expect.stringMatching(/:2: ID of 257 characters/) });
  });
});

describe('rollout wait', () => {
  const rollout = (over: Partial<Rollout>): Rollout => ({
    id: 'r',
    environmentId: 'e',
    primitiveKind: 'flag',
    primitiveKey: 'k',
    status: 'active',
    percent: 10,
    pausedAtPercent: null,
    pausedReason: null,
    rolledBackFromPercent: null,
    seed: 's',
    bucketField: 'userId',
    planKey: null,
    planRampStepsSnapshot: null,
    cadence: null,
    planBlackoutDaysOfWeek: null,
    planBlackoutTimezone: null,
    rampStepIdx: null,
    nextStepAt: null,
    stepVersion: null,
    awaitingConvergenceUntil: null,
    targetIdsCount: 0,
    lastAutoRollback: null,
    lastGuardStop: null,
    lastRollbackConvergence: null,
    allowedActions: [],
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    ...over,
  });

  it.each<[string, Partial<Rollout>, number | 'completed', number | undefined]>([
    ['active below the percent: keep waiting', { percent: 10 }, 50, undefined],
    ['active at the percent: reached', { percent: 50 }, 50, 0],
    ['active above the percent: reached', { percent: 75 }, 50, 0],
    ['active at 99% for completed: keep waiting', { percent: 99 }, 'completed', undefined],
    ['completed: reached whatever the target', { status: 'completed', percent: 100 }, 'completed', 0],
    ['paused by a person at the percent: keep waiting', { status: 'paused', pausedReason: 'user', percent: 50 }, 50, undefined],
    ['paused at an approval gate: keep waiting', { status: 'paused', pausedReason: 'approval_gate', percent: 10 }, 50, undefined],
    ['rolled back: 3', { status: 'paused', pausedReason: 'auto_rollback', percent: 0, rolledBackFromPercent: 50 }, 50, 3],
    ['cancelled: 4', { status: 'cancelled', percent: 50 }, 50, 4],
  ])('%s', (_name, over, until, exitCode) => {
    expect(waitVerdict(rollout(over), until)?.exitCode).toBe(exitCode);
  });

  it('names the guard as what rolled the rollout back when its stop is the latest', () => {
    const stop = { at: '2026-01-02T00:00:00Z', action: 'rollback' as const, cause: 'metric' as const, metricKey: 'errors', stepPercent: 10, units: { treatment: 1, control: 1 }, eValue: 25, threshold: 20, estimate: null, srmP: null };
    const over: Partial<Rollout> = { status: 'paused', pausedReason: 'auto_rollback', percent: 0, rolledBackFromPercent: 10, lastGuardStop: stop };
    expect(waitVerdict(rollout(over), 50)?.message).toBe('rolled back by the guard (errors) from 10% to 0%');
  });
});

describe('gradual guard status', () => {
  const guard: RolloutGuard = {
    rolloutId: 'r',
    step: { index: 1, percent: 10, holdForSeconds: 7200, since: '2026-01-01T00:00:00Z', heldSeconds: 7300, guard: { metrics: [{ key: 'errors', margin: 0.1, action: 'rollback' }], minUnitsPerArm: 1000, maxHoldFactor: 3 } },
    decision: 'hold',
    waitingFor: ['units'],
    checks: {
      holdPassed: true,
      units: { treatment: 740, control: 1210, min: 1000 },
      srmP: 1,
      srmOk: true,
      metrics: [{ key: 'errors', kind: 'count', worse: 'higher', margin: 0.1, action: 'rollback', eValue: 2.31, threshold: 20, estimate: { value: 1.12, lower: null, upper: null }, series: [] }],
    },
    lastStop: null,
  };

  it("prints the gate's checklist, the decision and a row per metric", () => {
    const out = guardTable(guard, 'flag new-checkout');
    expect(out).toMatch(/step +2 at 10% since 2026-01-01T00:00:00Z/);
    expect(out).toContain('hold 2h ✓ · 740/1,000 per arm · SRM ok');
    expect(out).toContain('hold (waiting for units)');
    expect(out).toContain('count, higher is worse, margin 0.1, rollback · evidence 2.31 of 20 · rate ratio 1.120');
  });

  it('says when no guarded step holds, and names the last stop', () => {
    const out = guardTable({ ...guard, step: null, checks: null, decision: null, waitingFor: [], lastStop: { at: '2026-01-02T00:00:00Z', action: 'pause', cause: 'srm', metricKey: null, stepPercent: 10, units: { treatment: 900, control: 700 }, eValue: null, threshold: null, estimate: null, srmP: 0.0004 } }, 'flag x');
    expect(out).toContain('not holding at a guarded step');
    expect(out).toContain('pause at 10% on 2026-01-02T00:00:00Z: sample-ratio mismatch (p 0.00040); units 900/700');
  });
});

describe('gradual convergence', () => {
  const ledger: Convergence = {
    envId: 'e1',
    version: 42,
    at: '2026-01-01T00:00:00.000Z',
    windowSeconds: 300,
    instances: 1204,
    current: 1199,
    currentShare: 1199 / 1204,
    versions: [{ version: 42, committedAt: '2025-12-31T23:59:00.000Z', instances: 1199, p50Ms: 40, p99Ms: 180 }],
    laggards: [{ instanceId: 'pod-7', sdk: { name: 'gradual-go', version: '0.3.1' }, service: 'billing', mode: 'poll', version: 41, lastSeen: '2025-12-31T23:58:00.000Z' }],
    bySdk: [{ name: '@gradual/sdk', version: '0.1.0', instances: 1204, current: 1199 }],
  };

  it('heads with the share on the current version and the laggards, then the versions\' times and the laggards by name', () => {
    const out = convergenceTable(ledger);
    expect(out.split('\n')[0]).toBe('1,204 SDK instances · 99.6 % on v42 · 1 laggard (last 5 min)');
    expect(out).toMatch(/v42 +2025-12-31T23:59:00.000Z +1199 +40 ms +180 ms/);
    expect(out).toMatch(/pod-7 +gradual-go 0.3.1 +billing +v41/);
  });

  it('says when no instance acknowledged', () => {
    expect(convergenceTable({ ...ledger, instances: 0, current: 0, currentShare: null, versions: [], laggards: [], bySdk: [] }).split('\n')[0]).toBe('0 SDK instances · – on v42 · no laggards (last 5 min)');
  });
});

describe('gradual.yaml', () => {
  const remote = (): Remote => ({
    project: { id: 'p', orgId: 'o', key: 'web', name: 'Web', targetIdField: 'userId', createdAt: '', updatedAt: '' },
    environments: [{ id: 'e1', projectId: 'p', key: 'prod', name: 'Prod', version: 3, createdAt: '' }],
    plans: [],
    flags: [{ id: 'f', projectId: 'p', key: 'on', name: 'On', description: null, valueType: 'boolean', defaultValue: false, clientVisible: false, tags: [], maintainer: null, metadata: {}, variants: {}, archivedAt: null, createdAt: '', updatedAt: '' }],
    configs: [],
    flagStates: new Map([['e1', new Map([['on', { key: 'on', envId: 'e1', valueType: 'boolean' as const, value: true, rules: [], rollout: null, updatedAt: '' }]])]]),
    configStates: new Map([['e1', new Map()]]),
  });
  const file = (yaml: string) => parseGradualFile(`version: 1\nproject: web\n${yaml}`, 'g.yaml');

  it('leaves out fields and resources the file does not name, and compares JSON by value', () => {
    expect(computeChanges(file('flags:\n  on: { name: On, defaultValue: false, environments: { prod: {} } }\n'), remote())).toEqual({
      changes: [{ action: 'unchanged', kind: 'flag', key: 'on' }],
      writes: [],
    });
    const r = remote();
    r.configs = [{ id: 'c', projectId: 'p', key: 'cfg', name: 'Cfg', description: null, defaultValue: { b: 1, a: [1, 2] }, clientVisible: false, tags: [], maintainer: null, metadata: {}, variants: {}, schema: null, archivedAt: null, createdAt: '', updatedAt: '' }];
    r.configStates.get('e1')?.set('cfg', { key: 'cfg', envId: 'e1', value: { a: [1, 2], b: 1 }, rules: [], rollout: null, updatedAt: '' });
    expect(computeChanges(file('configs:\n  cfg: { name: Cfg, defaultValue: { a: [1, 2], b: 1 }, environments: { prod: { value: { b: 1, a: [1, 2] } } } }\n'), r).writes).toEqual([]);
  });

  it('creates a flag, then writes only the environments that differ from its default', () => {
    const { changes, writes } = computeChanges(file('flags:\n  new: { name: New, defaultValue: false, environments: { prod: { value: false, rules: [] } } }\n'), remote());
    expect(changes).toEqual([{ action: 'create', kind: 'flag', key: 'new', to: { name: 'New', defaultValue: false } }]);
    expect(writes).toEqual([{ op: 'createFlag', key: 'new', name: 'New', defaultValue: false }]);
  });

  it('refuses what the API cannot change, and environments the project lacks, naming each', () => {
    const err = cliError(() => computeChanges(file('flags:\n  on: { name: Renamed, defaultValue: true, valueType: string, environments: { qa: { value: 1 } } }\n'), remote()));
    expect(err.code).toBe('apply_conflict');
    expect(err.message.split('\n')).toEqual([
      'flags.on.environments.qa: project "web" has no environment "qa" (it has: prod)',
      'flags.on.name: "On" → "Renamed" cannot be applied: the API fixes a flag\'s name when it is created',
      "flags.on.defaultValue: false → true cannot be applied: the API fixes a flag's defaultValue when it is created",
      'flags.on.valueType: "boolean" → "string" cannot be applied: the API fixes a flag\'s valueType when it is created',
    ]);
  });

  it('reports YAML and schema problems with line, column and path', () => {
    expect(cliError(() => parseGradualFile('version: 1\nproject: web\nproject: app\n', 'g.yaml'))).toMatchObject({ code: 'invalid_yaml', message: expect.stringMatching(/^g\.yaml:3:1: Map keys must be unique/) });
    expect(cliError(() => parseGradualFile('project: web\n', 'g.yaml')).message).toBe('g.yaml:1:1: version: Invalid literal value, expected 1');
    expect(cliError(() => file('flags:\n  "bad key!": { name: x, defaultValue: 1 }\n')).message).toMatch(/^g\.yaml:4:15: flags\.bad key!: only letters, digits/);
    expect(cliError(() => file('plans:\n  p: { name: P, rampSteps: [{ percent: 10.00001, holdForSeconds: 60 }] }\n')).message).toBe('g.yaml:4:40: plans.p.rampSteps.0.percent: at most 4 decimal places');
  });

  it('checks a plan against the ramp limits the API states (1 to 32 steps, holds up to 2,592,000 s)', () => {
    const plan = (steps: string[]) => `plans:\n  p: { name: P, rampSteps: [${steps.join(', ')}] }\n`;
    const steps = (n: number, hold = 60) => Array.from({ length: n }, (_, i) => `{ percent: ${i + 1}, holdForSeconds: ${i === n - 1 ? 0 : hold} }`);
    expect(file(plan(steps(32, 2_592_000))).plans?.p?.rampSteps).toHaveLength(32);
    expect(cliError(() => file(plan(steps(33)))).message).toMatch(/plans\.p\.rampSteps: Array must contain at most 32 element\(s\)$/);
    expect(cliError(() => file(plan([]))).message).toMatch(/plans\.p\.rampSteps: Array must contain at least 1 element\(s\)$/);
    expect(cliError(() => file(plan(steps(2, 2_592_001)))).message).toMatch(/plans\.p\.rampSteps\.0\.holdForSeconds: Number must be less than or equal to 2592000$/);
  });
  it('carries a step\'s guard, and a plan whose guard leaves out the defaults matches the server\'s copy with them', () => {
    const yaml = 'plans:\n  g:\n    name: G\n    cadence: auto\n    rampSteps:\n      - { percent: 10, holdForSeconds: 3600, guard: { metrics: [{ key: errors }] } }\n      - { percent: 100, holdForSeconds: 0 }\n';
    const r = remote();
    const stored = { metrics: [{ key: 'errors', margin: 0, action: 'rollback' as const }], minUnitsPerArm: 1000, maxHoldFactor: 3 };
    r.plans = [{ id: 'pl', projectId: 'p', key: 'g', name: 'G', cadence: 'auto', blackoutDaysOfWeek: [], blackoutTimezone: 'UTC', createdAt: '', updatedAt: '', rampSteps: [{ percent: 10, holdForSeconds: 3600, guard: stored }, { percent: 100, holdForSeconds: 0 }] }];
    expect(computeChanges(file(yaml), r).writes).toEqual([]);
    // Without the guard in the file, applying it would take the guard off: a change, shown as one.
    const unguarded = computeChanges(file(yaml.replace(', guard: { metrics: [{ key: errors }] }', '')), r);
    expect(unguarded.changes).toMatchObject([{ action: 'update', kind: 'plan', key: 'g' }]);
    expect(cliError(() => file(yaml.replace('key: errors', 'key: errors, margin: -1'))).message).toMatch(/plans\.g\.rampSteps\.0\.guard\.metrics\.0\.margin/);
  });
});
