import { LockMode } from '@mikro-orm/core';
import { v7 as uuidv7 } from 'uuid';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Proposal as ProposalDto, ProposalKind, ProposalRequest, ProposalStatus } from '@gradual/contract';
import { ApiKeyEntity, ProposalEntity, type PrimitiveKind, type Proposal } from '../../db/entities/index.js';
import { DomainError } from '../../domain/errors.js';
import { authorize, scopeConditions, systemActor, tokenScope, type Actor, type Caller } from '../access/authorize.js';
import { recordAudit } from '../audit/audit.store.js';
import type { OrgChange } from '../audit/org-changes.js';
import type { EnvChange, EnvChangeBus } from '../environments/env-changes.js';
import { findOrgBySlug, isUuid, iso } from '../common/lookup.js';
import { rawQuery } from '../common/sql.js';
import { rolloutOperations, type OpTarget, type RolloutOp } from '../rollouts/operations.js';
import { opOf } from './divertible.js';
import { transaction } from '../../db/transaction.js';

/** Pending proposals expire this long after they were made (docs/rollouts.md). */
export const PROPOSAL_LIFETIME_MS = 7 * 24 * 3600 * 1000;
export const DEFAULT_PROPOSAL_LIST_LIMIT = 100;

export function toProposalDto(p: Proposal): ProposalDto {
  return {
    id: p.id,
    status: p.status,
    kind: p.kind as ProposalKind,
    envId: p.envId,
    resourceType: p.resourceType as PrimitiveKind,
    resourceKey: p.resourceKey,
    request: p.request,
    baseVersion: p.baseVersion,
    createdAt: iso(p.createdAt),
    expiresAt: iso(p.expiresAt),
    createdByTokenId: p.createdByTokenId,
    appliedAt: p.appliedAt ? iso(p.appliedAt) : null,
    appliedByUserId: p.appliedByUserId ?? null,
    cancelledAt: p.cancelledAt ? iso(p.cancelledAt) : null,
    cancelledByUserId: p.cancelledByUserId ?? null,
  };
}

/** Lifecycle audit rows: resourceType `proposal`, keyed by the primitive, id = the proposal's. */
function auditLifecycle(
  tx: EntityManager,
  caller: Pick<Caller, 'reason' | 'now'>,
  actor: Actor,
  p: { id: string; orgId: string; envId: string; resourceKey: string; projectId: string | null },
  action: 'created' | 'applied' | 'cancelled' | 'expired',
  values: { previousValue?: unknown; newValue?: unknown; version?: number | null },
) {
  // Never the approver: lifecycle rows name who acted on the proposal itself.
  recordAudit(tx, { reason: caller.reason, now: caller.now }, actor, {
    orgId: p.orgId,
    projectId: p.projectId ?? null,
    envId: p.envId,
    action: `proposal.${action}`,
    resourceType: 'proposal',
    resourceKey: p.resourceKey,
    resourceId: p.id,
    ...values,
  });
}

const lifecycleRef = (p: Proposal, projectId: string | null) => ({ id: p.id, orgId: p.orgId, envId: p.envId, resourceKey: p.resourceKey, projectId });

async function projectIdOf(tx: EntityManager, envId: string): Promise<string | null> {
  const [row] = await tx.execute<Array<{ project_id: string }>>('select project_id from environments where id = ?', [envId]);
  return row?.project_id ?? null;
}

/**
 * Diverts a mutation of an approval-required API key: checks it as the direct
 * call would (rolloutOperations.check), then stores it with the environment's version as
 * its base. Nothing else changes: no env version bump, no rollout change.
 */
export async function propose(em: EntityManager, caller: Caller, t: OpTarget, op: RolloutOp, request: ProposalRequest): Promise<ProposalDto> {
  if (caller.principal?.kind !== 'token') throw new Error('only API keys make proposals');
  const tokenId = caller.principal.key.id;
  // The env (and its version) is read before the state the checks look at, so a write in between
  // can only make the proposal look older than it is (apply refuses it), never newer.
  const { env, primitive, actor } = await rolloutOperations.check(em, caller, t, op);
  return transaction(em, (tx) => {
    const proposal = tx.create(ProposalEntity, {
      // Time-ordered, so proposals made in the same instant still list newest first.
      id: uuidv7(),
      orgId: env.orgId,
      envId: env.id,
      kind: op.kind,
      resourceType: primitive.kind,
      resourceKey: primitive.key,
      request,
      baseVersion: env.version,
      status: 'pending',
      createdAt: caller.now,
      expiresAt: new Date(caller.now.getTime() + PROPOSAL_LIFETIME_MS),
      createdByTokenId: tokenId,
      appliedAt: null,
      appliedByUserId: null,
      cancelledAt: null,
      cancelledByUserId: null,
    });
    const dto = toProposalDto(proposal);
    auditLifecycle(tx, caller, actor, lifecycleRef(proposal, env.projectId), 'created', { newValue: dto });
    return dto;
  });
}

