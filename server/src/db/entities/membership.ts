import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { id, timestamp } from './common.js';
import { OrgEntity } from './org.js';
import { UserEntity } from './user.js';

export const MEMBERSHIP_ROLES = ['owner', 'admin', 'member'] as const;
export type MembershipRole = (typeof MEMBERSHIP_ROLES)[number];

export const MembershipEntity = defineEntity({
  name: 'Membership',
  tableName: 'memberships',
  properties: (p) => ({
    id: id(),
    // Relations are mapped to their primary key (`orgId: string`): services work with ids,
    // and we still get a real foreign key. Deleting an org removes its memberships.
    orgId: p.manyToOne(OrgEntity).mapToPk().fieldName('org_id').deleteRule('cascade'),
    userId: p.manyToOne(UserEntity).mapToPk().fieldName('user_id').deleteRule('cascade').index(),
    role: p.enum([...MEMBERSHIP_ROLES]),
    createdAt: timestamp(),
  }),
  uniques: [{ properties: ['orgId', 'userId'] }],
});
export type Membership = InferEntity<typeof MembershipEntity>;
