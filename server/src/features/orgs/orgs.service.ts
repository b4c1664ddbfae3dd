import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Org as OrgDto } from '@gradual/contract';
import {
  AuditEventEntity,
  EnvironmentEntity,
  MembershipEntity,
  OrgEntity,
  ProposalEntity,
  RollbackFireEntity,
  RolloutMigrationWarningEntity,
  type Org,
} from '../../db/entities/index.js';
import { DomainError } from '../../domain/errors.js';
import { authorize, requireUser, userActor, type Caller } from '../access/authorize.js';
import { recordAudit } from '../audit/audit.store.js';
import { findOrgBySlug, iso, mapUniqueViolation } from '../common/lookup.js';
import { transaction } from '../../db/transaction.js';

export const toOrgDto = (o: Org): OrgDto => ({ id: o.id, slug: o.slug, name: o.name, createdAt: iso(o.createdAt) });

/** A URL-safe slug from a display name ("Acme, Inc." → "acme-inc"). */
export function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/g, '');
  return slug || 'org';
}

const slugTaken = (slug: string) =>
  new DomainError('slug_unavailable', `The slug "${slug}" is taken.`, { fields: { slug: 'already taken' } });

export async function createOrg(em: EntityManager, caller: Caller, input: { name: string; slug?: string | undefined }): Promise<OrgDto> {
  const user = requireUser(caller);
  const slug = input.slug ?? slugify(input.name);
  const now = caller.now;
  const org = await mapUniqueViolation(
    () =>
      transaction(em, async (tx) => {
        if (await tx.findOne(OrgEntity, { slug })) throw slugTaken(slug);
        const org = tx.create(OrgEntity, { slug, name: input.name, createdAt: now, updatedAt: now });
        tx.create(MembershipEntity, { orgId: org.id, userId: user.userId, role: 'owner', createdAt: now });
        const actor = userActor(caller, 'owner');
        recordAudit(tx, caller, actor, {
          orgId: org.id,
          action: 'org.created',
          resourceType: 'org',
          resourceKey: slug,
          resourceId: org.id,
          newValue: { slug, name: input.name },
        });
        recordAudit(tx, caller, actor, {
          orgId: org.id,
          action: 'member.added',
          resourceType: 'member',
          resourceKey: user.email,
          resourceId: user.userId,
          newValue: { userId: user.userId, email: user.email, role: 'owner' },
        });
        return org;
      }),
    () => slugTaken(slug),
  );
  return toOrgDto(org);
}

export async function getOrg(em: EntityManager, caller: Caller, slug: string): Promise<OrgDto> {
  const org = await findOrgBySlug(em, slug);
  await authorize(em, caller, org.id, { action: 'read' });
  return toOrgDto(org);
}

/**
 * DELETE /orgs/{slug}: owner only, with the slug typed again as `confirm`.
 * One transaction, the org row locked first: the rows that reference the org
 * without a foreign key (audit log, rollback fire history, migration
 * warnings, proposals) are deleted explicitly, then the org, whose foreign
 * keys cascade to memberships, invitations, API keys, projects and through
 * them environments, flags, configs, states, rollouts, target IDs, plans and
 * rollback secrets. The org's audit log goes with it (nothing could read it
 * any more, and it names people); the server log records the deletion.
 * Users stay: they may belong to other orgs.
 */
export async function deleteOrg(em: EntityManager, caller: Caller, slug: string, confirm: string | undefined, log?: { info(obj: object, msg: string): void }): Promise<void> {
  const org = await findOrgBySlug(em, slug);
  const actor = await transaction(em, async (tx) => {
    const locked = await tx.findOne(OrgEntity, { id: org.id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!locked) throw new DomainError('not_found', 'Organization not found.');
    const actor = await authorize(tx, caller, org.id, { action: 'write', role: 'owner', sessionOnly: true });
    if (confirm !== org.slug) {
      throw new DomainError('invalid_confirmation', `Type the organization's slug ("${org.slug}") as confirm to delete it.`, {
        fields: { confirm: confirm === undefined || confirm === '' ? 'required: the organization slug' : 'does not match the organization slug' },
      });
    }
    const envIds = (await tx.find(EnvironmentEntity, { orgId: org.id }, { fields: ['id'] })).map((e) => e.id);
    await tx.nativeDelete(RollbackFireEntity, envIds.length ? { $or: [{ orgId: org.id }, { envId: { $in: envIds } }] } : { orgId: org.id });
    await tx.nativeDelete(RolloutMigrationWarningEntity, { orgId: org.id });
    await tx.nativeDelete(ProposalEntity, { orgId: org.id });
    await tx.nativeDelete(AuditEventEntity, { orgId: org.id });
    await tx.nativeDelete(OrgEntity, { id: org.id });
    return actor;
  });
  log?.info({ orgId: org.id, slug: org.slug, actorId: actor.actorId, actorEmail: actor.actorEmail }, 'organization deleted');
}
