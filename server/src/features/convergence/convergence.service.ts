import type { EntityManager } from '@mikro-orm/postgresql';
import { CONVERGENCE_LAGGARDS_MAX, CONVERGENCE_WINDOW_MINUTES_DEFAULT, ROLLBACK_CONVERGED_PERCENT, type Convergence, type RollbackConvergence, type RulesetAck } from '@gradual/contract';
import { authorize, type Caller } from '../access/authorize.js';
import { findEnvironment, iso } from '../common/lookup.js';
import type { EnvDirectory } from '../environments/env-directory.js';
import type { AckLedger } from './ack-ledger.js';
import { fleetByEnvironment, fleetShare, readLedger, servedBy } from './convergence.store.js';

/**
 * POST /envs/{envId}/ruleset-acks: an SDK instance serves `ack.version`. Held in memory by the
 * ledger (written every second); client keys are refused, as everywhere but evaluation. Answers
 * the environment's id.
 */
export async function ackRuleset(em: EntityManager, caller: Caller, envs: EnvDirectory, ledger: AckLedger, envId: string, ack: RulesetAck): Promise<string> {
  const env = await envs.get(em, envId);
  await authorize(em, caller, env.orgId, { action: 'read', envId: env.id });
  ledger.ack(env.id, ack);
  return env.id;
}

/** GET /envs/{envId}/convergence: the ledger as of now, this instance's held acknowledgements written first. */
export async function getConvergence(
  em: EntityManager,
  caller: Caller,
  envs: EnvDirectory,
  ledger: AckLedger,
  envId: string,
  query: { windowMinutes?: number | undefined },
): Promise<Convergence> {
  const env = await envs.get(em, envId);
  await authorize(em, caller, env.orgId, { action: 'read', envId: env.id });
  await ledger.flush();
  const windowSeconds = (query.windowMinutes ?? CONVERGENCE_WINDOW_MINUTES_DEFAULT) * 60;
  const read = await readLedger(em, env.id, env.version, new Date(caller.now.getTime() - windowSeconds * 1000), CONVERGENCE_LAGGARDS_MAX);
  return {
    envId: env.id,
    version: env.version,
    at: iso(caller.now),
    windowSeconds,
    instances: read.instances,
    current: read.current,
    currentShare: read.instances > 0 ? read.current / read.instances : null,
    versions: read.versions.map((v) => ({ ...v, committedAt: v.committedAt === null ? null : iso(v.committedAt) })),
    laggards: read.laggards.map((l) => ({
      instanceId: l.instanceId,
      sdk: { name: l.sdkName, version: l.sdkVersion },
      service: l.service,
      mode: l.mode,
      version: l.version,
      lastSeen: iso(l.lastSeen),
    })),
    bySdk: read.bySdk,
  };
}

/** How much of an environment's fleet serves a version (a step that holds from convergence, a rollback). */
export interface FleetConvergence {
  version: number;
  /** Instances seen in the ledger's default window. */
  instances: number;
  /** Of those, the ones on `version` or later. */
  serving: number;
  /** serving / instances × 100; 100 when no instance was seen (nothing to wait for). */
  servingPercent: number;
}

/**
 * The fleet's convergence on `version` as of `now`, over the instances seen in the ledger's
 * default window. No instance seen counts as converged: a fleet without Gradual SDKs has nothing
 * to wait for. A rollout whose version is unknown (null: last written before versions were
 * recorded) waits for the environment's current version.
 */
export async function fleetConvergence(em: EntityManager, envId: string, version: number | null, now: Date): Promise<FleetConvergence> {
  const target = version ?? (await findEnvironment(em, envId)).version;
  const since = new Date(now.getTime() - CONVERGENCE_WINDOW_MINUTES_DEFAULT * 60_000);
  const { instances, serving } = await fleetShare(em, envId, target, since);
  return { version: target, instances, serving, servingPercent: instances === 0 ? 100 : (serving / instances) * 100 };
}

/**
 * A rollback's convergence as of `now` (docs/convergence.md): of the instances seen in the
 * ledger's default window, the ones serving `version` (the rollback's) or a later one, and when
 * ROLLBACK_CONVERGED_PERCENT of them first did; `convergedAt` null while fewer do.
 */
export async function rollbackConvergence(em: EntityManager, envId: string, version: number, rolledBackAt: Date, now: Date): Promise<RollbackConvergence> {
  const since = new Date(now.getTime() - CONVERGENCE_WINDOW_MINUTES_DEFAULT * 60_000);
  const seen = await servedBy(em, envId, version, since, ROLLBACK_CONVERGED_PERCENT);
  const convergedAt = seen.reachedAt && new Date(Math.max(seen.reachedAt.getTime(), rolledBackAt.getTime()));
  return {
    version,
    rolledBackAt: iso(rolledBackAt),
    convergedAt: convergedAt && iso(convergedAt),
    convergedMs: convergedAt && convergedAt.getTime() - rolledBackAt.getTime(),
    instances: seen.instances,
    serving: seen.serving,
  };
}

/** Every environment's fleet as of `now` (the ledger's default window), for the metrics' gauge. */
export function fleetsNow(em: EntityManager, now: Date): Promise<Array<{ envId: string; instances: number; current: number }>> {
  return fleetByEnvironment(em, new Date(now.getTime() - CONVERGENCE_WINDOW_MINUTES_DEFAULT * 60_000));
}
