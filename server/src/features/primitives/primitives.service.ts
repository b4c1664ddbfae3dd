import { LockMode } from '@mikro-orm/core';
import { isDeepStrictEqual } from 'node:util';
import type { EntityManager } from '@mikro-orm/postgresql';
import { KEY_MAX_LENGTH, LIVE_STATUSES, type Config, type ConfigSchema, type ConfigState, type Flag, type FlagMetadata, type FlagState, type FlagValueType, type Rule, type Variants } from '@gradual/contract';
import {
  EnvironmentEntity,
  ProjectEntity,
  PrimitiveEntity,
  PrimitiveStateEntity,
  RolloutEntity,
  RolloutMigrationWarningEntity,
  type Environment,
  type JsonValue,
  type Primitive,
  type PrimitiveKind,
  type PrimitiveState,
  type Rollout,
} from '../../db/entities/index.js';
import { DomainError, invalid } from '../../domain/errors.js';
import { resolveVariant, variantProblems, variantsInUseChanged, type ValueOrVariant } from '../../domain/variants.js';
import { compileSchema, valueProblems, type ValueShape } from '../common/value-checks.js';
import { authorize, tokenSees, type Caller } from '../access/authorize.js';
import { changeEnvironments, type EnvChangeBus } from '../environments/env-changes.js';
import { checkIfMatch } from '../common/etag.js';
import { toRolloutDto } from '../rollouts/rollout.mapper.js';
import { primitiveArchived } from '../rollouts/rollouts.service.js';
import { findCurrentRollout, findCurrentRollouts } from '../rollouts/rollouts.store.js';
import { primitiveReferrers } from './primitives.store.js';
import { hoistLegacyRollouts, splitLegacyRules, type LegacyRule } from './legacy-import.js';
import { findEnvironment, findProject, iso, keyInUse, mapUniqueViolation } from '../common/lookup.js';
import { checkSegmentReferences } from '../segments/segments.service.js';

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

/** What a flag's and a config's definitions share. */
const commonDefinition = (p: Primitive) => ({
  id: p.id,
  projectId: p.projectId,
  key: p.key,
  name: p.name,
  description: p.description ?? null,
  defaultValue: p.defaultValue,
  clientVisible: p.clientVisible,
  tags: [...p.tags],
  maintainer: p.maintainer ?? null,
  metadata: { ...p.metadata },
  variants: { ...p.variants },
  archivedAt: p.archivedAt ? iso(p.archivedAt) : null,
  createdAt: iso(p.createdAt),
  updatedAt: iso(p.updatedAt),
});

/** Definition and state as the API shows them, per kind (a flag has a value type, a config a schema). */
const presenters: { [K in PrimitiveKind]: { definition(p: Primitive): DefinitionOf<K>; state(p: Primitive, s: PrimitiveState, rollout: Rollout | null): StateOf<K> } } = {
  config: {
    definition: (p) => ({ ...commonDefinition(p), schema: p.schema ?? null }),
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
    definition: (p) => ({ ...commonDefinition(p), valueType: flagValueType(p) }),
    state: (p, s, rollout) => ({ ...presenters.config.state(p, s, rollout), valueType: flagValueType(p) }),
  },
};

export const toDefinitionDto = <K extends PrimitiveKind>(kind: K, p: Primitive): DefinitionOf<K> => presenters[kind].definition(p);
export const toStateDto = <K extends PrimitiveKind>(kind: K, p: Primitive, s: PrimitiveState, rollout: Rollout | null): StateOf<K> =>
  presenters[kind].state(p, s, rollout);

/** Problems found so far, by field: checks add to it, and the write is refused once with all of them. */
type Problems = Record<string, string>;

/** `400` naming every problem found, if any. */
function refuseIfAny(problems: Problems): void {
  if (Object.keys(problems).length) throw invalid(problems);
}

/** The value a write means (given, or named by `variant`), its problems added to `problems`; `field` is the value's field. */
function resolveValue(p: ValueShape & Pick<Primitive, 'variants'>, given: ValueOrVariant, field: string, variantField: string, problems: Problems): JsonValue {
  const resolved = resolveVariant(p.variants, given, { value: field, variant: variantField });
  if ('problem' in resolved) {
    problems[resolved.field] = resolved.problem;
    return null;
  }
  Object.assign(problems, valueProblems(p, resolved.value, field));
  // A parsed JSON body's value, or a declared variant's (stored JSON): a JSON value.
  return resolved.value as JsonValue;
}