/**
 * Marks the org's pending proposals past `expiresAt` as expired, each with a
 * `proposal.expired` audit row dated at its expiry (actor system). Called
 * before proposals are read, applied or cancelled: expiry is lazy, and the
 * conditional UPDATE makes concurrent sweeps expire each proposal once.
 */
export async function expireDueProposals(em: EntityManager, orgId: string, now: Date): Promise<number> {
  return transaction(em, async (tx) => {
    const { rows } = await rawQuery<{ id: string; env_id: string; project_id: string | null; resource_key: string; expires_at: Date | string }>(
      tx,
      `update proposals p set status = 'expired'
         from environments e
        where e.id = p.env_id and p.org_id = ? and p.status = 'pending' and p.expires_at <= ?
        returning p.id, p.env_id, e.project_id, p.resource_key, p.expires_at`,
      [orgId, now],
    );
    for (const row of rows) {
      const at = new Date(row.expires_at);
      auditLifecycle(
        tx,
        { reason: null, now: at },
        systemActor,
        { id: row.id, orgId, envId: row.env_id, projectId: row.project_id, resourceKey: row.resource_key },
        'expired',
        { previousValue: { status: 'pending' }, newValue: { status: 'expired', expiresAt: iso(at) } },
      );
    }
    return rows.length;
  });
}

async function findProposal(em: EntityManager, id: string): Promise<Proposal> {
  const proposal = isUuid(id) ? await em.findOne(ProposalEntity, { id }) : null;
  if (!proposal) throw new DomainError('not_found', 'Proposal not found.');
  return proposal;
}

/** Re-reads a proposal after a sweep may have expired it. */
async function fresh(em: EntityManager, p: Proposal, now: Date): Promise<Proposal> {
  if (p.status !== 'pending' || p.expiresAt.getTime() > now.getTime()) return p;
  await expireDueProposals(em, p.orgId, now);
  return em.findOneOrFail(ProposalEntity, { id: p.id }, { refresh: true });
}

/** A session member of the org, or an API key with the read action (env and key in scope). */
export async function getProposal(em: EntityManager, caller: Caller, id: string): Promise<ProposalDto> {
  const proposal = await findProposal(em, id);
  await authorize(em, caller, proposal.orgId, { action: 'read', envId: proposal.envId, resourceKey: proposal.resourceKey });
  return toProposalDto(await fresh(em, proposal, caller.now));
}

export async function listProposals(
  em: EntityManager,
  caller: Caller,
  slug: string,
  query: { status?: ProposalStatus | undefined; limit?: number | undefined },
): Promise<ProposalDto[]> {
  const org = await findOrgBySlug(em, slug);
  await authorize(em, caller, org.id, { action: 'read' });
  await expireDueProposals(em, org.id, caller.now);
  // Lists are filtered, not refused, for keys scoped to some environments or resources: in the query, so `limit` counts visible rows.
  const scope = tokenScope(caller);
  const scoped = scope ? scopeConditions(scope, { envId: 'envId', resourceKey: 'resourceKey' }) : [];
  if (!scoped) return [];
  const rows = await em.find(
    ProposalEntity,
    { orgId: org.id, ...(query.status ? { status: query.status } : {}), ...(scoped.length ? { $and: scoped } : {}) },
    { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], limit: query.limit ?? DEFAULT_PROPOSAL_LIST_LIMIT },
  );
  return rows.map(toProposalDto);
}

const gone = (p: Proposal) => new DomainError('proposal_gone', `This proposal is ${p.status}.`);

const drift = (liveVersion: number, proposedVersion: number) =>
  new DomainError('version_drift', 'The environment changed since this proposal was made; ask for a new one.', {
    details: { liveVersion, proposedVersion },
  });

/** Env and org changes of a transaction, published only once it committed. */
class CollectingBus implements EnvChangeBus {
  readonly changes: EnvChange[] = [];
  readonly orgChanges: OrgChange[] = [];
  publish(change: EnvChange): void {
    this.changes.push(change);
  }
  publishOrg(change: OrgChange): void {
    this.orgChanges.push(change);
  }
  subscribe(): () => void {
    throw new Error('CollectingBus only collects');
  }
  subscribeOrg(): () => void {
    throw new Error('CollectingBus only collects');
  }
  /** Publishes what was collected on `bus`. */
  publishTo(bus: EnvChangeBus): void {
    for (const change of this.changes) bus.publish(change);
    for (const change of this.orgChanges) bus.publishOrg(change);
  }
}

