import { LockMode } from '@mikro-orm/core';
import { isDeepStrictEqual } from 'node:util';
import type { EntityManager } from '@mikro-orm/postgresql';
import { KEY_MAX_LENGTH, type Config, type ConfigState, type Flag, type FlagState, type FlagValueType, type Rule } from '@gradual/contract';
import {
  EnvironmentEntity,
  ProjectEntity,
  PrimitiveEntity,
  PrimitiveStateEntity,
  type Environment,
  type JsonValue,
  type Primitive,
  type PrimitiveKind,
  type PrimitiveState,
  type Rollout,
} from '../../db/entities/index.js';
import { DomainError, invalid } from '../../domain/errors.js';
import { authorize, tokenSees, type Caller } from '../access/authorize.js';
import { changeEnvironments, type EnvChangeBus } from '../environments/env-changes.js';
import { checkIfMatch } from '../common/etag.js';
import { toRolloutDto } from '../rollouts/rollout.mapper.js';
import { findCurrentRollout, findCurrentRollouts } from '../rollouts/rollouts.store.js';
import { hoistLegacyRollouts, splitLegacyRules, type LegacyRule } from './legacy-import.js';
import { findEnvironment, findProject, iso, keyInUse, mapUniqueViolation } from '../common/lookup.js';

/** The API's shapes of each kind's definition and per-environment state. */
interface PrimitiveDtos {
  flag: { definition: Flag; state: FlagState };
  config: { definition: Config; state: ConfigState };
}
export type DefinitionOf<K extends PrimitiveKind> = PrimitiveDtos[K]['definition'];
export type StateOf<K extends PrimitiveKind> = PrimitiveDtos[K]['state'];

/** A flag's declared value type (`json` belongs to configs only). */
function flagValueType(p: Primitive): FlagValueType {
  if (p.valueType === 'json') throw new Error(`flag ${p.id} has value type json`);
  return p.valueType;
}

/** Definition and state as the API shows them, per kind (configs carry no valueType). */
const presenters: { [K in PrimitiveKind]: { definition(p: Primitive): DefinitionOf<K>; state(p: Primitive, s: PrimitiveState, rollout: Rollout | null): StateOf<K> } } = {
  config: {
    definition: (p) => ({
      id: p.id,
      projectId: p.projectId,
      key: p.key,
      name: p.name,
      description: p.description ?? null,
      defaultValue: p.defaultValue,
      clientVisible: p.clientVisible,
      createdAt: iso(p.createdAt),
      updatedAt: iso(p.updatedAt),
    }),
    state: (p, s, rollout) => ({
      key: p.key,
      envId: s.envId,
      value: s.value,
      rules: s.rules,
      rollout: rollout ? toRolloutDto(rollout) : null,
      updatedAt: iso(s.updatedAt),
    }),
  },
  flag: {
    definition: (p) => ({ ...presenters.config.definition(p), valueType: flagValueType(p) }),
    state: (p, s, rollout) => ({ ...presenters.config.state(p, s, rollout), valueType: flagValueType(p) }),
  },
};

export const toDefinitionDto = <K extends PrimitiveKind>(kind: K, p: Primitive): DefinitionOf<K> => presenters[kind].definition(p);
export const toStateDto = <K extends PrimitiveKind>(kind: K, p: Primitive, s: PrimitiveState, rollout: Rollout | null): StateOf<K> =>
  presenters[kind].state(p, s, rollout);

/** A flag's values must have its declared type; a config takes any JSON value. */
function valueProblem(p: Pick<Primitive, 'kind' | 'valueType'>, value: unknown): string | null {
  if (value === undefined) return 'Required';
  if (p.kind === 'config') return null;
  // JSON cannot carry a non-finite number: 1e309 parses as Infinity and would be stored as null.
  const ok = typeof value === p.valueType && (typeof value !== 'number' || Number.isFinite(value));
  return ok ? null : `must be a ${p.valueType}`;
}

function checkValue(p: Pick<Primitive, 'kind' | 'valueType'>, value: unknown, field: string): void {
  const problem = valueProblem(p, value);
  if (problem) throw invalid({ [field]: problem });
}

function checkRules(p: Pick<Primitive, 'kind' | 'valueType'>, rules: Rule[], field = 'rules'): void {
  const fields: Record<string, string> = {};
  rules.forEach((rule, i) => {
    const problem = valueProblem(p, rule.value);
    if (problem) fields[`${field}.${i}.value`] = problem;
  });
  if (Object.keys(fields).length) throw invalid(fields);
}

export interface CreatePrimitiveInput {
  key: string;
  name: string;
  description?: string | undefined;
  valueType?: FlagValueType | undefined;
  defaultValue?: unknown;
  clientVisible?: boolean | undefined;
  /** Imported rules may carry a legacy `rolloutPercent` (flags only; see legacy-import.ts). */
  rules?: Array<Rule & LegacyRule> | undefined;
}

