import { SingleBar, Presets } from 'cli-progress';
import type { Proposal } from '@gradual/sdk';
import type { Command } from 'commander';
import { connect, findEnvironment, findProject, subjectOf } from '../context.js';
import { CliError } from '../errors.js';
import { reportProposals } from '../outcome.js';
import { readTargetIds } from '../target-file.js';

interface TargetOptions {
  project?: string;
  env?: string;
  config?: string;
  file: string;
  chunkSize: string;
  reason?: string;
}

/** The most IDs one add or remove request may carry (contract: TargetIdsRequest). */
export const MAX_CHUNK = 100_000;

export function registerTargetCommands(program: Command): void {
  const targets = program.command('targets').description("add or remove IDs on a rollout's allow-list, from a file of up to a million IDs");

  for (const verb of ['add', 'remove'] as const) {
    targets
      .command(verb)
      .description(verb === 'add' ? 'add the IDs in a file to the allow-list (duplicates are ignored)' : 'remove the IDs in a file from the allow-list (absent IDs are skipped)')
      .argument('[flag]', 'flag key (or --config <key>)')
      .option('-c, --config <key>', 'a config instead of a flag')
      .option('-p, --project <key>', 'project key (or GRADUAL_PROJECT)')
      .option('-e, --env <key>', 'environment key (or GRADUAL_ENV)')
      .requiredOption('-f, --file <path>', 'one ID per line, or CSV (first column); - for stdin')
      .option('--chunk-size <n>', `IDs per request, 1–${MAX_CHUNK}`, String(MAX_CHUNK))
      .option('--reason <text>', 'audit reason (X-Audit-Reason)')
      .action(async (key: string | undefined, options: TargetOptions, cmd: Command) => {
        const subject = subjectOf(key, options.config);
        const chunkSize = Number(options.chunkSize);
        if (!Number.isInteger(chunkSize) || chunkSize < 1 || chunkSize > MAX_CHUNK) throw new CliError('invalid_option', `--chunk-size: "${options.chunkSize}" is not a whole number from 1 to ${MAX_CHUNK}`);
        const ids = await readTargetIds(options.file);
        const ctx = await connect(cmd);
        const project = await findProject(ctx, options.project);
        const env = await findEnvironment(ctx, project, options.env);
        const path = { envId: env.id, key: subject.key };
        const headers = options.reason ? { headers: { 'x-audit-reason': options.reason } } : {};
        const send = (targetIds: string[]) => {
          const request = { path, body: { targetIds }, ...headers };
          if (subject.kind === 'flag') return verb === 'add' ? ctx.client.addFlagTargetIds(request) : ctx.client.removeFlagTargetIds(request);
          return verb === 'add' ? ctx.client.addConfigTargetIds(request) : ctx.client.removeConfigTargetIds(request);
        };

        const bar = !ctx.out.json && process.stderr.isTTY ? new SingleBar({ stream: process.stderr, format: `${verb} {bar} {value}/{total} IDs | {eta_formatted} left` }, Presets.shades_classic) : undefined;
        bar?.start(ids.length, 0);
        let changed = 0;
        let count: number | undefined;
        const proposals: Proposal[] = [];
        try {
          for (let offset = 0; offset < ids.length; offset += chunkSize) {
            const chunk = ids.slice(offset, offset + chunkSize);
            const outcome = await send(chunk);
            if (outcome.kind === 'proposed') proposals.push(outcome.proposal);
            else {
              changed += 'added' in outcome.data ? outcome.data.added : outcome.data.removed;
              count = outcome.data.count;
            }
            bar?.update(offset + chunk.length);
          }
        } finally {
          bar?.stop();
        }
        if (proposals.length > 0) {
          reportProposals(ctx.out, proposals);
          return;
        }
        const verbed = verb === 'add' ? 'added' : 'removed';
        const requests = Math.ceil(ids.length / chunkSize);
        ctx.out.result(
          { [verbed]: changed, count: count ?? null, read: ids.length, requests },
          () => `${verbed} ${changed} of ${ids.length} IDs read (${requests} ${requests === 1 ? 'request' : 'requests'}); the allow-list of ${subject.kind} ${subject.key} in ${env.key} holds ${count ?? 'an unchanged number of'} IDs`,
        );
      });
  }
}
