import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Command } from 'commander';
import type { PrimitiveInsight } from '@gradual/sdk';
import { connect, findProject, subjectOf, type Context } from '../context.js';
import { CliError } from '../errors.js';
import { table } from '../output.js';
import { generateTypes, type GenerateOptions, type ManifestFile } from '../typegen/generate.js';
import { checkProject, loadTypeScript, type ProjectCheck } from '../typegen/references.js';

interface StaleOptions {
  project?: string;
  days: string;
  tsconfig?: string;
  types?: string;
  report?: string;
  commit?: string;
}

interface ArchiveOptions {
  project?: string;
  config?: string;
  reason?: string;
}

/** What `flags stale` concludes about one key. */
type Verdict = 'safe_to_remove' | 'referenced' | 'unproven';

interface StaleKey {
  kind: 'flag' | 'config';
  key: string;
  lastEvaluatedAt: string | null;
  verdict: Verdict;
  references: number | null;
  locations: string[];
  /** What to do next: the command that archives it, or why it stays. */
  next: string;
}

/** The module `gradual types` writes for `manifest` as `existing` was written (its options), or null when it is stale. */
function optionsOf(manifest: ManifestFile, source: string, existing: string) {
  for (const openfeature of [false, true]) {
    for (const react of [false, true]) {
      const options = { source, openfeature, react };
      if (generateTypes(manifest, options) === existing) return options;
    }
  }
  return null;
}

const without = (manifest: ManifestFile, keys: ReadonlySet<string>): ManifestFile => ({
  ...manifest,
  flags: Object.fromEntries(Object.entries(manifest.flags).filter(([key]) => !keys.has(key))),
});

const archiveCommand = (c: { kind: string; key: string }, project: string) =>
  c.kind === 'flag' ? `gradual flags archive ${c.key} --project ${project}` : `gradual flags archive --config ${c.key} --project ${project}`;

/** Keys checked one by one at most, when removing them together is not conclusive. */
const ONE_BY_ONE_MAX = 25;

/**
 * The proof that candidates are unused. The project is compiled without all of them: a key whose
 * literal a new error points at is used there. When every new error points at one, the keys none
 * points at are unused. Otherwise (follow-on errors, a key held in a variable) the others are
 * compiled away together: no new error proves them all unused. If there is one, each is compiled
 * away alone, where every new error is a use of it.
 */
function proveUnused(check: ProjectCheck, manifest: ManifestFile, options: GenerateOptions, keys: string[]) {
  const moduleWithout = (removed: ReadonlySet<string>) => check.usesWithout(generateTypes(without(manifest, removed), options), removed);
  const all = moduleWithout(new Set(keys));
  const uses = new Map(all.byKey);
  const rest = keys.filter((k) => !uses.has(k));
  if (!rest.length || !all.unattributed.length) return { uses, unused: new Set(rest), notChecked: [] };
  const together = moduleWithout(new Set(rest));
  if (!together.byKey.size && !together.unattributed.length) return { uses, unused: new Set(rest), notChecked: [] };
  const unused = new Set<string>();
  for (const key of rest.slice(0, ONE_BY_ONE_MAX)) {
    const alone = moduleWithout(new Set([key]));
    if (!alone.byKey.size && !alone.unattributed.length) unused.add(key);
    else uses.set(key, [...(alone.byKey.get(key) ?? []), ...alone.unattributed]);
  }
  return { uses, unused, notChecked: rest.slice(ONE_BY_ONE_MAX) };
}