/** Creates the definition and its state in every environment of the project (each env's version advances). */
export async function createPrimitive<K extends PrimitiveKind>(em: EntityManager, caller: Caller, bus: EnvChangeBus, kind: K, projectId: string, input: CreatePrimitiveInput): Promise<DefinitionOf<K>> {
  const project = await findProject(em, projectId);
  // Every environment of the project gets the new definition's state: a key restricted to some environments may not.
  const actor = await authorize(em, caller, project.orgId, { action: 'write', resourceKey: input.key, projectId, allEnvironments: true });
  const shape = { kind, valueType: kind === 'flag' ? (input.valueType ?? 'boolean') : ('json' as const) };
  checkValue(shape, input.defaultValue, 'defaultValue');
  const split = splitLegacyRules(input.rules ?? []);
  const rules = split.rules as Rule[];
  checkRules(shape, rules);
  const now = caller.now;
  const primitive = await mapUniqueViolation(
    () =>
      changeEnvironments(em, bus, now, async (changes) => {
        const { tx } = changes;
        if (await tx.findOne(PrimitiveEntity, { projectId, kind, key: input.key })) throw keyInUse(kind, input.key);
        const primitive = tx.create(PrimitiveEntity, {
          orgId: project.orgId,
          projectId,
          kind,
          key: input.key,
          name: input.name,
          description: input.description ?? null,
          valueType: shape.valueType,
          defaultValue: input.defaultValue,
          clientVisible: input.clientVisible ?? false,
          createdAt: now,
          updatedAt: now,
        });
        const envs = await tx.find(EnvironmentEntity, { projectId });
        for (const env of envs) {
          tx.create(PrimitiveStateEntity, {
            primitiveId: primitive.id,
            envId: env.id,
            value: input.defaultValue,
            rules,
            createdAt: now,
            updatedAt: now,
          });
        }
        await tx.flush();
        for (const env of envs) changes.change(env.id);
        if (split.hoistedPercent !== null) {
          const project = await tx.findOneOrFail(ProjectEntity, { id: projectId });
          await hoistLegacyRollouts({ changes, actor, caller }, primitive, envs, project.targetIdField, split);
        }
        changes.audit(caller, actor, {
          orgId: project.orgId,
          projectId,
          action: `${kind}.created`,
          resourceType: kind,
          resourceKey: primitive.key,
          resourceId: primitive.id,
          newValue: toDefinitionDto(kind, primitive),
        });
        return primitive;
      }),
    () => keyInUse(kind, input.key),
  );
  return toDefinitionDto(kind, primitive);
}

export interface UpdatePrimitiveInput {
  name?: string | undefined;
  description?: string | null | undefined;
  clientVisible?: boolean | undefined;
}

/**
 * Changes a definition's name, description or client visibility: the change and its audit row
 * (`flag.updated` / `config.updated`, before and after) commit together. A change of
 * `clientVisible` changes what client keys evaluate, so every environment of the project gets a
 * new version (the write reaches every environment, as creating the definition does). A write
 * that changes nothing commits nothing.
 */
