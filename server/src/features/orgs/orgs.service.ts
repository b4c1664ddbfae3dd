import type { EntityManager } from '@mikro-orm/postgresql';
import type { Org as OrgDto } from '@gradual/contract';
import { MembershipEntity, OrgEntity, type Org } from '../../db/entities/index.js';
import { DomainError } from '../../domain/errors.js';
import { authorize, requireUser, userActor, type Caller } from '../access/authorize.js';
import { recordAudit } from '../audit/audit.store.js';
import { findOrgBySlug, iso, mapUniqueViolation } from '../shared/lookup.js';

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
      em.transactional(async (tx) => {
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
