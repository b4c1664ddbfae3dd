import type { Command } from 'commander';
import { connect, findEnvironment, findProject, parseJsonOption } from '../context.js';
import { CliError } from '../errors.js';
import { show, table } from '../output.js';
import { registerFlagCleanupCommands } from './stale.js';

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
  variant: string[];
  defaultVariant?: string;
  reason?: string;
}

/** `--variant name=<json>`, repeated: the flag's declared variants. */
function parseVariants(specs: readonly string[]): Record<string, unknown> {
  const variants: Record<string, unknown> = {};
  for (const spec of specs) {
    const eq = spec.indexOf('=');
    if (eq <= 0) throw new CliError('invalid_option', `--variant: "${spec}" is not name=<json>`);
    variants[spec.slice(0, eq)] = parseJsonOption(spec.slice(eq + 1), `--variant ${spec.slice(0, eq)}`);
  }
  return variants;
}

const VALUE_TYPES = ['boolean', 'string', 'number'] as const;
type ValueType = (typeof VALUE_TYPES)[number];
const isValueType = (t: string): t is ValueType => VALUE_TYPES.some((v) => v === t);

const rolloutCell = (rollout: { status: string; percent: number } | null) => (rollout ? `${rollout.status} ${rollout.percent}%` : null);

export function registerFlagCommands(program: Command): void {
  const flags = program.command('flags').description('list, show, create and archive flags; find stale ones');

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
    .option('--variant <name=json>', 'declare a variant, e.g. --variant on=true (repeatable)', (spec: string, all: string[]) => [...all, spec], [])
    .option('--default-variant <name>', 'instead of --default: the declared variant that is the default')
    .option('--reason <text>', 'audit reason (X-Audit-Reason)')
    .action(async (key: string, options: CreateOptions, cmd: Command) => {
      if (!isValueType(options.type)) throw new CliError('invalid_option', `--type: "${options.type}" is not one of ${VALUE_TYPES.join(', ')}`);
      const valueType = options.type;
      const variants = parseVariants(options.variant);
      if (options.default !== undefined && options.defaultVariant !== undefined) throw new CliError('invalid_option', 'give --default or --default-variant, not both');
      if (options.default === undefined && options.defaultVariant === undefined && valueType !== 'boolean') {
        throw new CliError('invalid_option', `--default or --default-variant is required for a ${valueType} flag`);
      }
      const initial =
        options.defaultVariant !== undefined
          ? { defaultVariant: options.defaultVariant }
          : { defaultValue: options.default === undefined ? false : parseJsonOption(options.default, '--default') };
      const ctx = await connect(cmd);
      const project = await findProject(ctx, options.project);
      const flag = await ctx.client.createFlag({
        path: { id: project.id },
        body: {
          key,
          name: options.name ?? key,
          valueType,
          ...initial,
          ...(options.variant.length ? { variants } : {}),
          ...(options.description ? { description: options.description } : {}),
        },
        ...(options.reason ? { headers: { 'x-audit-reason': options.reason } } : {}),
      });
      const names = Object.keys(flag.variants);
      ctx.out.result(
        flag,
        () => `created flag ${flag.key} (${flag.valueType}, default ${show(flag.defaultValue)}${names.length ? `, variants ${names.join(', ')}` : ''}) in project ${project.key}`,
      );
    });
  registerFlagCleanupCommands(flags);
}
