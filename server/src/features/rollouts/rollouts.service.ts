import { isDeepStrictEqual } from 'node:util';
import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { isLiveStatus, KEY_MAX_LENGTH, type Rollout as RolloutDto } from '@gradual/contract';
import {
  PrimitiveEntity,
  PrimitiveStateEntity,
  ProjectEntity,
  RolloutPlanEntity,
  type Environment,
  type JsonValue,
  type Primitive,
  type PrimitiveKind,
  type Rollout,
} from '../../db/entities/index.js';
import { DomainError, invalid } from '../../domain/errors.js';
import { resolveVariant } from '../../domain/variants.js';
import { valueProblems } from '../common/value-checks.js';
import { applyCommand, createRollout } from '../../domain/rollouts/state-machine.js';
import type { PlanSnapshot, PutRollout, RolloutCommand } from '../../domain/rollouts/types.js';
import { checkIfMatch } from '../common/etag.js';
import { authorize, type Actor, type Caller } from '../access/authorize.js';
import { changeEnvironments, type EnvChangeBus } from '../environments/env-changes.js';
import { commitIfUnchanged, commitTransition } from './commit-transition.js';
import { toRolloutDto, toState as toStateOf } from './rollout.mapper.js';
import { findCurrentRollout, findRolloutTarget, newRolloutRow, readCurrentRollout, type ReadRollout } from './rollouts.store.js';

export interface RolloutTarget {
  env: Environment;
  primitive: Primitive;
  actor: Actor;
  /** The current rollout as read with them (unlocked); null when there is none. */
  current: ReadRollout | null;
}

/** An archived flag or config: its values, rules and rollouts stay as they are until it is restored. */
export const primitiveArchived = (kind: PrimitiveKind, key: string) =>
  new DomainError('primitive_archived', `The ${kind} "${key}" is archived: restore it first.`);

/**
 * Resolves env + primitive and authorizes the caller for them: read, write, or
 * `propose` (a write that an approval-required API key turns into a proposal).
 * A write or proposal on an archived primitive is refused (`primitive_archived`); a `stop`
 * (rollback) only ends exposure and is not.
 */
export async function resolveTarget(
  em: EntityManager,
  caller: Caller,
  kind: PrimitiveKind,
  envId: string,
  key: string,
  action: 'read' | 'write' | 'propose' | 'stop',
): Promise<RolloutTarget> {
  // One statement for all three reads; errors keep their order: environment, access, primitive.
  // (A key longer than any key can be matches nothing.)
  const found = await findRolloutTarget(em, envId, kind, key.length <= KEY_MAX_LENGTH ? key : null);
  if (!found) throw new DomainError('not_found', 'Environment not found.');
  const { env, primitive, current } = found;
  const need =
    action === 'propose'
      ? { action: 'write' as const, proposal: true }
      : action === 'stop'
        ? { action: 'write' as const, stopsExposure: true }
        : { action };
  const actor = await authorize(em, caller, env.orgId, { ...need, envId, resourceKey: key });
  if (!primitive) throw new DomainError('not_found', `No ${kind} "${key}" in this project.`);
  if (primitive.archivedAt && (action === 'write' || action === 'propose')) throw primitiveArchived(kind, primitive.key);
  return { env, primitive, actor, current };
}

const noRollout = () => new DomainError('not_found', 'There is no rollout for this primitive in this environment.');

export async function getRollout(em: EntityManager, caller: Caller, kind: PrimitiveKind, envId: string, key: string): Promise<RolloutDto> {
  const { current } = await resolveTarget(em, caller, kind, envId, key, 'read');
  if (!current) throw noRollout();
  return toRolloutDto(current.row);
}

export interface PutRolloutBody {
  percent: number;
  planKey?: string | null | undefined;
  seed?: string | undefined;
  bucketField?: string | undefined;
  newValue?: unknown;
  /** Instead of newValue: one of the primitive's declared variants by name. */
  newVariant?: string | undefined;
}

/** A flag's candidate must have the flag's type; a config's satisfy its schema, if it has one. */
export function checkCandidate(primitive: Primitive, value: unknown): void {
  const problems = valueProblems(primitive, value, 'newValue');
  if (Object.keys(problems).length) throw invalid(problems);
}

/**
 * The candidate a PUT body names, checked: its `newValue` (when `hasNewValue`: a body without one
 * gates the rules), or the value of the declared variant `newVariant` names.
 */
export function candidateOf(primitive: Primitive, body: PutRolloutBody, hasNewValue: boolean): { hasNewValue: false } | { hasNewValue: true; newValue: unknown } {
  if (body.newVariant === undefined) {
    if (hasNewValue) checkCandidate(primitive, body.newValue);
    return hasNewValue ? { hasNewValue, newValue: body.newValue } : { hasNewValue };
  }
  const resolved = resolveVariant(primitive.variants, { value: hasNewValue ? body.newValue : undefined, variant: body.newVariant }, { value: 'newValue', variant: 'newVariant' });
  if ('problem' in resolved) throw invalid({ [resolved.field]: resolved.problem });
  checkCandidate(primitive, resolved.value);
  return { hasNewValue: true, newValue: resolved.value };
}

