/**
 * Contract drift drill: proves that one contract holds the server, the SDK and
 * the dashboard in lockstep. On a temporary copy of the repository it
 *
 *   1. regenerates openapi.yaml and the SDK's generated client and typechecks
 *      the unmutated copy (the control: it must pass);
 *   2. applies each contract mutation below on its own (renamed response and
 *      request fields, a dropped enum member, a renamed path parameter),
 *      regenerates, typechecks, and sorts the compiler's errors by the
 *      consumer they are reported in (server/, sdk/src/ outside generated/,
 *      dashboard/, tests/);
 *   3. prints mutation × consumer → expected / observed and exits 1 when the
 *      control failed or a consumer that uses the changed piece still compiles
 *      (that consumer has drifted from the contract).
 *
 * The typecheck is the one `npm run typecheck` runs: the native compiler (`tsgo -p <project>
 * --noEmit`) on each of its two programs (the root tsconfig's and the dashboard's), side by side.
 * Every mutation starts from the control, never from the previous mutation, so none is checked
 * against another's leftovers.
 *
 * All mutations are first checked together, in one combined pass (a mutation's check costs a
 * whole program's, since every consumer reaches the contract through its barrel): each compiler
 * error is attributed to the one mutation whose markers (its new name, its old name as the
 * compiler quotes it) the error's message carries. A mutation that a consumer which must fail
 * shows no error of its own for is then checked alone, as is every mutation when the combined copy
 * cannot be judged, so the combined pass saves time and never passes a mutation that would fail
 * alone.
 *
 * Mutations touch contract/src only, as exact string replacements that must
 * match exactly as often as stated, so moving consumer files does not affect
 * them. The expectations say which consumers use each piece and so must stop
 * compiling; a consumer failing that is not expected is reported, not fatal.
 *
 *   npm run contract:drill                 # the working tree
 *   npm run contract:drill -- --ref HEAD   # a commit (git archive) instead
 *   npm run contract:drill -- --only put-rollout-percent,flag-description
 *   npm run contract:drill -- --keep       # keep the temporary copy
 *   npm run contract:drill -- --errors 20  # compiler errors shown per consumer (default 3)
 *   npm run contract:drill -- --with-tests # also typecheck tests/ and bench/ (informational; slower)
 *
 * By default the root program is typechecked without tests/ and bench/: they are
 * not consumers the drill judges, and leaving them out saves a third of each run.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

type Consumer = 'server' | 'sdk' | 'dashboard';
const CONSUMERS: readonly Consumer[] = ['server', 'sdk', 'dashboard'];
/**
 * Where a compiler error is reported. `contract` and `generated` (sdk/src/generated) errors mean the
 * mutation itself is broken; `tests` and `other` (bench/, sdk/scripts/, …) are informational.
 */
type Area = Consumer | 'tests' | 'contract' | 'generated' | 'other';

interface Edit {
  /** Path under the repository root; must be inside contract/. */
  file: string;
  find: string;
  replace: string;
  /** How many times `find` must occur in the file (all are replaced). Default 1. */
  occurrences?: number;
}

interface Mutation {
  name: string;
  kind: 'response field' | 'request field' | 'enum member' | 'path parameter';
  summary: string;
  edits: Edit[];
  /** Consumers that use the changed piece, each with where: every one of them must stop compiling. */
  mustFail: Partial<Record<Consumer, string>>;
  /**
   * Text that the compiler's errors from this mutation carry (its new name, its old name as the
   * compiler quotes it): how the combined pass tells which mutation an error comes from. An error
   * that carries the markers of two mutations proves neither.
   */
  markers: string[];
}

