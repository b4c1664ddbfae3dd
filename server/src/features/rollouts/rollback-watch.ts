import type { EntityManager } from '@mikro-orm/postgresql';
import { RolloutEntity, type Rollout } from '../../db/entities/index.js';
import { systemActor } from '../access/authorize.js';
import { BoundRows, rawQuery } from '../common/sql.js';
import { findEnvironment } from '../common/lookup.js';
import { rollbackConvergence } from '../convergence/convergence.service.js';
import type { EnvChangeSet } from '../environments/env-changes.js';
import { toRolloutDto } from './rollout.mapper.js';

/**
 * The scheduler's watch of rollbacks (docs/convergence.md): a rollout rolled back (by an alert,
 * its guard or a person) is watched until ROLLBACK_CONVERGED_PERCENT of the SDK instances seen
 * recently serve the rollback's version or a later one. Then the rollout records when they did
 * (`lastRollbackConvergence`) and an audit row `rollout.rollback_converged` (actor `system`;
 * its webhook event `rollout.rollback_converged`) carries the time. It moves no environment
 * version: nothing an SDK evaluates changed. A watch that ends unconverged (an hour, or no instance
 * seen) records what it saw without an audit row; one whose rollout was resumed or ended first
 * records nothing.
 *
 * Rows are claimed FOR UPDATE SKIP LOCKED in the caller's change set, so several instances watch
 * without recording a rollback twice. Returns the times (ms) of the rollbacks recorded as converged.
 */
export async function watchRollbacks(changes: EnvChangeSet, now: Date, limit: number): Promise<number[]> {
  const converged: number[] = [];
  for (const row of await claimWatchedRollbacks(changes.tx, limit)) {
    if (row.status !== 'paused' || row.pausedReason !== 'auto_rollback' || !row.rolledBackAt) {
      row.rollbackWatchUntil = null;
      changes.rollout(row, false);
      continue;
    }
    const version = row.stepVersion ?? (await findEnvironment(changes.tx, row.envId)).version;
    const seen = await rollbackConvergence(changes.tx, row.envId, version, row.rolledBackAt, now);
    const over = !row.rollbackWatchUntil || row.rollbackWatchUntil.getTime() <= now.getTime() || seen.instances === 0;
    if (seen.convergedAt === null && !over) continue;
    const before = toRolloutDto(row);
    row.rollbackConvergence = seen;
    row.rollbackWatchUntil = null;
    row.updatedAt = now;
    changes.rollout(row, false);
    if (seen.convergedAt === null || seen.convergedMs === null) continue;
    converged.push(seen.convergedMs);
    const share = `${seen.serving.toLocaleString('en-US')} of ${seen.instances.toLocaleString('en-US')} SDK instances`;
    changes.audit({ reason: `convergence: ${share} served v${version} or later ${seen.convergedMs} ms after the rollback`, now }, systemActor, {
      orgId: row.orgId,
      projectId: row.projectId,
      envId: row.envId,
      action: 'rollout.rollback_converged',
      resourceType: 'rollout',
      resourceKey: row.primitiveKey,
      resourceId: row.id,
      previousValue: before,
      newValue: toRolloutDto(row),
    });
  }
  return converged;
}

/** Rollouts whose rollback is watched, oldest watch end first; row-locked, skipping rows another instance holds. */
async function claimWatchedRollbacks(tx: EntityManager, limit: number): Promise<Rollout[]> {
  const rows = BoundRows.of<Rollout>(tx, RolloutEntity.meta.className);
  const { rows: found } = await rawQuery(
    tx,
    `select ${rows.selectList} from rollouts x where x.rollback_watch_until is not null
      order by x.rollback_watch_until asc limit ? for update skip locked`,
    [limit],
  );
  return found.map((row) => rows.fromRow(row));
}