export async function loadPlanSnapshot(em: EntityManager, projectId: string, key: string): Promise<PlanSnapshot> {
  const plan = await em.findOne(RolloutPlanEntity, { projectId, key, deletedAt: null });
  if (!plan) throw invalid({ planKey: 'no rollout plan with this key in the project' });
  return {
    key: plan.key,
    rampSteps: structuredClone(plan.rampSteps),
    cadence: plan.cadence,
    blackoutDaysOfWeek: [...plan.blackoutDaysOfWeek],
    blackoutTimezone: plan.blackoutTimezone,
  };
}

/**
 * PUT: creates the rollout, or edits the live one (a PUT after a completed or
 * cancelled rollout starts a new one). A body that changes nothing returns the
 * rollout untouched: no audit row, no version bump, same updatedAt.
 */
export async function putRollout(
  em: EntityManager,
  caller: Caller,
  bus: EnvChangeBus,
  kind: PrimitiveKind,
  envId: string,
  key: string,
  sent: PutRolloutBody,
  sentNewValue: boolean,
  ifMatch: string | undefined,
): Promise<RolloutDto> {
  const { env, primitive, actor, current } = await resolveTarget(em, caller, kind, envId, key, 'write');
  // A named variant is written as its value: from here on the body carries newValue only. It is
  // checked here, and again in the transaction against the definition's row locked shared (as a
  // value write is), so that a variant or schema change, which locks the row for update and checks
  // every value held, cannot slip in between the check and the write.
  const candidate = candidateOf(primitive, sent, sentNewValue);
  const hasNewValue = candidate.hasNewValue;
  const body: PutRolloutBody = { ...sent, newValue: candidate.hasNewValue ? candidate.newValue : undefined };
  const command = (checked: typeof candidate, plan?: PlanSnapshot): PutRollout => ({
    type: 'put',
    percent: body.percent,
    ...(body.planKey !== undefined ? { planKey: body.planKey } : {}),
    ...(plan ? { plan } : {}),
    ...(body.seed !== undefined ? { seed: body.seed } : {}),
    ...(body.bucketField !== undefined ? { bucketField: body.bucketField } : {}),
    ...(checked.hasNewValue ? { newValue: checked.newValue as JsonValue } : {}),
    hasNewValue: checked.hasNewValue,
  });
  const needsPlan = (live: Rollout | null) => typeof body.planKey === 'string' && body.planKey !== live?.planKey;
  // A new candidate is written under the definition's lock (the locked path).
  const changesCandidate = (live: Rollout) => hasNewValue && !isDeepStrictEqual(toStateOf(live).newValue, body.newValue);
  // Repeating the PUT that completed a rollout is a retry, not a new rollout (PUT idempotency).
  const repeatsCompleted = (found: Rollout | null) => found?.status === 'completed' && repeatsCompletingPut(found, body, hasNewValue);

  // The common case, an edit of the live rollout that needs no plan loaded and keeps its candidate, without a lock.
  const edited = await editOptimistically(em, caller, bus, actor, env.id, primitive.id, current, ifMatch, (live) =>
    needsPlan(live) || changesCandidate(live) ? null : command(candidate),
  );
  if (edited.done) return edited.dto;
  if (edited.current && !isLive(edited.current) && repeatsCompleted(edited.current)) return toRolloutDto(edited.current);

  const attempt = () =>
    changeEnvironments(em, bus, caller.now, async (changes) => {
      const { tx } = changes;
      const current = await findCurrentRollout(tx, env.id, primitive.id, true);
      checkIfMatch(ifMatch, current ? toRolloutDto(current) : null);
      const live = current && isLive(current) ? current : null;
      const ctx = { changes, actor, caller };
      if (!live && repeatsCompleted(current)) return current!;
      // A new rollout, or a candidate, holds the definition's row (shared): archiving, and a change
      // of its variants or schema, wait for this write, or it sees them.
      const definition = !live || hasNewValue ? await tx.findOneOrFail(PrimitiveEntity, { id: primitive.id }, { lockMode: LockMode.PESSIMISTIC_READ, refresh: true }) : null;
      if (!live && definition?.archivedAt) throw primitiveArchived(kind, primitive.key);
      const checked = definition && hasNewValue ? candidateOf(definition, sent, sentNewValue) : candidate;
      const put = command(checked, needsPlan(live) ? await loadPlanSnapshot(tx, env.projectId, body.planKey as string) : undefined);
      if (live) {
        const transition = applyCommand(toStateOf(live), put, caller.now);
        await commitTransition(ctx, live, primitive, transition, toRolloutDto(live));
        return live;
      }
      if (!hasNewValue) {
        const state = await tx.findOneOrFail(PrimitiveStateEntity, { primitiveId: primitive.id, envId: env.id });
        if (!state.rules.length) throw invalid({ newValue: `required: this ${kind} has no rules for the rollout to gate` });
      }
      const project = await tx.findOneOrFail(ProjectEntity, { id: env.projectId });
      const { percent, ...rest } = put;
      const transition = createRollout(
        { ...rest, percent, defaultSeed: `${primitive.key}:${env.key}`, defaultBucketField: project.targetIdField },
        caller.now,
      );
      const row = newRolloutRow(env, primitive, caller.now);
      await commitTransition(ctx, row, primitive, transition, null);
      return row;
    });
  try {
    return toRolloutDto(await attempt());
  } catch (err) {
    // Two concurrent first PUTs: the partial unique index admits one; the other retries as an edit.
    if (err instanceof UniqueConstraintViolationException) return toRolloutDto(await attempt());
    throw err;
  }
}

