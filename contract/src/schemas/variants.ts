import { z } from 'zod';
import { EVALUATION_BRANCH_PATTERN, VARIANT_NAME_MAX_LENGTH, VARIANTS_MAX_ENTRIES } from '../limits.js';
import { example, named } from '../openapi-meta.js';
import { JsonValue } from './common.js';

export const VariantName = example(
  z
    .string()
    .min(1)
    .max(VARIANT_NAME_MAX_LENGTH)
    .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'a letter or digit, then letters, digits and ".", "_", "-"')
    .refine((name) => !EVALUATION_BRANCH_PATTERN.test(name), 'default, rule-<n>, target-id, rollout-new and rollout-base name branches, not variants'),
  'on',
);

/** Where a write may name one of the flag's declared variants instead of repeating its value. */
export const VARIANT_REFERENCE = 'Instead of the value: the name of one of the flag\'s or config\'s declared `variants`, resolved to its value when written (send one of the two).';

export const Variants = example(
  named(
    'Variants',
    z
      .record(VariantName, JsonValue)
      .refine((v) => Object.keys(v).length <= VARIANTS_MAX_ENTRIES, `At most ${VARIANTS_MAX_ENTRIES} variants.`),
    `Named values (up to ${VARIANTS_MAX_ENTRIES}), each value given once and of the flag's type: evaluation reports the name of the value it served as its \`variant\` (docs/bucketing.md), and writes may name a variant instead of repeating its value. A variant that a value, rule or live rollout of any environment (or the default value) uses cannot be renamed, changed or removed (\`409 variant_in_use\`).`,
  ),
  { control: 'classic', 'treatment-a': 'compact', 'treatment-b': 'wide' },
);
export type Variants = z.infer<typeof Variants>;