/** Rules as stored: each rule's `variant` replaced by its value, every value's problems added to `problems`. */
function resolveRules(p: ValueShape & Pick<Primitive, 'variants'>, rules: readonly Rule[], problems: Problems, field = 'rules'): Rule[] {
  return rules.map((rule, i) => {
    const { variant, ...rest } = rule;
    const out = resolveVariant(p.variants, { value: rule.value, variant }, { value: `${field}.${i}.value`, variant: `${field}.${i}.variant` });
    if ('problem' in out) {
      problems[out.field] = out.problem;
      return rest;
    }
    Object.assign(problems, valueProblems(p, out.value, `${field}.${i}.value`));
    return { ...rest, value: out.value };
  });
}

export interface CreatePrimitiveInput {
  key: string;
  name: string;
  description?: string | undefined;
  valueType?: FlagValueType | undefined;
  defaultValue?: unknown;
  /** Instead of defaultValue: one of `variants` by name. */
  defaultVariant?: string | undefined;
  variants?: Variants | undefined;
  /** A config's JSON Schema. */
  schema?: ConfigSchema | undefined;
  clientVisible?: boolean | undefined;
  tags?: string[] | undefined;
  maintainer?: string | undefined;
  metadata?: FlagMetadata | undefined;
  /** Imported rules may carry a legacy `rolloutPercent` (flags only; see legacy-import.ts). */
  rules?: Array<Rule & LegacyRule> | undefined;
}