const isLive = (r: Rollout) => isLiveStatus(r.status);

/** Reads of a row that keeps changing under an optimistic edit before it takes the row lock instead. */
const OPTIMISTIC_READS = 3;

/**
 * A state-machine command on the live rollout without a transaction: the rollout read unlocked
 * with its row version, the command applied, and one statement that commits the row, the
 * environment version and the audit rows only if the row is still the one read
 * (commitIfUnchanged); a row changed meanwhile is read again. The If-Match precondition is
 * checked on each read, so a change that slips in still fails it.
 *
 * `commandFor` names the command for the live rollout, or null when it needs the locked path
 * (e.g. a plan to load in the transaction). Not done (the caller takes the row lock): no live
 * rollout (`current` is what was read), a null command, a transition that completes a rollout
 * with a candidate value (it rewrites the primitive's value too), or a row that kept changing.
 */
async function editOptimistically(
  em: EntityManager,
  caller: Caller,
  bus: EnvChangeBus,
  actor: Actor,
  envId: string,
  primitiveId: string,
  /** The first read (resolveTarget's); later ones are readCurrentRollout's. */
  firstRead: ReadRollout | null,
  ifMatch: string | undefined,
  commandFor: (live: Rollout) => RolloutCommand | null,
): Promise<{ done: true; dto: RolloutDto } | { done: false; current: Rollout | null }> {
  let current: Rollout | null = null;
  for (let read = 0; read < OPTIMISTIC_READS; read++) {
    const found = read === 0 ? firstRead : await readCurrentRollout(em, envId, primitiveId);
    current = found?.row ?? null;
    const before = current && toRolloutDto(current);
    checkIfMatch(ifMatch, before);
    if (!found || !before || !isLive(found.row)) return { done: false, current };
    const command = commandFor(found.row);
    if (!command) break;
    const transition = applyCommand(toStateOf(found.row), command, caller.now);
    if (transition.actions.includes('rollout.completed') && transition.rollout.newValue !== undefined) break;
    const written = await commitIfUnchanged({ bus, actor, caller }, em, found.row, found.rowVersion, transition, before);
    if (!written) continue; // changed since the read: read it again
    return { done: true, dto: toRolloutDto(found.row) };
  }
  return { done: false, current };
}

/** Whether a PUT body asks for exactly what a completed rollout already is. */
function repeatsCompletingPut(done: Rollout, body: PutRolloutBody, hasNewValue: boolean): boolean {
  const state = toStateOf(done);
  return (
    body.percent === done.percent &&
    (body.planKey === undefined || body.planKey === done.planKey) &&
    (body.seed === undefined || body.seed === done.seed) &&
    (body.bucketField === undefined || body.bucketField === done.bucketField) &&
    (!hasNewValue || (state.newValue !== undefined && isDeepStrictEqual(state.newValue, body.newValue)))
  );
}

/**
 * pause, resume, cancel, advance and rollback: one state-machine command on the current rollout.
 * A rollback only stops exposure: an approval-required API key makes it directly (a kill
 * switch waits for no approver).
 */
export async function commandRollout(
  em: EntityManager,
  caller: Caller,
  bus: EnvChangeBus,
  kind: PrimitiveKind,
  envId: string,
  key: string,
  command: Exclude<RolloutCommand, PutRollout>,
): Promise<RolloutDto> {
  const access = command.type === 'rollback' ? 'stop' : 'write';
  const { env, primitive, actor, current } = await resolveTarget(em, caller, kind, envId, key, access);
  if (command.type === 'rollback' && !caller.reason?.trim()) {
    throw invalid({ 'x-audit-reason': 'required: say why the rollout is rolled back' });
  }
  const edited = await editOptimistically(em, caller, bus, actor, env.id, primitive.id, current, undefined, () => command);
  if (edited.done) return edited.dto;
  if (!edited.current) throw noRollout();
  const row = await changeEnvironments(em, bus, caller.now, async (changes) => {
    const current = await findCurrentRollout(changes.tx, env.id, primitive.id, true);
    if (!current) throw noRollout();
    const transition = applyCommand(toStateOf(current), command, caller.now);
    await commitTransition({ changes, actor, caller }, current, primitive, transition, toRolloutDto(current));
    return current;
  });
  return toRolloutDto(row);
}
