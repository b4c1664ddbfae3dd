/**
 * The project's flags and configs as an OpenFeature CLI flag manifest (docs/typed-flags.md), what
 * `gradual types` generates typed accessors from.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { valueKey } from '@gradual/sdk/evaluation';
import { KEY_MAX_LENGTH, OPENFEATURE_MANIFEST_SCHEMA_URL, type ManifestFlagType, type OpenFeatureManifest, type SyncFlag } from '@gradual/contract';
import { PrimitiveEntity, type Primitive } from '../../db/entities/index.js';
import { DomainError, invalid } from '../../domain/errors.js';
import { authorize, tokenSees, type Caller } from '../access/authorize.js';
import { findProject, keyInUse } from '../common/lookup.js';
import type { EnvChangeBus } from '../environments/env-changes.js';
import { primitiveArchived } from '../rollouts/rollouts.service.js';
import { createPrimitive, updatePrimitive } from './primitives.service.js';

/**
 * The OpenFeature CLI's type of a definition: a number flag is `integer` while its default value
 * and every declared variant are whole numbers (generators for typed languages then use an
 * integer type), else `float`.
 */
function flagTypeOf(p: Primitive): ManifestFlagType {
  if (p.kind === 'config' || p.valueType === 'json') return 'object';
  if (p.valueType !== 'number') return p.valueType;
  const values = [p.defaultValue, ...Object.values(p.variants)];
  return values.every((v) => Number.isInteger(v)) ? 'integer' : 'float';
}

function manifestFlag(p: Primitive): OpenFeatureManifest['flags'][string] {
  return {
    flagType: flagTypeOf(p),
    defaultValue: p.defaultValue,
    ...(p.description ? { description: p.description } : {}),
    'x-gradual': {
      kind: p.kind,
      name: p.name,
      ...(p.kind === 'flag' && p.valueType !== 'json' ? { valueType: p.valueType } : {}),
      variants: { ...p.variants },
      tags: [...p.tags],
      maintainer: p.maintainer ?? null,
      clientVisible: p.clientVisible,
      ...(p.kind === 'config' && p.schema ? { schema: p.schema } : {}),
    },
  };
}

/**
 * Every live flag and config of the project the caller may read, by key (its ETag is etagOf the
 * answer). Configs come first, so a key a flag and a config share is the config's, as evaluation
 * by key answers it (the ruleset orders them so).
 */
export async function getManifest(em: EntityManager, caller: Caller, projectId: string): Promise<OpenFeatureManifest> {
  const project = await findProject(em, projectId);
  await authorize(em, caller, project.orgId, { action: 'read', projectId });
  const rows = await em.find(PrimitiveEntity, { projectId, archivedAt: null }, { orderBy: { kind: 'asc', key: 'asc' } });
  const flags = new Map<string, OpenFeatureManifest['flags'][string]>();
  for (const p of rows) if (!flags.has(p.key) && tokenSees(caller, undefined, p.key)) flags.set(p.key, manifestFlag(p));
  // fromEntries defines every key as an own property ("__proto__" included).
  return { $schema: OPENFEATURE_MANIFEST_SCHEMA_URL, flags: Object.fromEntries(flags) };
}

// The OpenFeature CLI's Manifest Management API (`openfeature pull` and `push`): the same flags as a
// list, and creating and describing flags through it.

type SyncFlagType = SyncFlag['type'];

/** A manifest entry as the CLI's API lists it. */
const syncFlagOf = (key: string, f: OpenFeatureManifest['flags'][string]): SyncFlag => ({
  key,
  name: f['x-gradual'].name,
  type: f.flagType,
  ...(f.description ? { description: f.description } : {}),
  defaultValue: f.defaultValue,
});

/** The manifest as a list (`GET …/openfeature/v0/manifest`). */
export async function getSyncManifest(em: EntityManager, caller: Caller, projectId: string): Promise<{ flags: SyncFlag[] }> {
  const manifest = await getManifest(em, caller, projectId);
  return { flags: Object.entries(manifest.flags).map(([key, f]) => syncFlagOf(key, f)) };
}

export interface SyncFlagInput {
  key: string;
  type: SyncFlagType;
  name?: string | undefined;
  description?: string | null | undefined;
  defaultValue?: unknown;
}

