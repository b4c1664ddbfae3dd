import type { EntityManager } from '@mikro-orm/postgresql';
import { CONVERGENCE_LAGGARDS_MAX, CONVERGENCE_WINDOW_MINUTES_DEFAULT, type Convergence, type RulesetAck } from '@gradual/contract';
import { authorize, type Caller } from '../access/authorize.js';
import { iso } from '../common/lookup.js';
import type { EnvDirectory } from '../environments/env-directory.js';
import type { AckLedger } from './ack-ledger.js';
import { readLedger } from './convergence.store.js';

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
