import { GradualApiError, type GradualClient, type MutationResult, type Rollout, type RolloutGuard } from '@gradual/sdk';
import type { Command } from 'commander';
import { connect, findEnvironment, findProject, parseJsonOption, parsePercent, subjectOf, type Context, type Kind } from '../context.js';
import { parseDuration } from '../duration.js';
import { CliError, EXIT } from '../errors.js';
import { reportProposals } from '../outcome.js';
import { show, table } from '../output.js';

interface Where {
  project?: string;
  env?: string;
  config?: string;
}
interface StartOptions extends Where {
  percent?: string;
  value?: string;
  variant?: string;
  plan?: string;
  seed?: string;
  bucketField?: string;
  reason?: string;
}
interface ReasonOptions extends Where {
  reason?: string;
}
interface WaitOptions extends Where {
  until: string;
  timeout: string;
  interval: string;
}

type Target = { path: { envId: string; key: string } };
type Headers = { headers?: { 'x-audit-reason': string } };
type PutBody = { percent: number; planKey?: string; newValue?: unknown; newVariant?: string; seed?: string; bucketField?: string };

/** The rollout operations of one kind (flags and configs have the same endpoints). */
function rolloutApi(client: GradualClient, kind: Kind) {
  if (kind === 'flag') {
    return {
      get: (t: Target) => client.getFlagRollout(t),
      guard: (t: Target) => client.getFlagRolloutGuard(t),
      put: (t: Target & Headers, body: PutBody) => client.putFlagRollout({ ...t, body }),
      pause: (t: Target & Headers) => client.pauseFlagRollout(t),
      resume: (t: Target & Headers) => client.resumeFlagRollout(t),
      cancel: (t: Target & Headers) => client.cancelFlagRollout(t),
      advance: (t: Target & Headers) => client.advanceFlagRollout(t),
      rollback: (t: Target & Headers) => client.rollbackFlagRollout(t),
    };
  }
  return {
    get: (t: Target) => client.getConfigRollout(t),
    guard: (t: Target) => client.getConfigRolloutGuard(t),
    put: (t: Target & Headers, body: PutBody) => client.putConfigRollout({ ...t, body }),
    pause: (t: Target & Headers) => client.pauseConfigRollout(t),
    resume: (t: Target & Headers) => client.resumeConfigRollout(t),
    cancel: (t: Target & Headers) => client.cancelConfigRollout(t),
    advance: (t: Target & Headers) => client.advanceConfigRollout(t),
    rollback: (t: Target & Headers) => client.rollbackConfigRollout(t),
  };
}

async function locate(cmd: Command, key: string | undefined, options: Where) {
  const subject = subjectOf(key, options.config);
  const ctx = await connect(cmd);
  const project = await findProject(ctx, options.project);
  const env = await findEnvironment(ctx, project, options.env);
  return { ctx, project, env, subject, target: { path: { envId: env.id, key: subject.key } }, api: rolloutApi(ctx.client, subject.kind) };
}

const reasonHeaders = (reason: string | undefined): Headers => (reason ? { headers: { 'x-audit-reason': reason } } : {});

function describeStatus(r: Rollout): string {
  const paused = r.status === 'paused' ? ` (${r.pausedReason ?? 'paused'}${r.rolledBackFromPercent !== null ? `, rolled back from ${r.rolledBackFromPercent}%` : ''})` : '';
  return `${r.status}${paused} at ${r.percent}%`;
}

function rolloutTable(r: Rollout): string {
  const steps = r.planRampStepsSnapshot;
  const stop = lastStopOf(r);
  return table(
    ['field', 'value'],
    [
      [r.primitiveKind, r.primitiveKey],
      ['status', describeStatus(r)],
      ['new value', show(r.newValue)],
      ['plan', r.planKey ? `${r.planKey} (${r.cadence ?? 'manual'})` : null],
      ['step', steps && r.rampStepIdx !== null ? `${r.rampStepIdx + 1} of ${steps.length}: ${steps.map((s) => `${s.percent}%`).join(' → ')}` : null],
      ['next step at', r.nextStepAt],
      ['target IDs', r.targetIdsCount],
      ['last automatic stop', stop ? `${stop.at} by ${stop.by}` : null],
      ['updated', r.updatedAt],
    ],
  );
}

