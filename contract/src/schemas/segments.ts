import { z } from 'zod';
import { example, named } from '../openapi-meta.js';
import { Id, Name, ResourceKey, Timestamp } from './common.js';
import { Condition } from './primitives.js';

export const SegmentRule = example(
  named(
    'SegmentRule',
    z.object({
      description: z.string().max(500).optional(),
      conditions: z.array(Condition).min(1).max(50),
    }),
    'All conditions must match (AND); a context matching any rule (OR) is in the segment. A condition may reference other segments (`in_segment`), never in a cycle.',
  ),
  { description: 'Paying customers in Europe', conditions: [{ attribute: 'plan', operator: 'in', values: ['pro', 'enterprise'] }, { attribute: 'region', operator: 'in', values: ['eu'] }] },
);
export type SegmentRule = z.infer<typeof SegmentRule>;
export const SegmentRules = z.array(SegmentRule).max(100);

export const Segment = named(
  'Segment',
  z.object({
    id: Id,
    projectId: Id,
    key: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    rules: z.array(SegmentRule),
    includedCount: z.number().int(),
    excludedCount: z.number().int(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  }),
  'A named audience of the project. A context is in it when the referring condition\'s attribute is one of its included target IDs; otherwise, unless that value is one of its excluded IDs, when it matches any of its rules.',
);
export type Segment = z.infer<typeof Segment>;

export const CreateSegmentRequest = named(
  'CreateSegmentRequest',
  z.object({
    key: ResourceKey,
    name: Name,
    description: z.string().max(2000).optional(),
    rules: SegmentRules.optional(),
  }),
);

export const UpdateSegmentRequest = named(
  'UpdateSegmentRequest',
  z
    .object({
      name: Name.optional(),
      description: z.string().max(2000).nullable().optional(),
      rules: SegmentRules.optional(),
    })
    .refine((body) => Object.values(body).some((v) => v !== undefined), 'Send at least one of name, description, rules.'),
  'Omitted fields keep their value; `rules` replaces all rules.',
);

export const SegmentTargetList = named(
  'SegmentTargetList',
  z.enum(['included', 'excluded']),
  '`included`: always in the segment; `excluded`: never by its rules (included wins).',
);
export type SegmentTargetList = z.infer<typeof SegmentTargetList>;

export const SegmentReferrers = named(
  'SegmentReferrers',
  z.object({
    referrers: z.array(z.string()).describe('`flag.<key>`, `config.<key>` and `segment.<key>` that reference it, each once.'),
  }),
);
