import { z } from 'zod';
import { KEY_MAX_LENGTH } from '../limits.js';
import { named } from '../openapi-meta.js';
import { Id, Timestamp } from './common.js';

export const TokenAction = named('TokenAction', z.enum(['read', 'write']));
export const ApiKeyKind = named(
  'ApiKeyKind',
  z.enum(['api', 'agent', 'sdk', 'client']),
  '`api` and `agent` (`svc_…`): scripts, pipelines and coding agents, restricted as asked. `sdk` (`sdk_…`): a server-side SDK or OFREP provider, bound to one environment, read only. `client` (`pub_…`): safe to ship in a web page or app, bound to one environment, evaluation only (OFREP and `POST /envs/{envId}/evaluate`), and only flags and configs marked `clientVisible`.',
);

/** An origin a browser sends (`https://app.example.com`, with a port when not the scheme's default). */
export const AllowedOrigin = z
  .string()
  .max(255)
  .regex(/^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$/, 'an origin: scheme, host and optional port, e.g. https://app.example.com');

/** IPv4 or IPv6 CIDR (a bare address means a single host). Parsed again by the server. */
const Cidr = z
  .string()
  .max(64)
  .regex(/^[0-9A-Fa-f:.]+(\/\d{1,3})?$/, 'an IPv4 or IPv6 address or CIDR block');

export const CreateApiKeyRequest = named(
  'CreateApiKeyRequest',
  z.object({
    name: z.string().trim().min(1).max(64),
    kind: ApiKeyKind.optional(),
    actions: z.array(TokenAction).min(1).max(2).optional(),
    environments: z.array(Id).max(1000).optional(),
    resources: z.array(z.string().min(1).max(KEY_MAX_LENGTH)).max(1000).optional(),
    ipAllowlist: z.array(Cidr).max(100).optional(),
    rateLimitPerMin: z.number().int().min(1).max(100_000).optional().describe("Requests a minute this key may make (its own token bucket, beside its organization's). Default 600; for a client key 30,000, the cap of all its visitors together (each client address has a bucket of its own, and the organization's client keys an aggregate of their own)."),
    ttlSeconds: z.number().int().min(3600).max(31_536_000).optional(),
    requiresApproval: z.boolean().optional(),
    allowedOrigins: z.array(AllowedOrigin).max(50).optional().describe('Client keys only: the web origins whose pages may evaluate with this key (CORS). Omitted: the server\'s default (`CORS_ALLOWED_ORIGINS`).'),
  }),
  'Omitted restrictions default to unrestricted: both actions, every environment, every resource, any IP. `sdk` and `client` keys need `environments` with exactly one environment and take only the `read` action; `allowedOrigins` is for client keys.',
);

export const ApiKey = named(
  'ApiKey',
  z.object({
    id: Id,
    name: z.string(),
    kind: ApiKeyKind,
    tokenPrefix: z.string(),
    actions: z.array(TokenAction),
    environments: z.array(Id).nullable(),
    resources: z.array(z.string()).nullable(),
    ipAllowlist: z.array(z.string()).nullable(),
    rateLimitPerMin: z.number().int(),
    expiresAt: Timestamp.nullable(),
    requiresApproval: z.boolean(),
    allowedOrigins: z.array(z.string()).nullable(),
    createdAt: Timestamp,
    createdByUserId: Id.nullable(),
    lastUsedAt: Timestamp.nullable(),
    revokedAt: Timestamp.nullable(),
  }),
  '`environments`, `resources` and `ipAllowlist` are null when unrestricted; `allowedOrigins` is null except on client keys that set their own.',
);
export type ApiKey = z.infer<typeof ApiKey>;

export const MintedApiKey = named(
  'MintedApiKey',
  ApiKey.extend({ token: z.string(), warning: z.string() }),
  'The raw `token` is returned once, here; only its SHA-256 is stored.',
);
