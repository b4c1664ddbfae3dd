/**
 * The project's flags and configs as an OpenFeature CLI flag manifest (docs/typed-flags.md), what
 * `gradual types` generates typed accessors from.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { OPENFEATURE_MANIFEST_SCHEMA_URL, type ManifestFlagType, type OpenFeatureManifest } from '@gradual/contract';
import { PrimitiveEntity, type Primitive } from '../../db/entities/index.js';
import { authorize, tokenSees, type Caller } from '../access/authorize.js';
import { findProject } from '../common/lookup.js';

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
