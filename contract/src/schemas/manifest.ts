import { z } from 'zod';
import { example, named } from '../openapi-meta.js';
import { JsonValue, Name, ResourceKey, Timestamp } from './common.js';
import { ConfigSchema, FlagValueType } from './primitives.js';
import { PrimitiveKind } from './rollouts.js';
import { Variants } from './variants.js';

/** Where the OpenFeature CLI publishes its manifest schema (what its manifests carry as `$schema`). */
export const OPENFEATURE_MANIFEST_SCHEMA_URL = 'https://raw.githubusercontent.com/open-feature/cli/refs/heads/main/schema/v0/flag-manifest.json';

export const ManifestFlagType = named(
  'ManifestFlagType',
  z.enum(['boolean', 'string', 'integer', 'float', 'object']),
  'The OpenFeature CLI\'s flag types: a boolean or string flag as such; a number flag is `integer` when its default value and every variant are whole numbers, else `float`; a config is `object`.',
);
export type ManifestFlagType = z.infer<typeof ManifestFlagType>;

export const ManifestGradualExtension = named(
  'ManifestGradualExtension',
  z.object({
    kind: PrimitiveKind,
    name: z.string(),
    valueType: FlagValueType.optional(),
    variants: Variants,
    tags: z.array(z.string()),
    maintainer: z.string().nullable(),
    clientVisible: z.boolean(),
    schema: ConfigSchema.optional(),
  }),
  'What Gradual knows beyond the OpenFeature manifest: the flag\'s kind and name, its declared variants (`gradual types` types a flag with variants as the union of their values), tags, maintainer, client visibility and a config\'s JSON Schema (its type in `gradual types`).',
);

export const ManifestFlag = named(
  'ManifestFlag',
  z.object({
    flagType: ManifestFlagType,
    defaultValue: JsonValue,
    description: z.string().optional(),
    'x-gradual': ManifestGradualExtension,
  }),
);

export const OpenFeatureManifest = example(
  named(
    'OpenFeatureManifest',
    z.object({
      $schema: z.string(),
      flags: z.record(ManifestFlag).describe('By key: the project\'s live flags and configs the caller may read (a key a flag and a config share is the config\'s, as evaluation by key answers it).'),
    }),
    'The project\'s flags as an OpenFeature CLI flag manifest (docs/typed-flags.md): `flagType`, `defaultValue` and `description` as the CLI reads them, and Gradual\'s own fields under `x-gradual`.',
  ),
  {
    $schema: OPENFEATURE_MANIFEST_SCHEMA_URL,
    flags: {
      'new-checkout': {
        flagType: 'boolean',
        defaultValue: false,
        description: 'The one-page checkout',
        'x-gradual': { kind: 'flag', name: 'New checkout', valueType: 'boolean', variants: { on: true, off: false }, tags: ['team:checkout'], maintainer: 'ann@acme.test', clientVisible: false },
      },
    },
  },
);
export type OpenFeatureManifest = z.infer<typeof OpenFeatureManifest>;

/**
 * The OpenFeature CLI's Manifest Management API (its `pull` and `push`), served under a project:
 * `openfeature pull --provider-url <server>/api/v1/projects/<id>`.
 */
export const SyncFlagType = named(
  'SyncFlagType',
  z.enum(['boolean', 'string', 'integer', 'float', 'object']),
  'As in the manifest: `integer` and `float` are number flags, `object` a config.',
);

export const SyncFlag = named(
  'SyncFlag',
  z.object({
    key: z.string(),
    name: z.string(),
    type: SyncFlagType,
    description: z.string().nullable().optional(),
    defaultValue: JsonValue,
  }),
);

export type SyncFlag = z.infer<typeof SyncFlag>;

export const SyncManifest = named('SyncManifest', z.object({ flags: z.array(SyncFlag) }), 'The project\'s live flags and configs the caller may read, as the OpenFeature CLI\'s `pull` reads them.');

export const SyncFlagResponse = named('SyncFlagResponse', z.object({ flag: SyncFlag, updatedAt: Timestamp }));

export const SyncCreateFlagRequest = named(
  'SyncCreateFlagRequest',
  z
    .object({
      key: ResourceKey,
      type: SyncFlagType,
      name: Name.optional(),
      description: z.string().max(2000).nullable().optional(),
      defaultValue: JsonValue,
    })
    .strict(),
  'A new flag (`boolean`, `string`, `integer`, `float`: a number flag) or config (`object`), as the OpenFeature CLI\'s `push` sends it; `name` defaults to the key.',
);

export const SyncUpdateFlagRequest = named(
  'SyncUpdateFlagRequest',
  z
    .object({
      key: z.string(),
      type: SyncFlagType,
      name: Name.optional(),
      description: z.string().max(2000).nullable().optional(),
      defaultValue: JsonValue,
    })
    .strict(),
  'The name and description change; the type and default value are fixed at creation (`409 definition_fixed` when they differ; `integer` and `float` are the same number type). `key` must be the path\'s.',
);