const isNumberType = (type: SyncFlagType) => type === 'integer' || type === 'float';

/** The definition `key` names as the manifest does (a config before a flag of the same key), or 404. */
async function findByKey(em: EntityManager, projectId: string, key: string): Promise<Primitive> {
  const found = key.length <= KEY_MAX_LENGTH ? await em.find(PrimitiveEntity, { projectId, key }, { orderBy: { kind: 'asc' }, limit: 1 }) : [];
  if (!found[0]) throw new DomainError('not_found', `No flag or config "${key}" in this project.`);
  return found[0];
}

/**
 * Creates a flag (`boolean`, `string`; `integer` and `float`: a number flag) or a config
 * (`object`) as createPrimitive does; a key a flag or a config has already is `409 key_in_use`.
 */
export async function createSyncFlag(em: EntityManager, caller: Caller, bus: EnvChangeBus, projectId: string, input: SyncFlagInput): Promise<{ flag: SyncFlag; updatedAt: string }> {
  const project = await findProject(em, projectId);
  await authorize(em, caller, project.orgId, { action: 'read', projectId, resourceKey: input.key });
  const taken = input.key.length <= KEY_MAX_LENGTH ? await em.findOne(PrimitiveEntity, { projectId, key: input.key }) : null;
  if (taken) throw keyInUse(taken.kind, input.key);
  if (input.type === 'integer' && !Number.isInteger(input.defaultValue)) throw invalid({ defaultValue: 'must be a whole number (type integer)' });
  const common = { key: input.key, name: input.name ?? input.key, defaultValue: input.defaultValue, ...(input.description ? { description: input.description } : {}) };
  const created =
    input.type === 'object'
      ? await createPrimitive(em, caller, bus, 'config', projectId, common)
      : await createPrimitive(em, caller, bus, 'flag', projectId, { ...common, valueType: isNumberType(input.type) ? 'number' : input.type === 'boolean' ? 'boolean' : 'string' });
  const p = await em.findOneOrFail(PrimitiveEntity, { id: created.id }, { refresh: true });
  return { flag: syncFlagOf(p.key, manifestFlag(p)), updatedAt: created.updatedAt };
}

/**
 * Changes a definition's name and description (as updatePrimitive does). Its type and default
 * value are set at creation: a body that differs on them is `409 definition_fixed` naming them
 * (`integer` and `float` are one number type); an archived one is `409 primitive_archived`.
 */
export async function updateSyncFlag(
  em: EntityManager,
  caller: Caller,
  bus: EnvChangeBus,
  projectId: string,
  key: string,
  input: SyncFlagInput,
): Promise<{ flag: SyncFlag; updatedAt: string }> {
  if (input.key !== key) throw invalid({ key: 'must be the key in the path' });
  const project = await findProject(em, projectId);
  await authorize(em, caller, project.orgId, { action: 'read', projectId, resourceKey: key });
  const p = await findByKey(em, projectId, key);
  if (p.archivedAt) throw primitiveArchived(p.kind, key);
  const type = manifestFlag(p).flagType;
  const fields: Record<string, string> = {};
  if (input.type !== type && !(isNumberType(input.type) && isNumberType(type))) fields.type = `is ${type}: set when the ${p.kind} was created`;
  if (input.defaultValue !== undefined && valueKey(input.defaultValue) !== valueKey(p.defaultValue)) {
    fields.defaultValue = `is ${JSON.stringify(p.defaultValue)}: set when the ${p.kind} was created (change an environment's value instead)`;
  }
  if (Object.keys(fields).length) throw new DomainError('definition_fixed', `The ${p.kind} "${key}" keeps its type and default value.`, { fields });
  const updated = await updatePrimitive(em, caller, bus, p.kind, projectId, key, {
    ...(input.name !== undefined ? { name: input.name } : {}),
    // The OpenFeature CLI writes a missing description as "".
    ...(input.description !== undefined ? { description: input.description === '' ? null : input.description } : {}),
  });
  const after = await em.findOneOrFail(PrimitiveEntity, { id: updated.id }, { refresh: true });
  return { flag: syncFlagOf(after.key, manifestFlag(after)), updatedAt: updated.updatedAt };
}