async function staleKeys(ctx: Context, options: StaleOptions) {
  const days = Number(options.days);
  if (!Number.isInteger(days) || days < 1 || days > 90) throw new CliError('invalid_option', `--days: "${options.days}" is not a whole number of days from 1 to 90`);
  if ((options.tsconfig === undefined) !== (options.types === undefined)) throw new CliError('invalid_option', '--tsconfig and --types go together: the project to check and the module gradual types wrote for it');
  if (options.report !== undefined && options.tsconfig === undefined) throw new CliError('invalid_option', '--report sends what the type check found: it needs --tsconfig and --types');
  const project = await findProject(ctx, options.project);
  const insights: PrimitiveInsight[] = await ctx.client.listInsights({ path: { id: project.id }, query: { staleAfterDays: days } });
  // Nobody evaluated them for `days` (a new one is not stale yet).
  const candidates = insights.filter((i) => i.evaluations === 0 && i.status !== 'new');
  let proof: { typescript: string; files: number; tsconfig: string; notChecked: string[] } | null = null;
  let uses = new Map<string, string[]>();
  let unused = new Set<string>();
  if (options.tsconfig !== undefined && options.types !== undefined && candidates.length) {
    const source = `project ${project.key}`;
    const manifest = await ctx.client.getManifest({ path: { id: project.id } });
    const existing = await readFile(options.types, 'utf8').catch(() => {
      throw new CliError('file_not_found', `--types: cannot read ${options.types}: run gradual types --out ${options.types} first`);
    });
    const generated = optionsOf(manifest, source, existing);
    if (!generated) throw new CliError('types_stale', `${options.types} is not what ${source} generates now: run gradual types again, then check`);
    const check = checkProject(loadTypeScript(dirname(options.tsconfig)), options.tsconfig, options.types);
    const found = proveUnused(check, manifest, generated, candidates.map((c) => c.key));
    uses = found.uses;
    unused = found.unused;
    proof = { typescript: check.typescript, files: check.files, tsconfig: options.tsconfig, notChecked: found.notChecked };
  }
  // An approval-required key cannot archive (archiving reaches every environment): a person does.
  const me = candidates.length ? await ctx.client.whoami() : null;
  const archiveBy = me?.type === 'api_key' && me.apiKey.requiresApproval ? (command: string) => `a person archives it (approval required): ${command}` : (command: string) => command;
  const keys: StaleKey[] = candidates.map((c) => {
    const at = uses.get(c.key) ?? [];
    const base = { kind: c.kind, key: c.key, lastEvaluatedAt: c.lastEvaluatedAt };
    if (unused.has(c.key)) return { ...base, verdict: 'safe_to_remove', references: 0, locations: [], next: archiveBy(archiveCommand(c, project.key)) };
    if (at.length) return { ...base, verdict: 'referenced', references: at.length, locations: at.slice(0, 10), next: `remove its uses first (${at.slice(0, 3).join(', ')}${at.length > 3 ? ', …' : ''})` };
    return {
      ...base,
      verdict: 'unproven',
      references: null,
      locations: [],
      next: proof ? `not checked: more than ${ONE_BY_ONE_MAX} keys needed a check of their own; run again` : 'check the code: --tsconfig <file> --types <module>',
    };
  });
  return { project, days, keys, proof };
}

export function registerFlagCleanupCommands(flags: Command): void {
  flags
    .command('stale')
    .description('flags and configs nobody evaluated for --days; with --tsconfig and --types, the ones the project\'s type check proves unused, each with the command that archives it')
    .option('-p, --project <key>', 'project key (or GRADUAL_PROJECT)')
    .option('--days <n>', 'no evaluation in any environment for this many days (1-90)', '30')
    .option('--tsconfig <file>', 'the TypeScript project whose code uses the keys through the generated module')
    .option('--types <file>', 'the module gradual types wrote for it (must be current)')
    .option('--report <repository>', 'send the findings to the server under this repository name, for the dashboard')
    .option('--commit <sha>', 'with --report: the commit that was checked')
    .action(async (options: StaleOptions, cmd: Command) => {
      const ctx = await connect(cmd);
      const { project, days, keys, proof } = await staleKeys(ctx, options);
      let reported: { repository: string; checks: number } | null = null;
      if (options.report !== undefined && proof) {
        const checks = keys.filter((k) => k.references !== null).map((k) => ({ kind: k.kind, key: k.key, references: k.references ?? 0, locations: k.locations }));
        const answer = await ctx.client.reportCodeReferences({
          path: { id: project.id },
          body: { repository: options.report, checks, ...(options.commit ? { commit: options.commit } : {}) },
        });
        reported = { repository: answer.repository, checks: answer.checks };
      }
      ctx.out.result({ project: project.key, days, checked: proof, reported, keys }, () => {
        const lines: string[] = [];
        if (!keys.length) return `no flag or config of ${project.key} went unevaluated for ${days} days`;
        if (proof) {
          lines.push(`type check: ${proof.tsconfig} (TypeScript ${proof.typescript}, ${proof.files} files)`);
        }
        lines.push(
          table(
            ['key', 'kind', 'last evaluated', 'uses', 'verdict', 'next'],
            keys.map((k) => [k.key, k.kind, k.lastEvaluatedAt ?? `not in ${days} days`, k.references, k.verdict, k.next]),
          ),
        );
        if (reported) lines.push(`reported ${reported.checks} checks as ${reported.repository}`);
        return lines.join('\n');
      });
    });

  flags
    .command('archive')
    .description('archive a flag (or --config a config): every environment serves its default with reason DISABLED; restorable')
    .argument('[key]', 'flag key')
    .option('-p, --project <key>', 'project key (or GRADUAL_PROJECT)')
    .option('--config <key>', 'archive this config instead of a flag')
    .option('--reason <text>', 'audit reason (X-Audit-Reason)')
    .action(async (key: string | undefined, options: ArchiveOptions, cmd: Command) => {
      const subject = subjectOf(key, options.config);
      const ctx = await connect(cmd);
      const project = await findProject(ctx, options.project);
      const request = { path: { id: project.id, key: subject.key }, ...(options.reason ? { headers: { 'x-audit-reason': options.reason } } : {}) };
      const archived = subject.kind === 'flag' ? await ctx.client.archiveFlag(request) : await ctx.client.archiveConfig(request);
      ctx.out.result(archived, () => `archived ${subject.kind} ${archived.key} in project ${project.key}`);
    });
}
