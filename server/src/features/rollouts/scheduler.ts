import type { Logger } from 'pino';
import type { ServiceMetrics } from '../../metrics/metrics.js';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/database.js';
import { convergenceHold, guardedStep } from '../../domain/rollouts/ramp-position.js';
import type { HoldFromConvergence } from '../../domain/rollouts/types.js';
import { applyCommand } from '../../domain/rollouts/state-machine.js';
import type { Transition } from '../../domain/rollouts/types.js';
import { checkGuardedStep, guardStopOf, guardStopReason } from '../guards/guard-checks.js';
import { samplePrometheus, type PrometheusReader } from '../guards/prometheus-source.js';
import { stopAutomatically } from './automatic-stop.js';
import { systemActor } from '../access/authorize.js';
import { changeEnvironments, type EnvChangeBus } from '../environments/env-changes.js';
import { commitTransition } from './commit-transition.js';
import { watchRollbacks } from './rollback-watch.js';
import { claimDueRollouts } from './rollouts.store.js';
import type { AckLedger } from '../convergence/ack-ledger.js';
import { fleetConvergence, type FleetConvergence } from '../convergence/convergence.service.js';
import { toRolloutDto, toState } from './rollout.mapper.js';

export interface SchedulerDeps {
  db: Database;
  clock: Clock;
  bus: EnvChangeBus;
  logger: Logger;
  metrics?: ServiceMetrics;
  /** Guard metrics read from Prometheus are read before the checks that need them. */
  prometheus?: PrometheusReader | null;
  /** This instance's held acknowledgements, written before a step awaiting convergence reads the ledger. */
  acks?: Pick<AckLedger, 'flush'>;
}

export interface TickResult {
  /** Rollouts the tick looked at (due ones). */
  due: number;
  /** Of those, how many produced an audited transition (advanced, gated or completed). */
  transitioned: number;
  /** Rollbacks recorded as served by the fleet. */
  rollbacksConverged: number;
}

/** Rollouts handled per transaction: bounds lock time and memory, keeps each commit small. */
export const SCHEDULER_BATCH = 250;

/**
 * One scheduler pass at the clock's current time: every active rollout whose
 * nextStepAt has passed, or whose guarded step's check is due, gets one `tick` through the state
 * machine; a guarded step's check decides with it, and a check that stops the rollout stops it
 * through stopAutomatically (actor `system`, reason `guard:<metric>`). Rows are
 * claimed with FOR UPDATE SKIP LOCKED, so several instances can tick at once
 * and each due step is applied by exactly one of them; a batch commits its
 * steps, env version bumps and audit rows together (actor `system`).
 */
export async function runSchedulerTick(deps: SchedulerDeps, batchSize = SCHEDULER_BATCH): Promise<TickResult> {
  const now = deps.clock.now();
  const result: TickResult = { due: 0, transitioned: 0, rollbacksConverged: 0 };
  // The facts a due guard check reads from Prometheus, read before any row is locked.
  if (deps.prometheus) await samplePrometheus(deps.db.em(), deps.prometheus, now);
  await deps.acks?.flush();
  /** The fleet's convergence per environment and version, read once per tick. */
  const fleet = new Map<string, Promise<FleetConvergence>>();
  for (;;) {
    let claimed = 0;
    let changed = 0;
    // The bulk form of an environment change: the batch's rollout rows, version bumps (every
    // environment it touched, once) and audit rows go in with the change set's one statement.
    await changeEnvironments(deps.db.em(), deps.bus, now, async (changes) => {
      const due = await claimDueRollouts(changes.tx, now, batchSize);
      claimed = due.length;
      if (!claimed) return;
      const ctx = { changes, actor: systemActor, caller: { reason: null, now } };
      for (const row of due) {
        // The row carries its primitive's id, kind and key: no need to load the primitives.
        const primitive = { id: row.primitiveId, kind: row.primitiveKind, key: row.primitiveKey };
        const state = toState(row);
        const step = guardedStep(state);
        const hold = convergenceHold(state);
        let converged = false;
        if (state.awaitingConvergenceUntil && hold) {
          // A step that holds from convergence: the ledger decides when its hold starts (docs/convergence.md).
          const at = `${row.envId}:${row.stepVersion}`;
          if (!fleet.has(at)) fleet.set(at, fleetConvergence(changes.tx, row.envId, row.stepVersion ?? null, now));
          const seen = await fleet.get(at)!;
          converged = seen.servingPercent >= hold.instancesPercent;
          if (!converged && state.awaitingConvergenceUntil.getTime() <= now.getTime()) {
            const reason = convergenceTimeoutReason(seen, hold);
            const stopped = await stopAutomatically(changes, now, row, primitive, { by: 'convergence', reason });
            if (stopped.changed) {
              changed++;
              result.transitioned++;
            }
            continue;
          }
        }
        let transition: Transition;
        if (step) {
          // A guarded step: its check's verdict decides with the time (docs/guards.md).
          const verdict = await checkGuardedStep(changes.tx, row, step, now);
          if (verdict.decision === 'rollback' || verdict.decision === 'pause') {
            const stop = guardStopOf(verdict, step, now);
            transition = await stopAutomatically(changes, now, row, primitive, { by: 'guard', stop, reason: guardStopReason(stop) });
            if (transition.changed) {
              changed++;
              result.transitioned++;
            }
            continue;
          }
          transition = applyCommand(state, { type: 'tick', guard: verdict.decision, converged }, now);
        } else {
          transition = applyCommand(state, { type: 'tick', converged }, now);
        }
        if (!transition.changed) continue;
        changed++;
        if (transition.actions.length) result.transitioned++;
        await commitTransition(ctx, row, primitive, transition, toRolloutDto(row));
      }
    });
    result.due += claimed;
    // A short batch means nothing else is due; a batch that changed nothing would only repeat itself.
    if (claimed < batchSize || changed === 0) break;
  }
  // Rollbacks the fleet has come to serve since (rollback-watch.ts).
  const converged = await changeEnvironments(deps.db.em(), deps.bus, now, (changes) => watchRollbacks(changes, now, batchSize));
  for (const ms of converged) deps.metrics?.rollbackConvergence.observe(ms / 1000);
  result.rollbacksConverged = converged.length;
  return result;
}

/** The audit reason of a step that timed out waiting for the fleet. */
function convergenceTimeoutReason(seen: FleetConvergence, hold: HoldFromConvergence): string {
  const share = `${seen.serving.toLocaleString('en-US')} of ${seen.instances.toLocaleString('en-US')} SDK instances (${seen.servingPercent.toFixed(1)}%)`;
  return `convergence: ${share} served v${seen.version} or later after ${hold.timeoutSeconds} s; the step waits for ${hold.instancesPercent}%`;
}

/** Runs ticks on an interval (never overlapping) until stopped. */
export class Scheduler {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(private readonly deps: SchedulerDeps) {}

  /** One tick now, or the tick already in progress. */
  tick(): Promise<unknown> {
    if (this.running) return this.running;
    const metrics = this.deps.metrics;
    const timer = metrics?.schedulerTickDuration.startTimer();
    this.running = runSchedulerTick(this.deps)
      .then((result) => {
        metrics?.schedulerTicks.inc({ result: 'ok' });
        metrics?.schedulerTransitions.inc(result.transitioned);
      })
      .catch((err) => {
        metrics?.schedulerTicks.inc({ result: 'failed' });
        this.deps.logger.error({ err }, 'scheduler tick failed');
      })
      .finally(() => timer?.())
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.tick(), intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
