import { z } from 'zod';
import { example, named } from '../openapi-meta.js';
import { JsonValue } from './common.js';
import { FlagValueType } from './primitives.js';
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
  }),
  'What Gradual knows beyond the OpenFeature manifest: the flag\'s kind and name, its declared variants (`gradual types` types a flag with variants as the union of their values), tags, maintainer and client visibility.',
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
