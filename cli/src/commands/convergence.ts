import type { Convergence } from '@gradual/sdk';
import type { Command } from 'commander';
import { connect, findEnvironment, findProject } from '../context.js';
import { CliError } from '../errors.js';
import { table } from '../output.js';

interface ConvergenceOptions {
  project?: string;
  env?: string;
  window?: string;
}

const percent = (share: number | null) => (share === null ? '–' : `${(100 * share).toFixed(1)} %`);
const ms = (v: number | null) => (v === null ? '–' : `${v.toLocaleString('en-US')} ms`);

/** `gradual convergence`: the fleet's versions, the time to converge of the latest ones, and the laggards. */
export function convergenceTable(c: Convergence): string {
  const head = `${c.instances.toLocaleString('en-US')} SDK instances · ${percent(c.currentShare)} on v${c.version} · ${c.laggards.length === 0 ? 'no laggards' : `${c.laggards.length} laggard${c.laggards.length === 1 ? '' : 's'}`} (last ${c.windowSeconds / 60} min)`;
  const versions = table(
    ['version', 'committed', 'instances', 'p50', 'p99'],
    c.versions.map((v) => [`v${v.version}`, v.committedAt, String(v.instances), ms(v.p50Ms), ms(v.p99Ms)]),
  );
  const sdks = table(['sdk', 'instances', 'current'], c.bySdk.map((s) => [`${s.name} ${s.version}`, String(s.instances), String(s.current)]));
  const laggards = c.laggards.length === 0 ? '' : `\n\n${table(['laggard', 'sdk', 'service', 'version', 'last seen'], c.laggards.map((l) => [l.instanceId, `${l.sdk.name} ${l.sdk.version}`, l.service, `v${l.version}`, l.lastSeen]))}`;
  return `${head}\n\n${versions}\n\n${sdks}${laggards}`;
}

export function registerConvergenceCommand(program: Command): void {
  program
    .command('convergence')
    .description("which ruleset version the environment's SDK instances serve: share on the current version, time to converge, laggards")
    .option('-p, --project <key>', 'project key (or GRADUAL_PROJECT)')
    .option('-e, --env <key>', 'environment key (or GRADUAL_ENV)')
    .option('--window <minutes>', 'count instances seen within this many minutes (1 to 60)', '5')
    .action(async (options: ConvergenceOptions, cmd: Command) => {
      const windowMinutes = Number(options.window);
      if (!Number.isInteger(windowMinutes) || windowMinutes < 1 || windowMinutes > 60) throw new CliError('invalid_option', '--window must be a whole number of minutes from 1 to 60');
      const ctx = await connect(cmd);
      const project = await findProject(ctx, options.project);
      const env = await findEnvironment(ctx, project, options.env);
      const c = await ctx.client.getConvergence({ path: { envId: env.id }, query: { windowMinutes } });
      ctx.out.result(c, () => convergenceTable(c));
    });
}