const MUTATIONS: Mutation[] = [
  {
    name: 'flag-description',
    kind: 'response field',
    summary: 'Flag.description → Flag.summary',
    edits: [
      {
        file: 'contract/src/schemas/primitives.ts',
        find: "  'Flag',\n  z.object({\n    id: Id,\n    projectId: Id,\n    key: z.string(),\n    name: z.string(),\n    description: z.string().nullable(),",
        replace: "  'Flag',\n  z.object({\n    id: Id,\n    projectId: Id,\n    key: z.string(),\n    name: z.string(),\n    summary: z.string().nullable(),",
      },
    ],
    mustFail: {
      server: 'produces Flag bodies (flag create/list handlers, primitives service)',
    },
    markers: ["'summary'", "'description'"],
  },
  {
    name: 'target-ids-added',
    kind: 'response field',
    summary: 'TargetIdsAdded.added → TargetIdsAdded.inserted',
    edits: [
      {
        file: 'contract/src/schemas/rollouts.ts',
        find: "named('TargetIdsAdded', z.object({ added: z.number().int(),",
        replace: "named('TargetIdsAdded', z.object({ inserted: z.number().int(),",
      },
    ],
    mustFail: {
      server: 'produces { added, count } (target-ID add handler, target-ids service)',
      dashboard: 'TargetIds component reads r.added',
    },
    markers: ["'inserted'", "'added'"],
  },
  {
    name: 'put-rollout-percent',
    kind: 'request field',
    summary: 'PutRolloutRequest.percent → PutRolloutRequest.targetPercent',
    edits: [
      {
        file: 'contract/src/schemas/rollouts.ts',
        find: "  'PutRolloutRequest',\n  z.object({\n    percent: Percent,",
        replace: "  'PutRolloutRequest',\n  z.object({\n    targetPercent: Percent,",
      },
    ],
    mustFail: {
      server: 'rollout PUT handler reads body.percent (PutRolloutBody)',
      dashboard: 'RolloutForm builds a PutRolloutRequest { percent }',
    },
    markers: ["'targetPercent'", "'percent'"],
  },
  {
    name: 'evaluate-context',
    kind: 'request field',
    summary: 'EvaluateRequest.context → EvaluateRequest.attributes',
    edits: [
      {
        file: 'contract/src/schemas/evaluation.ts',
        find: "    'EvaluateRequest',\n    z.object({\n      context: z.record(JsonValue),",
        replace: "    'EvaluateRequest',\n    z.object({\n      attributes: z.record(JsonValue),",
      },
    ],
    mustFail: {
      server: 'evaluate handler passes body to evaluateContext, which reads input.context',
      sdk: 'msw handlers (sdk/src/testing) answer POST evaluate from the body’s context',
    },
    markers: ["'attributes'", "'context'"],
  },
  {
    name: 'paused-reason-auto-rollback',
    kind: 'enum member',
    summary: "PausedReason loses 'auto_rollback'",
    edits: [
      {
        file: 'contract/src/schemas/rollouts.ts',
        find: "z.enum(['user', 'approval_gate', 'auto_rollback', 'guard', 'convergence'])",
        replace: "z.enum(['user', 'approval_gate', 'guard', 'convergence'])",
      },
    ],
    mustFail: {
      server: 'rollout mapper copies the row’s pausedReason (which includes auto_rollback) into the Rollout DTO',
      dashboard: "RolloutPanel, RollbackBanner and ui badges compare pausedReason with 'auto_rollback'",
    },
    markers: ['"auto_rollback"'],
  },
  {
    name: 'rollout-path-env-id',
    kind: 'path parameter',
    summary: 'rollout routes: :envId → :environmentId',
    edits: [
      {
        file: 'contract/src/routes/rollouts.ts',
        find: 'const base = `/envs/:envId/${segment}/:key/rollout` as const;',
        replace: 'const base = `/envs/:environmentId/${segment}/:key/rollout` as const;',
      },
    ],
    mustFail: {
      server: 'rollout handlers read params.envId',
      dashboard: 'primitive-api passes path { envId, key } to the rollout operations',
    },
    markers: ["'environmentId'", "'envId'"],
  },
  {
    name: 'ruleset-bucket-field',
    kind: 'response field',
    summary: 'RulesetRollout.bucketField → RulesetRollout.bucketAttribute',
    edits: [
      {
        file: 'contract/src/schemas/evaluation.ts',
        find: "  'RulesetRollout',\n  z.object({\n    id: Id,\n    status: RolloutStatus,\n    percent: z.number(),\n    seed: z.string(),\n    bucketField: z.string(),",
        replace: "  'RulesetRollout',\n  z.object({\n    id: Id,\n    status: RolloutStatus,\n    percent: z.number(),\n    seed: z.string(),\n    bucketAttribute: z.string(),",
      },
    ],
    mustFail: {
      server: 'ruleset store builds the Ruleset with rollout.bucketField',
      sdk: 'the live client fetches GET /ruleset and the evaluator buckets on rollout.bucketField',
    },
    markers: ["'bucketAttribute'", "'bucketField'"],
  },
  {
    name: 'error-envelope-request-id',
    kind: 'response field',
    summary: 'ErrorEnvelope.requestId → ErrorEnvelope.traceId',
    edits: [
      {
        file: 'contract/src/errors.ts',
        find: '    details: z.record(z.unknown()).optional(),\n    requestId: z.string(),',
        replace: '    details: z.record(z.unknown()).optional(),\n    traceId: z.string(),',
      },
    ],
    mustFail: {
      server: 'sendError (and the raw error paths) produce the envelope with requestId',
      sdk: 'GradualApiError reads envelope.requestId',
    },
    markers: ["'traceId'", "'requestId'"],
  },
];