/** Locks a pending, unexpired proposal in `tx` (410 otherwise). */
async function lockPending(tx: EntityManager, id: string, now: Date): Promise<Proposal> {
  const p = await tx.findOneOrFail(ProposalEntity, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (p.status !== 'pending') throw gone(p);
  // Expired since the sweep (same instant): report it as such; the next read records it.
  if (p.expiresAt.getTime() <= now.getTime()) throw new DomainError('proposal_gone', 'This proposal is expired.');
  return p;
}

/**
 * Applies a pending proposal (session, admin or owner). In one transaction:
 * the proposal row is locked; the env version must still be `baseVersion`
 * (else 409 version_drift); the stored request runs through the same service
 * functions as the key's direct call would, as the key (its audit rows name the
 * key as actor, the applying user as approver, reason `proposal:<id>`); the
 * version it produced must directly follow `baseVersion` (a write that slipped in
 * between is drift too); the proposal becomes applied. Env changes are published
 * after the commit. Any error rolls everything back and leaves it pending.
 */
export async function applyProposal(em: EntityManager, caller: Caller, bus: EnvChangeBus, id: string) {
  const found = await findProposal(em, id);
  const actor = await authorize(em, caller, found.orgId, { action: 'write', role: 'admin', sessionOnly: true });
  const approverUserId = actor.actorId!;
  await fresh(em, found, caller.now);
  const collected = new CollectingBus();
  const out = await transaction(em, async (tx) => {
    const p = await lockPending(tx, id, caller.now);
    const [row] = await tx.execute<Array<{ version: number; project_id: string }>>('select version, project_id from environments where id = ?', [p.envId]);
    if (!row) throw new DomainError('not_found', 'The proposal’s environment no longer exists.');
    if (row.version !== p.baseVersion) throw drift(row.version, p.baseVersion);
    const key = await tx.findOne(ApiKeyEntity, { id: p.createdByTokenId });
    if (!key || key.revokedAt) throw new DomainError('forbidden', 'The API key that made this proposal has been revoked; cancel the proposal.');
    // The key, as approved by this user: authorize skips its IP allow-list (checked when it proposed)
    // and its approval requirement; actions, environments and resources are checked again.
    const asKey: Caller = { principal: { kind: 'token', key }, ip: caller.ip, reason: `proposal:${p.id}`, now: caller.now, approverUserId };
    const target = { primitiveKind: p.resourceType as PrimitiveKind, envId: p.envId, key: p.resourceKey };
    const result = await rolloutOperations.execute(tx, asKey, collected, target, opOf(p.kind as ProposalKind, p.request));
    const produced = collected.changes.find((c) => c.envId === p.envId)?.version ?? null;
    if (produced !== null && produced !== p.baseVersion + 1) throw drift(produced - 1, p.baseVersion);
    p.status = 'applied';
    p.appliedAt = caller.now;
    p.appliedByUserId = approverUserId;
    const dto = toProposalDto(p);
    auditLifecycle(tx, caller, actor, lifecycleRef(p, row.project_id), 'applied', {
      previousValue: { status: 'pending' },
      newValue: dto,
      version: produced,
    });
    return { ...dto, ...(result.status === 200 ? { result: result.body } : {}) };
  });
  collected.publishTo(bus);
  return out;
}

/**
 * Cancels a pending proposal: a session admin or owner, or the API key that
 * made it (withdrawing its own proposal; other keys get scope_denied).
 */
export async function cancelProposal(em: EntityManager, caller: Caller, id: string): Promise<ProposalDto> {
  const found = await findProposal(em, id);
  let actor: Actor;
  if (caller.principal?.kind === 'token') {
    actor = await authorize(em, caller, found.orgId, { action: 'write', proposal: true, envId: found.envId, resourceKey: found.resourceKey });
    if (caller.principal.key.id !== found.createdByTokenId) {
      throw new DomainError('scope_denied', 'Only the API key that made a proposal can cancel it; or sign in as an admin.');
    }
  } else {
    actor = await authorize(em, caller, found.orgId, { action: 'write', role: 'admin' });
  }
  await fresh(em, found, caller.now);
  return transaction(em, async (tx) => {
    const p = await lockPending(tx, id, caller.now);
    p.status = 'cancelled';
    p.cancelledAt = caller.now;
    p.cancelledByUserId = actor.actorType === 'user' ? actor.actorId : null;
    const dto = toProposalDto(p);
    auditLifecycle(tx, caller, actor, lifecycleRef(p, await projectIdOf(tx, p.envId)), 'cancelled', { previousValue: { status: 'pending' }, newValue: dto });
    return dto;
  });
}