const count = (n: number) => n.toLocaleString('en-US');
const evidence = (e: number) => (e >= 100 ? count(Math.round(e)) : Number(e.toPrecision(3)).toString());

/** What last stopped the rollout automatically, and when: the alert webhook or the guard, whichever was later. */
function lastStopOf(r: Pick<Rollout, 'lastAutoRollback' | 'lastGuardStop'>): { by: string; at: string } | null {
  const alert = r.lastAutoRollback;
  const guard = r.lastGuardStop;
  if (guard && (!alert || guard.at >= alert.firedAt)) return { by: `the guard (${guard.metricKey ?? guard.cause})`, at: guard.at };
  return alert ? { by: alert.secretName, at: alert.firedAt } : null;
}

/** `gradual guard status`: the gate's checklist, one row per metric, and the last stop. */
export function guardTable(g: RolloutGuard, key: string): string {
  const rows: Array<[string, string | null]> = [];
  const stop = g.lastStop;
  if (g.step && g.checks) {
    const { step, checks } = g;
    rows.push(['step', `${step.index + 1} at ${step.percent}% since ${step.since}`]);
    const hold = `hold ${formatSeconds(step.holdForSeconds)} ${checks.holdPassed ? '✓' : `(${formatSeconds(step.heldSeconds)} so far)`}`;
    const units = `${count(Math.min(checks.units.treatment, checks.units.control))}/${count(checks.units.min)} per arm ${Math.min(checks.units.treatment, checks.units.control) >= checks.units.min ? '✓' : ''}`.trim();
    rows.push(['gate', `${hold} · ${units} · SRM ${checks.srmOk ? 'ok' : `mismatch (p ${checks.srmP.toPrecision(2)})`}`]);
    rows.push(['units', `treatment ${count(checks.units.treatment)}, control ${count(checks.units.control)}`]);
    rows.push(['decision', g.decision === 'hold' ? `hold (waiting for ${g.waitingFor.join(' and ')})` : g.decision]);
    for (const m of checks.metrics) {
      const estimate = m.estimate ? (m.kind === 'count' ? ` · rate ratio ${m.estimate.value.toFixed(3)}` : ` · difference ${m.estimate.value.toPrecision(3)} [${m.estimate.lower?.toPrecision(3)}, ${m.estimate.upper?.toPrecision(3)}]`) : '';
      rows.push([`metric ${m.key}`, `${m.kind}, ${m.worse} is worse, margin ${m.margin}, ${m.action} · evidence ${evidence(m.eValue)} of ${evidence(m.threshold)}${estimate}`]);
    }
  } else {
    rows.push(['step', 'not holding at a guarded step']);
  }
  if (stop) {
    const why = stop.cause === 'metric' ? `${stop.metricKey} regressed (evidence ${evidence(stop.eValue ?? 0)} of ${evidence(stop.threshold ?? 0)})` : stop.cause === 'srm' ? `sample-ratio mismatch (p ${stop.srmP?.toPrecision(2)})` : 'not enough units at the longest hold';
    rows.push(['last stop', `${stop.action} at ${stop.stepPercent}% on ${stop.at}: ${why}; units ${count(stop.units.treatment)}/${count(stop.units.control)}`]);
  }
  return table(['guard of', key], rows);
}

function formatSeconds(s: number): string {
  if (s >= 3600 && s % 3600 === 0) return `${s / 3600}h`;
  if (s >= 3600) return `${Math.floor(s / 3600)}h ${Math.round((s % 3600) / 60)}m`;
  if (s >= 60) return `${Math.round(s / 60)}m`;
  return `${s}s`;
}

function printApplied(ctx: Context, outcome: MutationResult<Rollout>, verb: string): void {
  if (outcome.kind === 'proposed') return reportProposals(ctx.out, [outcome.proposal]);
  const r = outcome.data;
  ctx.out.result(r, () => `${verb} ${r.primitiveKind} ${r.primitiveKey}: ${describeStatus(r)}`);
}

