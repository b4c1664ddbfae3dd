import { z } from 'zod';
import { CONVERGENCE_LAGGARDS_MAX, CONVERGENCE_WINDOW_MINUTES_DEFAULT, CONVERGENCE_WINDOW_MINUTES_MAX } from '../limits.js';
import { example, named } from '../openapi-meta.js';
import { Timestamp } from './common.js';

const Label = (max: number) => z.string().min(1).max(max).regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces');

export const RulesetAck = example(
  named(
    'RulesetAck',
    z.object({
      instanceId: Label(64).describe('A random id the SDK instance draws once at start (a process, a pod).'),
      sdk: z.object({ name: Label(64), version: Label(32) }).describe('The SDK and its version (`@gradual/sdk` 0.1.0).'),
      service: Label(128).optional().describe('The application the instance belongs to (the SDK\'s `serviceName`).'),
      version: z.number().int().min(0).describe('The ruleset version the instance serves now: applied, not merely received.'),
      mode: z.enum(['stream', 'poll']).describe('How the instance keeps its ruleset current.'),
    }),
    'An SDK instance saying which ruleset version it serves: sent when it applies a new one and about every 30 s (docs/convergence.md).',
  ),
  { instanceId: 'c8a3e0d4-5d7f-4c41-9d0e-8f7e2b7c9a10', sdk: { name: '@gradual/sdk', version: '0.1.0' }, service: 'checkout', version: 42, mode: 'stream' },
);
export type RulesetAck = z.infer<typeof RulesetAck>;

export const ConvergenceQuery = z.object({
  windowMinutes: z.coerce
    .number()
    .int()
    .min(1)
    .max(CONVERGENCE_WINDOW_MINUTES_MAX)
    .optional()
    .describe(`Instances count when they acknowledged within this many minutes (default ${CONVERGENCE_WINDOW_MINUTES_DEFAULT}).`),
});

const InstanceSeen = named(
  'SdkInstanceSeen',
  z.object({
    instanceId: z.string(),
    sdk: z.object({ name: z.string(), version: z.string() }),
    service: z.string().nullable(),
    mode: z.enum(['stream', 'poll']),
    version: z.number().int().describe('The ruleset version it serves.'),
    lastSeen: Timestamp,
  }),
);

export const Convergence = named(
  'Convergence',
  z.object({
    envId: z.string(),
    version: z.number().int().describe('The environment\'s current ruleset version.'),
    at: Timestamp,
    windowSeconds: z.number().int(),
    instances: z.number().int().describe('SDK instances that acknowledged within the window.'),
    current: z.number().int().describe('Of those, how many serve the current version.'),
    currentShare: z.number().nullable().describe('`current / instances` (null without instances).'),
    versions: z
      .array(
        z.object({
          version: z.number().int(),
          committedAt: Timestamp.nullable().describe('When the write that made this version committed (null when unknown).'),
          instances: z.number().int().describe('Instances that acknowledged this version.'),
          p50Ms: z.number().nullable().describe('Median time from the commit to an instance\'s first acknowledgement of it.'),
          p99Ms: z.number().nullable(),
        }),
      )
      .describe('The latest versions instances acknowledged, newest first (at most 5).'),
    laggards: z.array(InstanceSeen).describe(`Instances seen within the window on an older version, oldest version first (at most ${CONVERGENCE_LAGGARDS_MAX}).`),
    bySdk: z.array(z.object({ name: z.string(), version: z.string(), instances: z.number().int(), current: z.number().int() })),
  }),
  'Which ruleset version the environment\'s SDK instances serve (docs/convergence.md).',
);
export type Convergence = z.infer<typeof Convergence>;
