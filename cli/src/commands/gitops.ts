import { readFile, writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { stringify } from 'yaml';
import { connect, findProject } from '../context.js';
import { CliError } from '../errors.js';
import { readStdin } from '../stdin.js';
import { show } from '../output.js';
import { computeChanges, executeWrites, type Change } from '../gitops/changes.js';
import { exportFile, readRemote } from '../gitops/remote.js';
import { parseGradualFile } from '../gitops/schema.js';

interface ApplyOptions {
  file: string;
  dryRun?: boolean;
  project?: string;
  reason?: string;
}
interface ExportOptions {
  project?: string;
  output?: string;
}

async function readInput(path: string): Promise<string> {
  if (path === '-') return readStdin();
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw new CliError('invalid_file', `${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function changeLine(c: Change): string {
  const name = `${c.kind} ${c.key}`;
  if (c.action === 'create') return `+ create ${name}`;
  if (c.action === 'unchanged') return `  unchanged ${name}`;
  return `~ update ${name} ${c.field ?? ''}: ${show(c.from)} → ${show(c.to)}`;
}

function summary(changes: Change[]) {
  const count = (action: Change['action']) => new Set(changes.filter((c) => c.action === action).map((c) => `${c.kind}/${c.key}`)).size;
  return { create: count('create'), update: count('update'), unchanged: count('unchanged') };
}

export function registerGitopsCommands(program: Command): void {
  program
    .command('apply')
    .description('make the project match gradual.yaml (flags, configs, rollout plans); resources the file leaves out are left alone')
    .requiredOption('-f, --file <path>', 'the YAML file (- for stdin)')
    .option('--dry-run', 'print the changes without writing anything')
    .option('-p, --project <key>', "project key (default: the file's `project`)")
    .option('--reason <text>', 'audit reason (X-Audit-Reason) on every write')
    .action(async (options: ApplyOptions, cmd: Command) => {
      const file = parseGradualFile(await readInput(options.file), options.file === '-' ? '<stdin>' : options.file);
      const ctx = await connect(cmd);
      const project = await findProject(ctx, options.project ?? file.project);
      const remote = await readRemote(ctx.client, project);
      const { changes, writes } = computeChanges(file, remote);
      if (!options.dryRun) await executeWrites(ctx.client, project.id, writes, options.reason);
      const totals = summary(changes);
      ctx.out.result({ project: project.key, dryRun: options.dryRun === true, writes: options.dryRun ? 0 : writes.length, summary: totals, changes }, () => {
        const lines = changes.map(changeLine);
        const verb = options.dryRun ? 'would' : 'did';
        lines.push(
          writes.length === 0
            ? `no changes: project ${project.key} matches ${options.file}`
            : `${totals.create} to create, ${totals.update} to update, ${totals.unchanged} unchanged (${options.dryRun ? 'dry run: nothing written' : `${writes.length} writes`}; ${verb} not delete what the file leaves out)`,
        );
        return lines.join('\n');
      });
    });

  program
    .command('export')
    .description("print a project's flags, configs and rollout plans as gradual.yaml (applying it back changes nothing)")
    .option('-p, --project <key>', 'project key (or GRADUAL_PROJECT)')
    .option('-o, --output <path>', 'write to a file instead of stdout')
    .action(async (options: ExportOptions, cmd: Command) => {
      const ctx = await connect(cmd);
      const project = await findProject(ctx, options.project);
      const doc = exportFile(await readRemote(ctx.client, project));
      const text = ctx.out.json ? JSON.stringify(doc, null, 2) + '\n' : `# gradual.yaml: flags, configs and rollout plans of project ${project.key}\n` + stringify(doc, { lineWidth: 0 });
      if (options.output) {
        await writeFile(options.output, text);
        ctx.out.note(`wrote ${options.output}`);
      } else process.stdout.write(text);
    });
}