export async function updatePrimitive<K extends PrimitiveKind>(em: EntityManager, caller: Caller, bus: EnvChangeBus, kind: K, projectId: string, key: string, input: UpdatePrimitiveInput): Promise<DefinitionOf<K>> {
  const project = await findProject(em, projectId);
  const actor = await authorize(em, caller, project.orgId, { action: 'write', resourceKey: key, projectId, allEnvironments: true });
  const found = key.length <= KEY_MAX_LENGTH ? await em.findOne(PrimitiveEntity, { projectId, kind, key }) : null;
  if (!found) throw new DomainError('not_found', `No ${kind} "${key}" in this project.`);
  const now = caller.now;
  const primitive = await changeEnvironments(em, bus, now, async (changes) => {
    const { tx } = changes;
    const primitive = await tx.findOneOrFail(PrimitiveEntity, { id: found.id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const before = toDefinitionDto(kind, primitive);
    if (input.name !== undefined) primitive.name = input.name;
    if (input.description !== undefined) primitive.description = input.description;
    if (input.clientVisible !== undefined) primitive.clientVisible = input.clientVisible;
    const after = toDefinitionDto(kind, primitive);
    if (isDeepStrictEqual(before, after)) return primitive;
    primitive.updatedAt = now;
    await tx.flush();
    if (before.clientVisible !== after.clientVisible) {
      const envs = await tx.find(EnvironmentEntity, { projectId });
      for (const env of envs) changes.change(env.id);
    }
    changes.audit(caller, actor, {
      orgId: project.orgId,
      projectId,
      action: `${kind}.updated`,
      resourceType: kind,
      resourceKey: primitive.key,
      resourceId: primitive.id,
      previousValue: changedFields(before, after),
      newValue: changedFields(after, before),
    });
    return primitive;
  });
  return toDefinitionDto(kind, primitive);
}

/** The fields of `dto` whose value differs in `other` (an audit row's before or after). */
function changedFields(dto: { name: string; description: string | null; clientVisible: boolean }, other: typeof dto) {
  const out: Partial<typeof dto> = {};
  if (dto.name !== other.name) out.name = dto.name;
  if (dto.description !== other.description) out.description = dto.description;
  if (dto.clientVisible !== other.clientVisible) out.clientVisible = dto.clientVisible;
  return out;
}

export async function listPrimitives<K extends PrimitiveKind>(em: EntityManager, caller: Caller, kind: K, projectId: string): Promise<DefinitionOf<K>[]> {
  const project = await findProject(em, projectId);
  await authorize(em, caller, project.orgId, { action: 'read', projectId });
  const rows = await em.find(PrimitiveEntity, { projectId, kind }, { orderBy: { key: 'asc' } });
  return rows.filter((p) => tokenSees(caller, undefined, p.key)).map((p) => toDefinitionDto(kind, p));
}

export async function listStates<K extends PrimitiveKind>(em: EntityManager, caller: Caller, kind: K, envId: string): Promise<StateOf<K>[]> {
  const env = await findEnvironment(em, envId);
  await authorize(em, caller, env.orgId, { action: 'read', envId });
  const primitives = await em.find(PrimitiveEntity, { projectId: env.projectId, kind }, { orderBy: { key: 'asc' } });
  const visible = primitives.filter((p) => tokenSees(caller, envId, p.key));
  if (!visible.length) return [];
  const ids = visible.map((p) => p.id);
  const states = await em.find(PrimitiveStateEntity, { envId, primitiveId: { $in: ids } });
  const rollouts = await findCurrentRollouts(em, envId, ids);
  const stateOf = new Map(states.map((s) => [s.primitiveId, s]));
  return visible.flatMap((p) => {
    const s = stateOf.get(p.id);
    return s ? [toStateDto(kind, p, s, rollouts.get(p.id) ?? null)] : [];
  });
}

async function findPrimitiveInEnv(em: EntityManager, env: Environment, kind: PrimitiveKind, key: string) {
  const primitive = key.length <= KEY_MAX_LENGTH ? await em.findOne(PrimitiveEntity, { projectId: env.projectId, kind, key }) : null;
  if (!primitive) throw new DomainError('not_found', `No ${kind} "${key}" in this project.`);
  return primitive;
}

export async function getState<K extends PrimitiveKind>(em: EntityManager, caller: Caller, kind: K, envId: string, key: string): Promise<StateOf<K>> {
  const env = await findEnvironment(em, envId);
  await authorize(em, caller, env.orgId, { action: 'read', envId, resourceKey: key });
  const primitive = await findPrimitiveInEnv(em, env, kind, key);
  const state = await em.findOneOrFail(PrimitiveStateEntity, { primitiveId: primitive.id, envId });
  return toStateDto(kind, primitive, state, await findCurrentRollout(em, envId, primitive.id));
}

/**
 * Changes one field of a primitive's state in one environment: the write, the
 * env version bump and the audit row commit together. A write that changes
 * nothing commits nothing (no audit row, no version bump).
 */
/** The state field a write replaces, with its new content. */
type StateChange = { field: 'value'; next: JsonValue } | { field: 'rules'; next: Rule[] };

async function updateState<K extends PrimitiveKind>(
  em: EntityManager,
  caller: Caller,
  bus: EnvChangeBus,
  kind: K,
  envId: string,
  key: string,
  change: StateChange,
  ifMatch: string | undefined,
): Promise<StateOf<K>> {
  const env = await findEnvironment(em, envId);
  const actor = await authorize(em, caller, env.orgId, { action: 'write', envId, resourceKey: key });
  const primitive = await findPrimitiveInEnv(em, env, kind, key);
  if (change.field === 'value') checkValue(primitive, change.next, 'value');
  else checkRules(primitive, change.next);
  const now = caller.now;
  const result = await changeEnvironments(em, bus, now, async (changes) => {
    const { tx } = changes;
    const state = await tx.findOneOrFail(PrimitiveStateEntity, { primitiveId: primitive.id, envId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const rollout = await findCurrentRollout(tx, envId, primitive.id);
    checkIfMatch(ifMatch, toStateDto(kind, primitive, state, rollout));
    const previous = state[change.field];
    if (isDeepStrictEqual(previous, change.next)) return { state, rollout };
    if (change.field === 'value') state.value = change.next;
    else state.rules = change.next;
    state.updatedAt = now;
    changes.change(envId);
    changes.audit(caller, actor, {
      orgId: env.orgId,
      projectId: env.projectId,
      envId,
      action: `${kind}.update_${change.field}`,
      resourceType: kind,
      resourceKey: key,
      resourceId: primitive.id,
      previousValue: previous,
      newValue: change.next,
    });
    return { state, rollout };
  });
  return toStateDto(kind, primitive, result.state, result.rollout);
}

/** `value` comes from a parsed JSON body, so it is a JSON value. */
export const setValue = <K extends PrimitiveKind>(em: EntityManager, caller: Caller, bus: EnvChangeBus, kind: K, envId: string, key: string, value: unknown, ifMatch?: string) =>
  updateState(em, caller, bus, kind, envId, key, { field: 'value', next: value as JsonValue }, ifMatch);

export const setRules = <K extends PrimitiveKind>(em: EntityManager, caller: Caller, bus: EnvChangeBus, kind: K, envId: string, key: string, rules: Rule[], ifMatch?: string) =>
  updateState(em, caller, bus, kind, envId, key, { field: 'rules', next: rules }, ifMatch);
