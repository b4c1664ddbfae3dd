import type { EntityManager } from '@mikro-orm/postgresql';
import {
  ApiKeyEntity,
  EnvironmentEntity,
  ProposalEntity,
  RollbackFireEntity,
  RolloutMigrationWarningEntity,
  type ApiKey,
  type Environment,
} from '../../db/entities/index.js';
import type { ApiKey as ApiKeyDto } from '@gradual/contract';
import { DomainError } from '../../domain/errors.js';
import type { Actor, Caller } from '../access/authorize.js';
import { recordAudit } from '../audit/audit.store.js';
import { iso } from '../common/lookup.js';

/** What a deletion of environments did beyond its rows: the route drops them from this instance's caches. */
export interface EnvironmentsDeleted {
  envIds: string[];
  /** API keys revoked because every environment they were bound to is gone. */
  revokedKeyIds: string[];
  /** API keys that lost one or more environments from their list and keep the others. */
  narrowedKeyIds: string[];
}

/** `400 invalid_confirmation` unless `confirm` is `key` (deleting is irreversible, so the key is typed again). */
export function checkConfirmation(what: 'environment' | 'project', key: string, confirm: string | undefined): void {
  if (confirm === key) return;
  throw new DomainError('invalid_confirmation', `Type the ${what}'s key ("${key}") as confirm to delete it.`, {
    fields: { confirm: confirm === undefined || confirm === '' ? `required: the ${what} key` : `does not match the ${what} key` },
  });
}

/** An API key as its audit rows show it (the contract's ApiKey without the token). */
const keySnapshot = (k: ApiKey): Pick<ApiKeyDto, 'id' | 'name' | 'kind' | 'environments' | 'revokedAt'> => ({
  id: k.id,
  name: k.name,
  kind: k.kind,
  environments: k.environments ? [...k.environments] : null,
  revokedAt: k.revokedAt ? iso(k.revokedAt) : null,
});

/**
 * Deletes environments of one organization and everything in them, in the caller's transaction
 * (`tx`, with the environments locked by the caller). Rows that name an environment without a
 * foreign key go explicitly: proposals, rollback fire history, rollout migration warnings. API
 * keys lose the environments from their lists; a key left with none is revoked (an
 * `api_token.revoked` audit row each), since it was bound to them alone. Deleting the
 * environment rows then cascades through the foreign keys to the flags' and configs' states,
 * rollouts (whose delete trigger takes their target-ID lists), rollback secrets and usage rows.
 * The audit log keeps every row that names them.
 */
export async function deleteEnvironmentRows(tx: EntityManager, caller: Caller, actor: Actor, orgId: string, envs: Environment[]): Promise<EnvironmentsDeleted> {
  const envIds = envs.map((e) => e.id);
  if (!envIds.length) return { envIds, revokedKeyIds: [], narrowedKeyIds: [] };
  const gone = new Set(envIds);
  await tx.nativeDelete(ProposalEntity, { orgId, envId: { $in: envIds } });
  await tx.nativeDelete(RollbackFireEntity, { envId: { $in: envIds } });
  await tx.nativeDelete(RolloutMigrationWarningEntity, { orgId, envId: { $in: envIds } });

  const revokedKeyIds: string[] = [];
  const narrowedKeyIds: string[] = [];
  const keys = await tx.find(ApiKeyEntity, { orgId, environments: { $ne: null } }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  for (const key of keys) {
    const held = key.environments ?? [];
    if (!held.some((id) => gone.has(id))) continue;
    const before = keySnapshot(key);
    key.environments = held.filter((id) => !gone.has(id));
    if (key.environments.length || key.revokedAt) {
      if (!key.revokedAt) narrowedKeyIds.push(key.id);
      continue;
    }
    key.revokedAt = caller.now;
    revokedKeyIds.push(key.id);
    recordAudit(tx, caller, actor, {
      orgId,
      action: 'api_token.revoked',
      resourceType: 'api_token',
      resourceKey: key.name,
      resourceId: key.id,
      previousValue: before,
      newValue: keySnapshot(key),
    });
  }
  await tx.flush();
  await tx.nativeDelete(EnvironmentEntity, { id: { $in: envIds } });
  return { envIds, revokedKeyIds, narrowedKeyIds };
}