/** What `rollout wait` decides about one observed rollout: done with an exit code, or keep polling. */
export function waitVerdict(r: Rollout, until: number | 'completed'): { exitCode: number; message: string } | undefined {
  if (r.status === 'cancelled') return { exitCode: EXIT.cancelled, message: `cancelled at ${r.percent}%` };
  if (r.status === 'paused' && r.pausedReason === 'auto_rollback') {
    return { exitCode: EXIT.rolledBack, message: `rolled back by ${lastStopOf(r)?.by ?? 'a person'} from ${r.rolledBackFromPercent ?? '?'}% to ${r.percent}%` };
  }
  if (r.status === 'completed') return { exitCode: EXIT.ok, message: 'completed at 100%' };
  if (until !== 'completed' && r.status === 'active' && r.percent >= until) return { exitCode: EXIT.ok, message: `reached ${r.percent}%` };
  return undefined;
}

/** No response, rate limited, or the server (or a proxy) unavailable for now. */
const RETRYABLE = new Set([0, 429, 502, 503, 504]);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function registerRolloutCommands(program: Command): void {
  const rollout = program.command('rollout').description('start, watch and steer the rollout of a flag (or --config) in an environment');
  const where = (cmd: Command) =>
    cmd
      .argument('[flag]', 'flag key (or --config <key>)')
      .option('-c, --config <key>', 'a config instead of a flag')
      .option('-p, --project <key>', 'project key (or GRADUAL_PROJECT)')
      .option('-e, --env <key>', 'environment key (or GRADUAL_ENV)');

  where(rollout.command('start'))
    .description('start a rollout, or edit the live one (percent, value, plan)')
    .option('--percent <n>', 'share of contexts that get the new value, 0–100 (default: the first step of --plan)')
    .option('--value <json>', 'the new value, JSON (omitted on a primitive with rules: the rollout gates those rules)')
    .option('--variant <name>', 'instead of --value: one of the flag\'s declared variants')
    .option('--plan <planKey>', 'attach a rollout plan')
    .option('--seed <seed>', 'bucketing seed')
    .option('--bucket-field <attribute>', 'context attribute to bucket on')
    .option('--reason <text>', 'audit reason (X-Audit-Reason)')
    .action(async (key: string | undefined, options: StartOptions, cmd: Command) => {
      if (options.value !== undefined && options.variant !== undefined) throw new CliError('invalid_option', 'give --value or --variant, not both');
      const newValue = options.value === undefined ? undefined : parseJsonOption(options.value, '--value');
      let percent = options.percent === undefined ? undefined : parsePercent(options.percent, '--percent');
      const { ctx, project, target, api } = await locate(cmd, key, options);
      if (percent === undefined) {
        if (!options.plan) throw new CliError('invalid_option', 'start needs --percent <n> or --plan <planKey>');
        const plan = await ctx.client.getRolloutPlan({ path: { id: project.id, planKey: options.plan } });
        const first = plan.rampSteps[0];
        if (!first) throw new CliError('invalid_option', `plan "${options.plan}" has no steps`);
        percent = first.percent;
      }
      const body: PutBody = {
        percent,
        ...(options.plan ? { planKey: options.plan } : {}),
        ...(newValue !== undefined ? { newValue } : {}),
        ...(options.variant !== undefined ? { newVariant: options.variant } : {}),
        ...(options.seed ? { seed: options.seed } : {}),
        ...(options.bucketField ? { bucketField: options.bucketField } : {}),
      };
      printApplied(ctx, await api.put({ ...target, ...reasonHeaders(options.reason) }, body), 'rollout of');
    });

  where(rollout.command('status'))
    .description('the live rollout (else the latest one): status, percent, plan step, rollback')
    .action(async (key: string | undefined, options: Where, cmd: Command) => {
      const { ctx, target, api } = await locate(cmd, key, options);
      const r = await api.get(target);
      ctx.out.result(r, () => rolloutTable(r));
    });

  for (const [verb, description] of [
    ['advance', 'enter the next step of the plan now (ignores holds, blackout days and approval gates)'],
    ['pause', 'hold the rollout at its current percent'],
    ['resume', 'resume a paused rollout (after a rollback: back to the percent it was rolled back from)'],
    ['cancel', 'stop the rollout; evaluation ignores it'],
  ] as const) {
    const command = where(rollout.command(verb)).description(description);
    command.option('--reason <text>', 'audit reason (X-Audit-Reason)');
    command.action(async (key: string | undefined, options: ReasonOptions, cmd: Command) => {
      const { ctx, target, api } = await locate(cmd, key, options);
      printApplied(ctx, await api[verb]({ ...target, ...reasonHeaders(options.reason) }), { advance: 'advanced', pause: 'paused', resume: 'resumed', cancel: 'cancelled' }[verb]);
    });
  }

  const guard = program.command('guard').description("a guarded rollout's checks: hold, units per arm, sample ratio, each metric's evidence");
  where(guard.command('status'))
    .description("the gate's checklist of the rollout's guarded step and each metric's evidence, and what last stopped it")
    .action(async (key: string | undefined, options: Where, cmd: Command) => {
      const { ctx, target, api, subject } = await locate(cmd, key, options);
      const g = await api.guard(target);
      ctx.out.result(g, () => guardTable(g, `${subject.kind} ${subject.key}`));
    });

  where(rollout.command('rollback'))
    .description('roll back now (kill switch): pause at 0% as an alert does, remembering the percent; resume returns to it. Never waits for an approver')
    .requiredOption('--reason <text>', 'why (the audit reason, required)')
    .action(async (key: string | undefined, options: ReasonOptions, cmd: Command) => {
      const { ctx, target, api } = await locate(cmd, key, options);
      const r = await api.rollback({ ...target, ...reasonHeaders(options.reason) });
      ctx.out.result(r, () => `rolled back ${r.primitiveKind} ${r.primitiveKey}: ${describeStatus(r)}`);
    });

  where(rollout.command('wait'))
    .description('poll the rollout until it reaches a percent or completes; exit 0 reached, 2 timed out, 3 rolled back, 4 cancelled, 1 error')
    .requiredOption('--until <percent|completed>', 'a percent (reached when active at or above it) or "completed"')
    .option('--timeout <duration>', 'give up after this long (e.g. 30m, 1h)', '30m')
    .option('--interval <duration>', 'time between polls', '10s')
    .action(async (key: string | undefined, options: WaitOptions, cmd: Command) => {
      const until = options.until === 'completed' ? 'completed' : parsePercent(options.until, '--until');
      const timeoutMs = parseDuration(options.timeout, '--timeout');
      const intervalMs = parseDuration(options.interval, '--interval');
      if (intervalMs <= 0) throw new CliError('invalid_option', '--interval must be above 0');
      const { ctx, target, api } = await locate(cmd, key, options);
      const deadline = Date.now() + timeoutMs;
      let last: Rollout | undefined;
      for (;;) {
        let r: Rollout;
        try {
          r = await api.get(target);
        } catch (err) {
          // A busy or restarting server is waited out like a rollout that is not there yet.
          if (!(err instanceof GradualApiError) || !RETRYABLE.has(err.status) || Date.now() >= deadline) throw err;
          ctx.out.note(`${err.code} (${err.status || 'no response'}), retrying`);
          await sleep(Math.min(Math.max(intervalMs, (err.retryAfterSeconds ?? 0) * 1000), Math.max(deadline - Date.now(), 0)));
          continue;
        }
        if (!last || last.status !== r.status || last.percent !== r.percent || last.pausedReason !== r.pausedReason) ctx.out.note(`${r.primitiveKey}: ${describeStatus(r)}`);
        last = r;
        const verdict = waitVerdict(r, until);
        if (verdict) {
          ctx.out.result({ outcome: verdict.exitCode === EXIT.ok ? 'reached' : r.status === 'cancelled' ? 'cancelled' : 'rolled_back', exitCode: verdict.exitCode, rollout: r }, () => `${r.primitiveKind} ${r.primitiveKey}: ${verdict.message}`);
          process.exitCode = verdict.exitCode;
          return;
        }
        const left = deadline - Date.now();
        if (left <= 0) {
          ctx.out.result({ outcome: 'timed_out', exitCode: EXIT.timedOut, rollout: r }, () => `${r.primitiveKind} ${r.primitiveKey}: timed out after ${options.timeout}, ${describeStatus(r)}`);
          process.exitCode = EXIT.timedOut;
          return;
        }
        await sleep(Math.min(intervalMs, left));
      }
    });
}
