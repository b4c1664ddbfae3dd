import { defineEntity, type InferEntity } from '@mikro-orm/core';
import type { ProposalRequest } from '@gradual/contract';
import { id, jsonb, timestamp } from './common.js';
import { MEMBERSHIP_ROLES } from './membership.js';
import { OrgEntity } from './org.js';

/** A single-use sign-in (or signup) link. Only the SHA-256 of its token is stored. */
export const MagicLinkEntity = defineEntity({
  name: 'MagicLink',
  tableName: 'magic_links',
  properties: (p) => ({
    id: id(),
    tokenHash: p.text().unique(),
    /** Lowercased. */
    email: p.text().index(),
    purpose: p.enum(['signin', 'signup']),
    /** For signup links: what to create when the link is redeemed. */
    signup: jsonb<{ displayName: string; orgName: string; orgSlug: string }>().nullable(),
    requestIp: p.text().nullable(),
    createdAt: timestamp(),
    expiresAt: timestamp(),
    usedAt: timestamp().nullable(),
  }),
});
export type MagicLink = InferEntity<typeof MagicLinkEntity>;

/** An invitation to join an org with a role; the emailed token (hashed here) is the credential. */
export const InvitationEntity = defineEntity({
  name: 'Invitation',
  tableName: 'invitations',
  properties: (p) => ({
    id: id(),
    orgId: p.manyToOne(OrgEntity).mapToPk().fieldName('org_id').deleteRule('cascade').index(),
    /** Lowercased. */
    email: p.text(),
    role: p.enum([...MEMBERSHIP_ROLES]),
    tokenHash: p.text().unique(),
    status: p.enum(['pending', 'used', 'revoked']),
    createdAt: timestamp(),
    createdByUserId: p.uuid().nullable(),
    expiresAt: timestamp(),
    usedAt: timestamp().nullable(),
    revokedAt: timestamp().nullable(),
  }),
  indexes: [{ properties: ['orgId', 'email'] }],
});
export type Invitation = InferEntity<typeof InvitationEntity>;

/**
 * A mutation by an approval-required API key, held until an admin applies or
 * cancels it (or it expires after 7 days). `request` is what the key sent.
 */
export const ProposalEntity = defineEntity({
  name: 'Proposal',
  tableName: 'proposals',
  properties: (p) => ({
    id: id(),
    orgId: p.uuid(),
    envId: p.uuid(),
    /** What the proposal does, e.g. `rollout.put`, `rollout.pause`, `target_ids.add`. */
    kind: p.text(),
    resourceType: p.text(),
    resourceKey: p.text(),
    request: jsonb<ProposalRequest>(),
    /** The environment version the proposal was made against (apply refuses on drift). */
    baseVersion: p.integer(),
    status: p.enum(['pending', 'applied', 'cancelled', 'expired']),
    createdAt: timestamp(),
    expiresAt: timestamp(),
    createdByTokenId: p.uuid(),
    appliedAt: timestamp().nullable(),
    appliedByUserId: p.uuid().nullable(),
    cancelledAt: timestamp().nullable(),
    cancelledByUserId: p.uuid().nullable(),
  }),
  indexes: [{ properties: ['orgId', 'status', 'createdAt'] }],
});
export type Proposal = InferEntity<typeof ProposalEntity>;