// ---------------------------------------------------------------- arguments

interface Options {
  ref: string | undefined;
  only: Set<string> | undefined;
  keep: boolean;
  errorsShown: number;
  withTests: boolean;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { ref: undefined, only: undefined, keep: false, errorsShown: 3, withTests: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${arg} needs a value`);
      return v;
    };
    if (arg === '--ref') options.ref = value();
    else if (arg === '--only') options.only = new Set(value().split(',').map((s) => s.trim()).filter(Boolean));
    else if (arg === '--keep') options.keep = true;
    else if (arg === '--with-tests') options.withTests = true;
    else if (arg === '--errors') options.errorsShown = Number(value());
    else throw new Error(`unknown argument ${arg}`);
  }
  if (options.only) {
    const unknown = [...options.only].filter((n) => !MUTATIONS.some((m) => m.name === n));
    if (unknown.length) throw new Error(`unknown mutation(s): ${unknown.join(', ')}`);
  }
  return options;
}

// ---------------------------------------------------------------- the copy

/** Never copied: installs, history, build output, runtime data and caches. */
const SKIPPED_NAMES = new Set(['node_modules', '.git', 'dist', '.data', '.vitest-cache', 'coverage', 'test-results']);
const SKIPPED_PATHS = new Set(['tests/artifacts', 'bench/results', 'release']);

function copyWorkingTree(dest: string): void {
  cpSync(root, dest, {
    recursive: true,
    verbatimSymlinks: true,
    filter: (src) => {
      const rel = relative(root, src).split(sep).join('/');
      if (rel === '') return true;
      const name = rel.slice(rel.lastIndexOf('/') + 1);
      return !SKIPPED_NAMES.has(name) && !SKIPPED_PATHS.has(rel) && !name.endsWith('.tsbuildinfo');
    },
  });
}

function copyCommit(ref: string, dest: string): void {
  mkdirSync(dest, { recursive: true });
  const archive = spawnSync('git', ['archive', '--format=tar', ref], { cwd: root, maxBuffer: 1 << 30 });
  if (archive.status !== 0) throw new Error(`git archive ${ref} failed: ${archive.stderr.toString()}`);
  const untar = spawnSync('tar', ['-x', '-C', dest], { input: archive.stdout });
  if (untar.status !== 0) throw new Error(`tar failed: ${untar.stderr.toString()}`);
}

function workspaceDirs(repo: string): string[] {
  const pkg: unknown = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
  const workspaces = typeof pkg === 'object' && pkg !== null && 'workspaces' in pkg ? pkg.workspaces : undefined;
  if (!Array.isArray(workspaces) || !workspaces.every((w): w is string => typeof w === 'string')) {
    throw new Error('package.json: expected "workspaces" to be a list of folders');
  }
  return workspaces;
}

function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !rel.startsWith(sep) && rel !== '..');
}

/**
 * A real node_modules folder in the copy whose entries are symlinks to the
 * original's, except entries that resolve into the original's own sources
 * (the workspace links, `@gradual/*`): those point at the copy's folders, so
 * TypeScript and Node (both follow links to real paths) see the copy's
 * workspaces. Scope folders (`@types`, …) are rebuilt one level deep.
 */
function wireNodeModules(originalDir: string, copyDir: string, copyRoot: string): number {
  mkdirSync(copyDir, { recursive: true });
  let redirected = 0;
  for (const entry of readdirSync(originalDir)) {
    const from = join(originalDir, entry);
    const to = join(copyDir, entry);
    const stat = lstatSync(from);
    if (entry.startsWith('@') && stat.isDirectory()) {
      redirected += wireNodeModules(from, to, copyRoot);
      continue;
    }
    let target = from;
    if (stat.isSymbolicLink()) {
      const real = realpathSync(from);
      if (isInside(real, root) && !real.split(sep).includes('node_modules')) {
        target = join(copyRoot, relative(root, real));
        redirected++;
      }
    }
    symlinkSync(target, to);
  }
  return redirected;
}

// ---------------------------------------------------------------- running

interface Run {
  ok: boolean;
  output: string;
  seconds: number;
}

function run(command: string, args: string[], cwd: string): Promise<Run> {
  const started = performance.now();
  return new Promise((done) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, FORCE_COLOR: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stderr.on('data', (c: Buffer) => chunks.push(c));
    const finish = (ok: boolean, extra = '') =>
      done({ ok, output: Buffer.concat(chunks).toString('utf8') + extra, seconds: (performance.now() - started) / 1000 });
    child.on('error', (err) => finish(false, String(err)));
    child.on('close', (code) => finish(code === 0));
  });
}

/**
 * The shell commands of a root package.json script, with `npm run X` expanded
 * to X's own commands (saves an npm start per step).
 */
function scriptCommands(scripts: Record<string, unknown>, name: string): string[] {
  const script = scripts[name];
  if (typeof script !== 'string') throw new Error(`package.json has no "${name}" script`);
  return script.split('&&').flatMap((part) => {
    const command = part.trim();
    const nested = /^npm run (?:-s |--silent )?([\w:.-]+)$/.exec(command);
    return nested?.[1] ? scriptCommands(scripts, nested[1]) : [command];
  });
}

/** `npm run openapi` in the copy: openapi.yaml from the contract, then the SDK's generated client from it. */
async function regenerate(repo: string): Promise<Run> {
  const pkg: unknown = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
  const scripts = typeof pkg === 'object' && pkg !== null && 'scripts' in pkg && typeof pkg.scripts === 'object' && pkg.scripts !== null ? pkg.scripts : {};
  const outputs: string[] = [];
  let seconds = 0;
  for (const command of scriptCommands({ ...scripts }, 'openapi')) {
    const r = await run('sh', ['-c', command], repo);
    seconds += r.seconds;
    outputs.push(`$ ${command}\n${r.output}`);
    if (!r.ok) return { ok: false, output: outputs.join('\n'), seconds };
  }
  return { ok: true, output: outputs.join('\n'), seconds };
}

interface CompilerError {
  area: Area;
  /** The first line, as tsc prints it. */
  line: string;
  /** The whole message: the first line and its chain. */
  text: string;
}

interface Typecheck {
  errors: CompilerError[];
  /** The check itself failed (a configuration error, a compiler crash, a checker that died). */
  broken: string | undefined;
  seconds: number;
  /** Seconds per program. */
  timing: string;
}

function areaOf(file: string): Area {
  const f = file.split('\\').join('/');
  if (f.startsWith('sdk/src/generated/')) return 'generated';
  if (f.startsWith('sdk/src/')) return 'sdk';
  if (f.startsWith('server/')) return 'server';
  if (f.startsWith('dashboard/')) return 'dashboard';
  if (f.startsWith('tests/')) return 'tests';
  if (f.startsWith('contract/')) return 'contract';
  return 'other';
}

/**
 * The root program without tests/ and bench/ (a tsconfig written into the copy,
 * extending the root one), unless `--with-tests`.
 */
function rootProjectOf(repo: string, options: Options): string {
  if (options.withTests) return 'tsconfig.json';
  const rootConfig: unknown = JSON.parse(readFileSync(join(repo, 'tsconfig.json'), 'utf8'));
  const include =
    typeof rootConfig === 'object' && rootConfig !== null && 'include' in rootConfig && Array.isArray(rootConfig.include)
      ? rootConfig.include.filter((p): p is string => typeof p === 'string' && !/^(tests|bench)(\/|$)|^vitest\.config/.test(p))
      : [];
  writeFileSync(join(repo, 'tsconfig.drill.json'), JSON.stringify({ extends: './tsconfig.json', include }, null, 2));
  return 'tsconfig.drill.json';
}

const ERROR_LINE = /^(.+?)\(\d+,\d+\): error TS\d+:/;

/** The native compiler, as `npm run typecheck` runs it. */
const TSGO = join(root, 'node_modules', '.bin', 'tsgo');

/**
 * The two programs of `npm run typecheck` (root tsconfig and the dashboard's), side by side, each
 * by the native compiler with `--pretty false` (a message's chain on indented lines). An error both
 * report (SDK sources are in both programs) counts once.
 */
async function typecheck(repo: string, projects: string[]): Promise<Typecheck> {
  const started = performance.now();
  const runs = await Promise.all(projects.map((project) => run(TSGO, ['-p', project, '--noEmit', '--pretty', 'false'], repo)));
  const seen = new Set<string>();
  const errors: CompilerError[] = [];
  let broken: string | undefined;
  runs.forEach((r, i) => {
    let current: CompilerError | undefined;
    let own = 0;
    for (const line of r.output.split('\n')) {
      const m = ERROR_LINE.exec(line);
      if (!m?.[1] && !/^error TS\d+:/.test(line)) {
        // A chain line belongs to the error above it (when that one was kept).
        if (current && /^\s/.test(line)) current.text += `\n${line}`;
        continue;
      }
      own++;
      current = undefined;
      // The same error from both programs may print types differently: one error per position and code.
      const key = m?.[0] ?? line;
      if (seen.has(key)) continue;
      seen.add(key);
      current = { area: m?.[1] ? areaOf(m[1]) : 'other', line, text: line };
      errors.push(current);
    }
    // A failed run that printed no error is a broken check (a configuration error, a crash).
    if (!r.ok && own === 0) broken = `${projects[i]!}: ${r.output.slice(0, 2000)}`;
  });
  const timing = runs.map((r, i) => `${projects[i]!} ${r.seconds.toFixed(1)}s`).join(', ');
  return { errors, broken, seconds: (performance.now() - started) / 1000, timing };
}

function applyEdits(repo: string, m: Mutation): void {
  for (const e of m.edits) {
    if (!e.file.startsWith('contract/')) throw new Error(`${m.name}: mutations change contract/ only, not ${e.file}`);
    const path = join(repo, e.file);
    if (!existsSync(path)) throw new Error(`${m.name}: ${e.file} does not exist`);
    const text = readFileSync(path, 'utf8');
    const found = text.split(e.find).length - 1;
    const wanted = e.occurrences ?? 1;
    if (found !== wanted) {
      throw new Error(`${m.name}: expected ${wanted} occurrence(s) in ${e.file} of:\n${e.find}\nfound ${found}; the contract changed, update the drill`);
    }
    writeFileSync(path, text.split(e.find).join(e.replace));
  }
}

/**
 * Every mutation applied to the copy at once, regenerated and checked once; the copy is restored
 * afterwards. Each error is attributed to the mutation whose markers it carries; errors carrying
 * the markers of several mutations or of none are left out (they prove nothing). `outcomes` is
 * unset when the combined pass cannot judge: an edit that does not apply, a generator failure, a
 * broken check, or errors in contract/ or the generated client.
 */
async function checkCombined(
  repo: string,
  mutations: Mutation[],
  projects: string[],
  restore: () => void,
): Promise<{ summary: string; outcomes?: Outcome[] }> {
  let regenerateSeconds = 0;
  try {
    for (const m of mutations) applyEdits(repo, m);
    const gen = await regenerate(repo);
    regenerateSeconds = gen.seconds;
    if (!gen.ok) {
      restore();
      return { summary: 'the combined copy does not regenerate; every mutation is checked alone' };
    }
  } catch (err) {
    restore();
    return { summary: `not run (${err instanceof Error ? err.message.split('\n')[0] : String(err)}); every mutation is checked alone` };
  }
  const result = await typecheck(repo, projects);
  restore();
  const head = `${mutations.length} mutations at once, regenerated in ${regenerateSeconds.toFixed(0)}s, typecheck ${result.seconds.toFixed(0)}s (${result.timing}), ${result.errors.length} error(s)`;
  if (result.broken || result.errors.some((e) => e.area === 'contract' || e.area === 'generated')) {
    return { summary: `${head}; the check broke or the contract itself did not compile: every mutation is checked alone` };
  }
  const own = new Map<Mutation, CompilerError[]>(mutations.map((m) => [m, []]));
  let shared = 0;
  let unmarked = 0;
  for (const e of result.errors) {
    const owners = mutations.filter((m) => m.markers.some((k) => e.text.includes(k)));
    if (owners.length === 1) own.get(owners[0]!)!.push(e);
    else if (owners.length === 0) unmarked++;
    else shared++;
  }
  const outcomes = mutations.map(
    (mutation): Outcome => ({
      mutation,
      error: undefined,
      check: { errors: own.get(mutation)!, broken: undefined, seconds: result.seconds, timing: result.timing },
      regenerateSeconds,
      seconds: regenerateSeconds + result.seconds,
      combined: true,
    }),
  );
  return { summary: `${head}; ${shared} carry the markers of several mutations and ${unmarked} of none (left out)`, outcomes };
}

// ---------------------------------------------------------------- report

interface Outcome {
  mutation: Mutation;
  /** Set when the mutation could not be applied or the generators failed. */
  error: string | undefined;
  check: Typecheck | undefined;
  regenerateSeconds: number;
  seconds: number;
  /** Judged from the combined pass (every mutation at once) rather than a pass of its own. */
  combined: boolean;
}

function countBy(errors: CompilerError[]): Map<Area, number> {
  const counts = new Map<Area, number>();
  for (const e of errors) counts.set(e.area, (counts.get(e.area) ?? 0) + 1);
  return counts;
}

function pad(s: string, n: number): string {
  return s + ' '.repeat(Math.max(0, n - [...s].length));
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => [...(r[i] ?? '')].length)));
  const line = (r: string[]) => r.map((c, i) => pad(c, widths[i]!)).join(' │ ').trimEnd();
  const rule = widths.map((w) => '─'.repeat(w)).join('─┼─');
  return [line(rows[0]!), rule, ...rows.slice(1).map(line)].join('\n');
}