/** Creates the definition and its state in every environment of the project (each env's version advances). */
export async function createPrimitive<K extends PrimitiveKind>(em: EntityManager, caller: Caller, bus: EnvChangeBus, kind: K, projectId: string, input: CreatePrimitiveInput): Promise<DefinitionOf<K>> {
  const project = await findProject(em, projectId);
  // Every environment of the project gets the new definition's state: a key restricted to some environments may not.
  const actor = await authorize(em, caller, project.orgId, { action: 'write', resourceKey: input.key, projectId, allEnvironments: true });
  const schema = kind === 'config' && input.schema ? checkedSchema(input.schema) : null;
  const shape: ValueShape & Pick<Primitive, 'variants'> = { kind, valueType: kind === 'flag' ? (input.valueType ?? 'boolean') : 'json', variants: { ...input.variants }, schema };
  // Every problem of the definition at once: the variants, the default value, the rules.
  const problems: Problems = variantProblems(shape.variants, (value, field) => valueProblems(shape, value, field));
  const defaultValue = resolveValue(shape, { value: input.defaultValue, variant: input.defaultVariant }, 'defaultValue', 'defaultVariant', problems);
  const split = splitLegacyRules(input.rules ?? []);
  const rules = resolveRules(shape, split.rules as Rule[], problems);
  refuseIfAny(problems);
  const now = caller.now;
  const primitive = await mapUniqueViolation(
    () =>
      changeEnvironments(em, bus, now, async (changes) => {
        const { tx } = changes;
        if (await tx.findOne(PrimitiveEntity, { projectId, kind, key: input.key })) throw keyInUse(kind, input.key);
        await checkSegmentReferences(tx, projectId, rules);
        const primitive = tx.create(PrimitiveEntity, {
          orgId: project.orgId,
          projectId,
          kind,
          key: input.key,
          name: input.name,
          description: input.description ?? null,
          valueType: shape.valueType,
          defaultValue,
          clientVisible: input.clientVisible ?? false,
          tags: uniqueTags(input.tags ?? []),
          maintainer: input.maintainer ?? null,
          metadata: { ...input.metadata },
          variants: shape.variants,
          schema,
          createdAt: now,
          updatedAt: now,
        });
        const envs = await tx.find(EnvironmentEntity, { projectId });
        for (const env of envs) {
          tx.create(PrimitiveStateEntity, {
            primitiveId: primitive.id,
            envId: env.id,
            value: defaultValue,
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

/** A schema Gradual accepts, or `400` naming `schema`. */
function checkedSchema(schema: ConfigSchema): ConfigSchema {
  const compiled = compileSchema(schema);
  if ('problem' in compiled) throw invalid({ schema: compiled.problem });
  return schema;
}

/** Tags in the order given, each once. */
const uniqueTags = (tags: readonly string[]) => [...new Set(tags)];

export interface UpdatePrimitiveInput {
  name?: string | undefined;
  description?: string | null | undefined;
  clientVisible?: boolean | undefined;
  tags?: string[] | undefined;
  maintainer?: string | null | undefined;
  metadata?: FlagMetadata | undefined;
  variants?: Variants | undefined;
  /** A config's JSON Schema; null removes it. */
  schema?: ConfigSchema | null | undefined;
}

/**
 * The definition `key` of the project, for a caller allowed to write it (every environment of
 * the project: a key restricted to environments may not), or 404.
 */
async function definitionForWrite(em: EntityManager, caller: Caller, kind: PrimitiveKind, projectId: string, key: string) {
  const project = await findProject(em, projectId);
  const actor = await authorize(em, caller, project.orgId, { action: 'write', resourceKey: key, projectId, allEnvironments: true });
  const found = key.length <= KEY_MAX_LENGTH ? await em.findOne(PrimitiveEntity, { projectId, kind, key }) : null;
  if (!found) throw new DomainError('not_found', `No ${kind} "${key}" in this project.`);
  return { project, actor, found };
}

/**
 * The definition locked for a write in the change set's transaction, and as it was (its ETag's
 * source): `If-Match` is checked against it; one deleted meanwhile is `not_found`.
 */
async function lockDefinition<K extends PrimitiveKind>(tx: EntityManager, kind: K, id: string, key: string, ifMatch: string | undefined) {
  const primitive = await tx.findOne(PrimitiveEntity, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (!primitive) throw new DomainError('not_found', `No ${kind} "${key}" in this project.`);
  const before = toDefinitionDto(kind, primitive);
  checkIfMatch(ifMatch, before);
  return { primitive, before };
}

/**
 * Changes a definition's name, description, tags, maintainer, metadata or client visibility: the
 * change and its audit row (`flag.updated` / `config.updated`, the changed fields before and after)
 * commit together. `ifMatch` is checked against the definition's ETag (getPrimitive's). A change
 * of `clientVisible` changes what client keys evaluate, and one of `metadata` what every evaluation
 * returns, so every environment of the project gets a new version (the write reaches every
 * environment, as creating the definition does). A write
 * that changes nothing commits nothing. An archived definition's metadata can be edited.
 */
export async function updatePrimitive<K extends PrimitiveKind>(
  em: EntityManager,
  caller: Caller,
  bus: EnvChangeBus,
  kind: K,
  projectId: string,
  key: string,
  input: UpdatePrimitiveInput,
  ifMatch?: string,
): Promise<DefinitionOf<K>> {
  const { project, actor, found } = await definitionForWrite(em, caller, kind, projectId, key);
  if (input.schema !== undefined && kind === 'flag') throw invalid({ schema: 'a flag has a value type: schemas are for configs' });
  const schema = input.schema === undefined ? undefined : input.schema === null ? null : checkedSchema(input.schema);
  if (input.variants !== undefined) {
    const shape = { ...found, ...(schema !== undefined ? { schema } : {}) };
    refuseIfAny(variantProblems(input.variants, (value, field) => valueProblems(shape, value, field)));
  }
  const now = caller.now;
  const primitive = await changeEnvironments(em, bus, now, async (changes) => {
    const { tx } = changes;
    const { primitive, before } = await lockDefinition(tx, kind, found.id, key, ifMatch);
    if (input.variants !== undefined) {
      await checkVariantsInUse(tx, primitive, input.variants);
      primitive.variants = { ...input.variants };
    }
    if (schema !== undefined) {
      primitive.schema = schema;
      if (schema) await checkValuesFit(tx, primitive);
    }
    if (input.name !== undefined) primitive.name = input.name;
    if (input.description !== undefined) primitive.description = input.description;
    if (input.clientVisible !== undefined) primitive.clientVisible = input.clientVisible;
    if (input.tags !== undefined) primitive.tags = uniqueTags(input.tags);
    if (input.maintainer !== undefined) primitive.maintainer = input.maintainer;
    if (input.metadata !== undefined) primitive.metadata = { ...input.metadata };
    const after = toDefinitionDto(kind, primitive);
    if (isDeepStrictEqual(before, after)) return primitive;
    primitive.updatedAt = now;
    await tx.flush();
    if (before.clientVisible !== after.clientVisible || !isDeepStrictEqual(before.metadata, after.metadata) || !isDeepStrictEqual(before.variants, after.variants)) {
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

/**
 * `409 variant_in_use` when `next` renames, changes or removes a declared variant whose value the
 * definition's default value, a state's value or rule, or a live rollout's candidate holds, in
 * any environment. The definition's row is locked: writes of values wait for this one.
 */
async function checkVariantsInUse(tx: EntityManager, primitive: Primitive, next: Variants): Promise<void> {
  if (Object.keys(primitive.variants).length === 0) return;
  const states = await tx.find(PrimitiveStateEntity, { primitiveId: primitive.id }, { fields: ['value', 'rules'] });
  const rollouts = await tx.find(RolloutEntity, { primitiveId: primitive.id, status: { $in: [...LIVE_STATUSES] }, gatesRules: false }, { fields: ['newValue'] });
  const used = [primitive.defaultValue, ...states.flatMap((s) => [s.value, ...s.rules.map((r) => r.value)]), ...rollouts.map((r) => r.newValue)];
  const changed = variantsInUseChanged(primitive.variants, next, used);
  if (changed.length) {
    throw new DomainError('variant_in_use', `The variants ${changed.map((n) => `"${n}"`).join(', ')} are in use (a value, rule or live rollout serves them): they keep their names and values.`, {
      details: { variants: changed },
    });
  }
}

/**
 * `400` naming every value the config holds that its (new) schema refuses: the default value, the
 * variants, and each environment's value, rules and live rollout's candidate
 * (`environments.<envKey>.value…`).
 */
async function checkValuesFit(tx: EntityManager, primitive: Primitive): Promise<void> {
  const fields: Problems = { ...valueProblems(primitive, primitive.defaultValue, 'defaultValue') };
  Object.assign(fields, variantProblems(primitive.variants, (value, field) => valueProblems(primitive, value, field)));
  const envs = new Map((await tx.find(EnvironmentEntity, { projectId: primitive.projectId }, { fields: ['id', 'key'] })).map((e) => [e.id, e.key]));
  for (const state of await tx.find(PrimitiveStateEntity, { primitiveId: primitive.id })) {
    const at = `environments.${envs.get(state.envId) ?? state.envId}`;
    Object.assign(fields, valueProblems(primitive, state.value, `${at}.value`));
    state.rules.forEach((rule, i) => Object.assign(fields, valueProblems(primitive, rule.value, `${at}.rules.${i}.value`)));
  }
  for (const r of await tx.find(RolloutEntity, { primitiveId: primitive.id, status: { $in: [...LIVE_STATUSES] }, gatesRules: false })) {
    Object.assign(fields, valueProblems(primitive, r.newValue, `environments.${envs.get(r.envId) ?? r.envId}.rollout.newValue`));
  }
  refuseIfAny(fields);
}

/** The fields a PATCH edits, as its audit row records them (a config's schema included). */
const EDITABLE = ['name', 'description', 'clientVisible', 'tags', 'maintainer', 'metadata', 'variants', 'schema'] as const;

/** The fields of `dto` whose value differs in `other` (an audit row's before or after). */
function changedFields(dto: Flag | Config, other: Flag | Config): Record<string, unknown> {
  const editable = (d: Flag | Config): Record<string, unknown> => ({ ...d });
  const mine = editable(dto);
  const theirs = editable(other);
  const out: Record<string, unknown> = {};
  for (const field of EDITABLE) if (!isDeepStrictEqual(mine[field], theirs[field])) out[field] = mine[field];
  return out;
}

export interface PrimitiveListQuery {
  /** `exclude` (default): live definitions only; `include`: all; `only`: archived ones. */
  archived?: 'exclude' | 'include' | 'only' | undefined;
  /** Only definitions carrying this tag. */
  tag?: string | undefined;
}

export async function listPrimitives<K extends PrimitiveKind>(em: EntityManager, caller: Caller, kind: K, projectId: string, query: PrimitiveListQuery = {}): Promise<DefinitionOf<K>[]> {
  const project = await findProject(em, projectId);
  await authorize(em, caller, project.orgId, { action: 'read', projectId });
  const archived = query.archived ?? 'exclude';
  const where = archived === 'exclude' ? { projectId, kind, archivedAt: null } : archived === 'only' ? { projectId, kind, archivedAt: { $ne: null } } : { projectId, kind };
  const rows = await em.find(PrimitiveEntity, where, { orderBy: { key: 'asc' } });
  const tag = query.tag;
  return rows.filter((p) => tokenSees(caller, undefined, p.key) && (tag === undefined || p.tags.includes(tag))).map((p) => toDefinitionDto(kind, p));
}

/** One definition, archived or not (its ETag is etagOf the answer: the route sends it). */
export async function getPrimitive<K extends PrimitiveKind>(em: EntityManager, caller: Caller, kind: K, projectId: string, key: string): Promise<DefinitionOf<K>> {
  const project = await findProject(em, projectId);
  await authorize(em, caller, project.orgId, { action: 'read', projectId, resourceKey: key });
  const found = key.length <= KEY_MAX_LENGTH ? await em.findOne(PrimitiveEntity, { projectId, kind, key }) : null;
  if (!found) throw new DomainError('not_found', `No ${kind} "${key}" in this project.`);
  return toDefinitionDto(kind, found);
}

/** `409 in_use` naming what still references the definition, unless nothing does. */
async function checkUnreferenced(tx: EntityManager, primitive: Primitive, verb: 'archived' | 'deleted', now: Date): Promise<void> {
  const fields = await primitiveReferrers(tx, primitive, now);
  if (Object.keys(fields).length) {
    throw new DomainError('in_use', `The ${primitive.kind} "${primitive.key}" cannot be ${verb} while a rollout of it is active or paused or a pending proposal targets it.`, { fields });
  }
}

/**
 * Archives (`archive: true`) or restores a definition. Archiving is refused while a rollout of it
 * is live or a pending proposal targets it (`409 in_use`, the referrers in `fields`); while
 * archived every environment serves its base value to everyone (the ruleset marks it
 * `archived`) and its values, rules and rollouts cannot change. The change, a new version of
 * every environment of the project and the audit row (`flag.archived` / `flag.restored`) commit
 * together; archiving an archived definition (restoring a live one) answers it unchanged and
 * commits nothing.
 */
export async function setArchived<K extends PrimitiveKind>(
  em: EntityManager,
  caller: Caller,
  bus: EnvChangeBus,
  kind: K,
  projectId: string,
  key: string,
  archive: boolean,
  ifMatch?: string,
): Promise<DefinitionOf<K>> {
  const { project, actor, found } = await definitionForWrite(em, caller, kind, projectId, key);
  const now = caller.now;
  const primitive = await changeEnvironments(em, bus, now, async (changes) => {
    const { tx } = changes;
    const { primitive } = await lockDefinition(tx, kind, found.id, key, ifMatch);
    if (!!primitive.archivedAt === archive) return primitive;
    if (archive) await checkUnreferenced(tx, primitive, 'archived', now);
    const before = primitive.archivedAt ? iso(primitive.archivedAt) : null;
    primitive.archivedAt = archive ? now : null;
    primitive.updatedAt = now;
    await tx.flush();
    const envs = await tx.find(EnvironmentEntity, { projectId }, { fields: ['id'] });
    for (const env of envs) changes.change(env.id);
    changes.audit(caller, actor, {
      orgId: project.orgId,
      projectId,
      action: archive ? `${kind}.archived` : `${kind}.restored`,
      resourceType: kind,
      resourceKey: primitive.key,
      resourceId: primitive.id,
      previousValue: { archivedAt: before },
      newValue: { archivedAt: archive ? iso(now) : null },
    });
    return primitive;
  });
  return toDefinitionDto(kind, primitive);
}

/**
 * Deletes an archived definition (`409 primitive_not_archived` otherwise) that nothing references
 * (`409 in_use`), with its key typed again as `confirm` (`400 invalid_confirmation`). Its states,
 * rollouts (their target-ID lists go with them, by the rollouts' delete trigger), rollout
 * migration warnings and usage rows go in one transaction with the audit row (`flag.deleted` /
 * `config.deleted`, the definition as it was), and every environment of the project gets a new
 * version. Rollback fire history names rollouts by key and stays.
 */
export async function deletePrimitive(
  em: EntityManager,
  caller: Caller,
  bus: EnvChangeBus,
  kind: PrimitiveKind,
  projectId: string,
  key: string,
  confirm: string | undefined,
  ifMatch?: string,
): Promise<void> {
  const { project, actor, found } = await definitionForWrite(em, caller, kind, projectId, key);
  if (confirm !== found.key) {
    throw new DomainError('invalid_confirmation', `Type the ${kind}'s key ("${found.key}") as confirm to delete it.`, {
      fields: { confirm: confirm === undefined || confirm === '' ? `required: the ${kind} key` : `does not match the ${kind} key` },
    });
  }
  const now = caller.now;
  await changeEnvironments(em, bus, now, async (changes) => {
    const { tx } = changes;
    const { primitive, before } = await lockDefinition(tx, kind, found.id, key, ifMatch);
    if (!primitive.archivedAt) throw new DomainError('primitive_not_archived', `Archive the ${kind} "${primitive.key}" before deleting it.`);
    await checkUnreferenced(tx, primitive, 'deleted', now);
    const rollouts = await tx.find(RolloutEntity, { primitiveId: primitive.id }, { fields: ['id'] });
    if (rollouts.length) await tx.nativeDelete(RolloutMigrationWarningEntity, { rolloutId: { $in: rollouts.map((r) => r.id) } });
    // States, rollouts (and through their trigger the target-ID lists) and usage rows cascade.
    await tx.nativeDelete(PrimitiveEntity, { id: primitive.id });
    const envs = await tx.find(EnvironmentEntity, { projectId }, { fields: ['id'] });
    for (const env of envs) changes.change(env.id);
    changes.audit(caller, actor, {
      orgId: project.orgId,
      projectId,
      action: `${kind}.deleted`,
      resourceType: kind,
      resourceKey: primitive.key,
      resourceId: primitive.id,
      previousValue: before,
    });
  });
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
/** The state field a write replaces, with its new content as sent (values or variant names). */
type StateChange = { field: 'value'; next: ValueOrVariant } | { field: 'rules'; next: Rule[] };
/** The state field a write replaces, with its new content as stored. */
type StateWrite = { field: 'value'; next: JsonValue } | { field: 'rules'; next: Rule[] };

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
  if (primitive.archivedAt) throw primitiveArchived(kind, primitive.key);
  // Checked before the transaction, and resolved again in it against the locked definition's variants.
  const writeOf = (p: Primitive): StateWrite => {
    const problems: Problems = {};
    const write: StateWrite =
      change.field === 'value' ? { field: 'value', next: resolveValue(p, change.next, 'value', 'variant', problems) } : { field: 'rules', next: resolveRules(p, change.next, problems) };
    refuseIfAny(problems);
    return write;
  };
  writeOf(primitive);
  const now = caller.now;
  const result = await changeEnvironments(em, bus, now, async (changes) => {
    const { tx } = changes;
    // The definition's row, shared: archiving waits for this write, or this write sees the archive.
    const definition = await tx.findOneOrFail(PrimitiveEntity, { id: primitive.id }, { lockMode: LockMode.PESSIMISTIC_READ, refresh: true });
    if (definition.archivedAt) throw primitiveArchived(kind, primitive.key);
    const write = writeOf(definition);
    const state = await tx.findOneOrFail(PrimitiveStateEntity, { primitiveId: primitive.id, envId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (change.field === 'rules') await checkSegmentReferences(tx, env.projectId, change.next);
    const rollout = await findCurrentRollout(tx, envId, primitive.id);
    checkIfMatch(ifMatch, toStateDto(kind, primitive, state, rollout));
    const previous = state[write.field];
    if (isDeepStrictEqual(previous, write.next)) return { state, rollout };
    if (write.field === 'value') state.value = write.next;
    else state.rules = write.next;
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
      newValue: write.next,
    });
    return { state, rollout };
  });
  return toStateDto(kind, primitive, result.state, result.rollout);
}

/** The new base value: `value`, or the declared variant `variant` names. */
export const setValue = <K extends PrimitiveKind>(em: EntityManager, caller: Caller, bus: EnvChangeBus, kind: K, envId: string, key: string, body: ValueOrVariant, ifMatch?: string) =>
  updateState(em, caller, bus, kind, envId, key, { field: 'value', next: body }, ifMatch);

export const setRules = <K extends PrimitiveKind>(em: EntityManager, caller: Caller, bus: EnvChangeBus, kind: K, envId: string, key: string, rules: Rule[], ifMatch?: string) =>
  updateState(em, caller, bus, kind, envId, key, { field: 'rules', next: rules }, ifMatch);
