import type { Command } from 'commander';
import { connect, findEnvironment, findProject, parseJsonOption } from '../context.js';
import { CliError } from '../errors.js';
import { show, table } from '../output.js';

interface ListOptions {
  project?: string;
  env?: string;
}
interface CreateOptions {
  project?: string;
  name?: string;
  description?: string;
  type: string;
  default?: string;
  reason?: string;
}

const VALUE_TYPES = ['boolean', 'string', 'number'] as const;
type ValueType = (typeof VALUE_TYPES)[number];
const isValueType = (t: string): t is ValueType => VALUE_TYPES.some((v) => v === t);

const rolloutCell = (rollout: { status: string; percent: number } | null) => (rollout ? `${rollout.status} ${rollout.percent}%` : null);

export function registerFlagCommands(program: Command): void {
  const flags = program.command('flags').description('list, show and create flags');

  flags
    .command('list')
    .description("a project's flags; with --env, each flag's value, rules and rollout in that environment")
    .option('-p, --project <key>', 'project key (or GRADUAL_PROJECT)')
    .option('-e, --env <key>', 'environment key')
    .action(async (options: ListOptions, cmd: Command) => {
      const ctx = await connect(cmd);
      const project = await findProject(ctx, options.project);
      if (options.env) {
        const env = await findEnvironment(ctx, project, options.env);
        const states = await ctx.client.listFlagStates({ path: { envId: env.id } });
        ctx.out.result(states, () =>
          table(
            ['key', 'type', 'value', 'rules', 'rollout'],
            states.map((s) => [s.key, s.valueType, show(s.value), s.rules.length, rolloutCell(s.rollout)]),
          ),
        );
        return;
      }
      const list = await ctx.client.listFlags({ path: { id: project.id } });
      ctx.out.result(list, () => table(['key', 'name', 'type', 'default'], list.map((f) => [f.key, f.name, f.valueType, show(f.defaultValue)])));
    });

  flags
    .command('get')
    .description("a flag's definition, or with --env its value, rules and rollout in that environment")
    .argument('<key>', 'flag key')
    .option('-p, --project <key>', 'project key (or GRADUAL_PROJECT)')
    .option('-e, --env <key>', 'environment key')
    .action(async (key: string, options: ListOptions, cmd: Command) => {
      const ctx = await connect(cmd);
      const project = await findProject(ctx, options.project);
      if (options.env) {
        const env = await findEnvironment(ctx, project, options.env);
        const state = await ctx.client.getFlagState({ path: { envId: env.id, key } });
        ctx.out.result(state, () =>
          [
            `flag ${state.key} in ${env.key} (${state.valueType})`,
            `value:   ${show(state.value)}`,
            `rules:   ${state.rules.length === 0 ? 'none' : state.rules.map((r, i) => `\n  ${i + 1}. ${r.description ?? ''} ${JSON.stringify(r.conditions)} → ${show(r.value)}`).join('')}`,
            `rollout: ${state.rollout ? `${state.rollout.status} at ${state.rollout.percent}%` : 'none'}`,
          ].join('\n'),
        );
        return;
      }
      const flag = (await ctx.client.listFlags({ path: { id: project.id } })).find((f) => f.key === key);
      if (!flag) throw new CliError('not_found', `no flag "${key}" in project "${project.key}"`);
      ctx.out.result(flag, () =>
        table(
          ['field', 'value'],
          [
            ['key', flag.key],
            ['name', flag.name],
            ['description', flag.description],
            ['type', flag.valueType],
            ['default', show(flag.defaultValue)],
            ['created', flag.createdAt],
          ],
        ),
      );
    });

  flags
    .command('create')
    .description('create a flag (its value is the default in every environment)')
    .argument('<key>', 'flag key')
    .option('-p, --project <key>', 'project key (or GRADUAL_PROJECT)')
    .option('--name <name>', 'display name (default: the key)')
    .option('--description <text>', 'description')
    .option('--type <type>', 'boolean, string or number', 'boolean')
    .option('--default <json>', 'default value, JSON (default: false for boolean flags)')
    .option('--reason <text>', 'audit reason (X-Audit-Reason)')
    .action(async (key: string, options: CreateOptions, cmd: Command) => {
      if (!isValueType(options.type)) throw new CliError('invalid_option', `--type: "${options.type}" is not one of ${VALUE_TYPES.join(', ')}`);
      const valueType = options.type;
      if (options.default === undefined && valueType !== 'boolean') throw new CliError('invalid_option', `--default is required for a ${valueType} flag`);
      const defaultValue = options.default === undefined ? false : parseJsonOption(options.default, '--default');
      const ctx = await connect(cmd);
      const project = await findProject(ctx, options.project);
      const flag = await ctx.client.createFlag({
        path: { id: project.id },
        body: { key, name: options.name ?? key, valueType, defaultValue, ...(options.description ? { description: options.description } : {}) },
        ...(options.reason ? { headers: { 'x-audit-reason': options.reason } } : {}),
      });
      ctx.out.result(flag, () => `created flag ${flag.key} (${flag.valueType}, default ${show(flag.defaultValue)}) in project ${project.key}`);
    });
}