/** Problems that make the outcome of one mutation fatal: missed expected failures, or a broken mutation. */
function problemsOf(o: Outcome): string[] {
  if (o.error) return [`${o.mutation.name}: ${o.error}`];
  const check = o.check!;
  if (check.broken) return [`${o.mutation.name}: typecheck did not run: ${check.broken}`];
  const counts = countBy(check.errors);
  const problems: string[] = [];
  for (const area of ['contract', 'generated'] as const) {
    if (counts.get(area)) problems.push(`${o.mutation.name}: the mutation breaks ${area === 'contract' ? 'contract/ itself' : 'the generated SDK client'}; fix the drill's edit`);
  }
  for (const c of CONSUMERS) {
    if (o.mutation.mustFail[c] && !counts.get(c)) {
      problems.push(`${o.mutation.name}: ${c} still compiles, but it uses the changed piece (${o.mutation.mustFail[c]})`);
    }
  }
  return problems;
}

function cell(o: Outcome, c: Consumer): string {
  const expected = o.mutation.mustFail[c] !== undefined;
  const head = expected ? 'must fail' : '—';
  if (o.error || !o.check || o.check.broken) return `${head} / not run`;
  const n = countBy(o.check.errors).get(c) ?? 0;
  if (expected) return n > 0 ? `${head} / failed (${n}) ✓` : `${head} / COMPILED ✗`;
  return n > 0 ? `${head} / failed (${n})` : `${head} / compiled`;
}

function report(outcomes: Outcome[], withTests: boolean): void {
  const rows: string[][] = [['mutation', 'kind', ...CONSUMERS, 'tests', 'other', 'time']];
  for (const o of outcomes) {
    const counts = o.check ? countBy(o.check.errors) : new Map<Area, number>();
    const info = (a: Area) => (o.check ? String(counts.get(a) ?? 0) : '—');
    rows.push([o.mutation.name, o.mutation.kind, ...CONSUMERS.map((c) => cell(o, c)), withTests ? info('tests') : 'not run', info('other'), o.combined ? 'combined' : `${o.seconds.toFixed(0)}s`]);
  }
  console.log(`\nexpected / observed; tests and other (${withTests ? 'bench/, ' : ''}sdk/scripts/, …): error counts, informational${withTests ? '' : '; tests/ and bench/ are checked with --with-tests'}\n`);
  console.log(table(rows));
}

// ---------------------------------------------------------------- main

async function main(): Promise<number> {
  const options = parseArgs(process.argv.slice(2));
  const started = performance.now();
  const elapsed = () => `${((performance.now() - started) / 1000).toFixed(0)}s`;
  const tmp = mkdtempSync(join(tmpdir(), 'gradual-contract-drill-'));
  const cleanup = () => {
    if (!options.keep) rmSync(tmp, { recursive: true, force: true });
  };
  process.on('exit', cleanup);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      cleanup();
      process.exit(130);
    });
  }

  const pristine = join(tmp, 'pristine');
  /** A copy of the repository whose node_modules resolve the copy's own workspaces; null when that fails. */
  const prepareCopy = (repo: string): number | null => {
    if (options.ref) copyCommit(options.ref, repo);
    else copyWorkingTree(repo);
    let redirected = wireNodeModules(join(root, 'node_modules'), join(repo, 'node_modules'), repo);
    for (const ws of workspaceDirs(repo)) {
      const original = join(root, ws, 'node_modules');
      if (existsSync(original)) redirected += wireNodeModules(original, join(repo, ws, 'node_modules'), repo);
    }
    // The copy's own workspaces must be what `@gradual/contract` resolves to.
    const contractLink = join(repo, 'node_modules', '@gradual', 'contract');
    const resolvedContract = existsSync(contractLink) ? realpathSync(contractLink) : '(missing)';
    if (resolvedContract !== realpathSync(join(repo, 'contract'))) {
      console.error(`node_modules/@gradual/contract resolves to ${resolvedContract}, not the copy's contract/`);
      return null;
    }
    return redirected;
  };

  const repo = join(tmp, 'repo');
  const redirected = prepareCopy(repo);
  if (redirected === null) return 1;
  console.log(`contract drift drill: copy of ${options.ref ? `${options.ref} (git archive)` : 'the working tree'} in ${repo}`);
  console.log(`node_modules wired: ${redirected} workspace link(s) point into the copy (${elapsed()})`);

  // Control: the unmutated copy regenerates and typechecks cleanly.
  const controlGen = await regenerate(repo);
  if (!controlGen.ok) {
    console.error(`\nCONTROL FAILED: npm run openapi on the unmutated copy\n${controlGen.output}`);
    return 1;
  }
  const projects = [rootProjectOf(repo, options), 'dashboard/tsconfig.json'];
  const control = await typecheck(repo, projects);
  console.log(
    `control: regenerated in ${controlGen.seconds.toFixed(0)}s, typecheck ${control.seconds.toFixed(0)}s (${control.timing}), ${control.errors.length} error(s) (${elapsed()})`,
  );
  if (control.broken || control.errors.length > 0) {
    console.error('\nCONTROL FAILED: the unmutated copy does not typecheck, so the drill would prove nothing');
    if (control.broken) console.error(control.broken);
    for (const e of control.errors.slice(0, 30)) console.error(`  ${e.line}`);
    if (control.errors.length > 30) console.error(`  … ${control.errors.length - 30} more`);
    return 1;
  }

  // What every mutation starts from: the contract sources and the regenerated outputs.
  const restorable = ['contract/src', 'openapi.yaml', 'sdk/src/generated'];
  for (const p of restorable) cpSync(join(repo, p), join(pristine, p), { recursive: true });
  const restore = () => {
    for (const p of restorable) {
      rmSync(join(repo, p), { recursive: true, force: true });
      cpSync(join(pristine, p), join(repo, p), { recursive: true });
    }
  };

  const mutations = MUTATIONS.filter((m) => !options.only || options.only.has(m.name));

  /** Applies a mutation to the copy and regenerates; a failure (an edit that no longer matches, a generator error) is the mutation's. */
  const prepare = async (mutation: Mutation): Promise<{ error: string | undefined; seconds: number }> => {
    const t0 = performance.now();
    const seconds = () => (performance.now() - t0) / 1000;
    try {
      applyEdits(repo, mutation);
      const gen = await regenerate(repo);
      return { error: gen.ok ? undefined : `npm run openapi failed:\n${gen.output.trim().slice(0, 3000)}`, seconds: seconds() };
    } catch (err) {
      return { error: err instanceof Error ? err.message : String(err), seconds: seconds() };
    }
  };

  const print = (outcome: Outcome) => {
    const { mutation, error, check: result } = outcome;
    const timing = outcome.combined ? ': from the combined pass' : result ? `: regenerated in ${outcome.regenerateSeconds.toFixed(0)}s, typecheck ${result.seconds.toFixed(0)}s (${result.timing})` : '';
    console.log(`\n● ${mutation.name} (${mutation.kind}): ${mutation.summary} (${outcome.combined ? 'combined pass' : `${outcome.seconds.toFixed(0)}s${timing}`}, at ${elapsed()})`);
    if (error) console.log(`  ERROR ${error}`);
    if (result?.broken) console.log(`  ERROR ${result.broken}`);
    for (const c of CONSUMERS) {
      const mine = result?.errors.filter((e) => e.area === c) ?? [];
      const why = mutation.mustFail[c];
      const verdict = !result ? 'not run' : why ? (mine.length ? 'failed, as it must' : 'STILL COMPILES') : mine.length ? 'failed (not required)' : 'compiles';
      console.log(`  ${pad(c, 9)} ${verdict}${why ? ` — uses it: ${why}` : ''}`);
      for (const e of mine.slice(0, options.errorsShown)) console.log(`      ${e.line}`);
      if (mine.length > options.errorsShown) console.log(`      … ${mine.length - options.errorsShown} more`);
    }
    for (const area of ['tests', 'contract', 'generated', 'other'] as const) {
      const mine = result?.errors.filter((e) => e.area === area) ?? [];
      const informational = area === 'tests' || area === 'other';
      if (mine.length) console.log(`  ${pad(area, 9)} ${mine.length} error(s)${informational ? ' (informational)' : ''}`);
      for (const e of mine.slice(0, informational ? 0 : options.errorsShown)) console.log(`      ${e.line}`);
    }
  };

  // The combined pass: every mutation applied at once, regenerated once and checked once (a
  // mutation's check costs a whole program's, since every consumer reaches the contract). Each
  // error goes to the one mutation whose markers it carries. A mutation that a required consumer
  // shows no error of its own for, and every mutation when the combined copy does not regenerate or
  // breaks the contract itself, is then checked alone: the combined pass may only save time, never
  // pass a mutation that would fail alone.
  const byMutation = new Map<Mutation, Outcome>();
  let alone: Mutation[] = mutations;
  if (mutations.length > 1) {
    const combined = await checkCombined(repo, mutations, projects, restore);
    console.log(`\ncombined: ${combined.summary} (${elapsed()})`);
    if (combined.outcomes) {
      alone = [];
      for (const o of combined.outcomes) {
        if (CONSUMERS.some((c) => o.mutation.mustFail[c] && !o.check!.errors.some((e) => e.area === c))) alone.push(o.mutation);
        else byMutation.set(o.mutation, o);
      }
      for (const o of byMutation.values()) print(o);
      if (alone.length) console.log(`\nchecked alone, the combined pass showing no error of their own in a consumer that must fail: ${alone.map((m) => m.name).join(', ')}`);
    }
  }

  // One mutation at a time on the one copy, its two programs checked side by side, then restored.
  for (const mutation of alone) {
    const ready = await prepare(mutation);
    const result = ready.error ? undefined : await typecheck(repo, projects);
    restore();
    const outcome: Outcome = { mutation, error: ready.error, check: result, regenerateSeconds: ready.seconds, seconds: ready.seconds + (result?.seconds ?? 0), combined: false };
    byMutation.set(mutation, outcome);
    print(outcome);
  }
  const outcomes = mutations.map((m) => byMutation.get(m)!);

  report(outcomes, options.withTests);
  const required = new Set(outcomes.flatMap((o) => CONSUMERS.filter((c) => o.mutation.mustFail[c])));
  const problems = outcomes.flatMap(problemsOf);
  if (!options.only) {
    for (const c of CONSUMERS) if (!required.has(c)) problems.push(`no mutation requires ${c} to fail; the drill does not cover it`);
  }
  console.log(`\ncontrol passed; ${outcomes.length} mutation(s) (${alone.length} checked alone) in ${elapsed()}`);
  if (problems.length) {
    console.log(`\nDRIFT: ${problems.length} expectation(s) not met`);
    for (const p of problems) console.log(`  ✗ ${p}`);
    return 1;
  }
  console.log('every consumer that uses a changed piece stopped compiling');
  return 0;
}

process.exitCode = await main();
