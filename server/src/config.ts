import ipaddr from 'ipaddr.js';
import { z } from 'zod';

const flag = z
  .enum(['0', '1', 'true', 'false'], { errorMap: () => ({ message: 'must be 1 or true (on), 0 or false (off)' }) })
  .optional()
  .transform((v) => v === '1' || v === 'true');

/** A URL with one of `schemes` (e.g. `postgres:`), refused with an example otherwise. */
function urlWithScheme(schemes: string[], example: string) {
  const forms = schemes.map((s) => `${s}//`).join(' or ');
  return z.string().refine((v) => URL.canParse(v) && schemes.includes(new URL(v).protocol), `must be a URL starting with ${forms}, e.g. ${example}`);
}

/** The address people use: http(s), and nothing a link could not be built on (no query, fragment or credentials). */
const publicUrl = urlWithScheme(['http:', 'https:'], 'https://flags.example.com').refine((v) => {
  if (!URL.canParse(v)) return true; // refused above
  const url = new URL(v);
  return !url.search && !url.hash && !url.username && !url.password;
}, 'must be a plain address without a query, fragment or user name, e.g. https://flags.example.com');

/** An IP address (IPv6 without brackets) or a host name. */
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;
const host = z
  .string()
  .refine(
    (v) => ipaddr.IPv4.isValidFourPartDecimal(v) || ipaddr.IPv6.isValid(v) || HOST_NAME.test(v),
    'must be an IP address or a host name, e.g. 0.0.0.0, ::, 127.0.0.1 or localhost (an IPv6 address without brackets)',
  );

/** A port, in decimal digits only ("8080", not "8080.0", "0x1f90" or "1e3"). */
const port = z.string().transform((v, ctx) => {
  if (/^\d{1,5}$/.test(v) && Number(v) <= 65535) return Number(v);
  ctx.addIssue({ code: 'custom', message: 'must be a port number, 0 to 65535 (0: the system chooses one)' });
  return z.NEVER;
});

/** WEBHOOK_ALLOWED_NETWORKS: comma-separated IP addresses and CIDR ranges, e.g. "10.1.0.0/16, 192.168.5.7". */
const webhookNetworks = z
  .string()
  .optional()
  .transform((v, ctx) => {
    const entries = (v ?? '').split(',').map((entry) => entry.trim()).filter(Boolean);
    const bad = entries.filter((entry) => !isAddressOrRange(entry));
    if (bad.length) {
      ctx.addIssue({ code: 'custom', message: `must be comma-separated IP addresses and CIDR ranges (e.g. "10.1.0.0/16, 192.168.5.7"); not: ${bad.join(', ')}` });
      return z.NEVER;
    }
    return entries;
  });

/**
 * Express's `trust proxy` setting: how many proxies in front of this server (their hop count), all
 * or none (true, false), or which proxy addresses are trusted (Express's named sets, addresses and
 * CIDR ranges). It decides `req.ip`, the client address that IP allow-lists and rate limits use.
 */
export type TrustProxy = boolean | number | readonly string[];
export const TRUST_PROXY_NAMED_SETS = ['loopback', 'linklocal', 'uniquelocal'] as const;
const TRUST_PROXY_FORMS =
  'a hop count (0, 1, 2…), true or false, or a comma-separated list of loopback, linklocal, uniquelocal, ' +
  'IP addresses and CIDR ranges (e.g. "loopback, 10.0.0.0/8")';

function isAddress(v: string): boolean {
  return ipaddr.IPv4.isValidFourPartDecimal(v) || ipaddr.IPv6.isValid(v);
}

function isAddressOrRange(entry: string): boolean {
  const [address = '', bits, ...rest] = entry.split('/');
  if (!isAddress(address) || rest.length > 0) return false;
  if (bits === undefined) return true;
  const max = ipaddr.IPv4.isValidFourPartDecimal(address) ? 32 : 128;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= max;
}

const trustProxy = z
  .string()
  .optional()
  .transform((v, ctx): TrustProxy => {
    if (v === undefined || v === 'false') return false;
    if (v === 'true') return true;
    if (/^\d+$/.test(v) && Number.isSafeInteger(Number(v))) return Number(v);
    const entries = v.split(',').map((e) => e.trim());
    const refused = entries.filter((e) => !(TRUST_PROXY_NAMED_SETS as readonly string[]).includes(e) && !isAddressOrRange(e));
    if (refused.length === 0) return entries;
    ctx.addIssue({ code: 'custom', message: `${refused.map((e) => JSON.stringify(e)).join(', ')} is not one of the accepted forms: ${TRUST_PROXY_FORMS}` });
    return z.NEVER;
  });

/**
 * CORS_ALLOWED_ORIGINS: comma-separated web origins (`https://app.example.com`, with a port when
 * not the scheme's default), exactly as a browser sends them in `Origin`; empty entries are ignored.
 */
const corsOrigins = z
  .string()
  .optional()
  .transform((v, ctx): string[] => {
    const entries = (v ?? '').split(',').map((e) => e.trim()).filter((e) => e !== '');
    const refused = entries.filter((e) => !URL.canParse(e) || !['http:', 'https:'].includes(new URL(e).protocol) || new URL(e).origin !== e);
    if (refused.length === 0) return [...new Set(entries)];
    ctx.addIssue({
      code: 'custom',
      message: `${refused.map((e) => JSON.stringify(e)).join(', ')} is not an origin: scheme, host and optional port, without a path or trailing slash, e.g. https://app.example.com`,
    });
    return z.NEVER;
  });

/** METRICS_TOKEN: a bearer token for GET /metrics, long enough not to be guessed and free of spaces. */
const metricsToken = z
  .string()
  .refine((v) => v.length >= 16 && !/\s/.test(v), 'must be at least 16 characters without spaces, e.g. the output of `openssl rand -hex 32`');

/** Every environment variable the server reads, parsed once at start-up. */
const EnvSchema = z
  .object({
    NODE_ENV: z.string().default('development'),
    PORT: port.default('8080'),
    HOST: host.default('0.0.0.0'),
    DATABASE_URL: urlWithScheme(['postgres:', 'postgresql:'], 'postgres://user:password@db.example.com:5432/gradual').optional(),
    DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
    DATABASE_ACQUIRE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5000),
    DATABASE_STARTUP_TIMEOUT_MS: z.coerce.number().int().min(1000).max(3_600_000).default(60_000),
    DATABASE_WATCHDOG_INTERVAL_MS: z.coerce.number().int().min(0).max(600_000).default(5000),
    DATA_DIR: z.string().default('./.data'),
    REDIS_URL: urlWithScheme(['redis:', 'rediss:'], 'redis://127.0.0.1:6379').optional(),
    SMTP_URL: urlWithScheme(['smtp:', 'smtps:'], 'smtps://user:password@mail.example.com:465').optional(),
    PROMETHEUS_URL: urlWithScheme(['http:', 'https:'], 'http://prometheus.internal:9090').optional(),
    SERVICE_TOPOLOGY: z.enum(['self-hosted', 'hosted']).default('self-hosted'),
    SERVICE_PUBLIC_SIGNUP: flag,
    PUBLIC_URL: publicUrl.optional(),
    METRICS_TOKEN: metricsToken.optional(),
    SERVICE_TEST_CLOCK: flag,
    SERVICE_CHECK_RESPONSES: flag,
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
    ORG_RATE_LIMIT_PER_MIN: z.coerce.number().int().min(1).default(6000),
    SESSION_RATE_LIMIT_PER_MIN: z.coerce.number().int().min(1).max(1_000_000).default(1200),
    AUTH_FAILURES_PER_IP_PER_MIN: z.coerce.number().int().min(1).max(1_000_000).default(30),
    CLIENT_KEY_RATE_LIMIT_PER_IP_PER_MIN: z.coerce.number().int().min(1).max(1_000_000).default(300),
    CLIENT_KEY_ORG_RATE_LIMIT_PER_MIN: z.coerce.number().int().min(1).default(60_000),
    USAGE_REPORT_MAX_PER_KEY_PER_HOUR: z.coerce.number().int().min(1).max(1e15).default(1_000_000_000),
    USAGE_REPORT_MAX_PER_CLIENT_IP_PER_HOUR: z.coerce.number().int().min(1).max(1e15).default(1_000_000),
    TRUST_PROXY: trustProxy,
    CORS_ALLOWED_ORIGINS: corsOrigins,
    SCHEDULER_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(1000),
    TARGET_ID_INDEX_MAX_IDS: z.coerce.number().int().min(0).default(2_000_000),
    STREAM_MAX_PER_KEY: z.coerce.number().int().min(1).max(1_000_000).default(50),
    STREAM_MAX_PER_CLIENT_KEY: z.coerce.number().int().min(1).max(1_000_000).default(5000),
    STREAM_MAX_PER_CLIENT_KEY_ADDRESS: z.coerce.number().int().min(1).max(1_000_000).default(20),
    STREAM_MAX_PER_SESSION: z.coerce.number().int().min(1).max(1_000_000).default(10),
    STREAM_MAX_PER_IP: z.coerce.number().int().min(1).max(1_000_000).default(100),
    STREAM_MAX_TOTAL: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
    STREAM_RECHECK_INTERVAL_MS: z.coerce.number().int().min(250).max(300_000).default(5000),
    HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(500).max(600_000).default(20_000),
    HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).max(3_600_000).default(600_000),
    HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(65_000),
    HTTP_MAX_HEADERS_COUNT: z.coerce.number().int().min(20).max(2000).default(100),
    HTTP_MAX_CONNECTIONS: z.coerce.number().int().min(2).max(1_000_000).default(20_000),
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: flag,
    WEBHOOK_ALLOWED_NETWORKS: webhookNetworks,
    WEBHOOK_ALLOW_HTTP: flag,
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
    WEBHOOK_WORKER_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(1000),
    WEBHOOK_MAX_PENDING_PER_SUBSCRIPTION: z.coerce.number().int().min(1).max(100_000).default(1000),
  })
  .superRefine((env, ctx) => {
    if (env.HTTP_HEADERS_TIMEOUT_MS > env.HTTP_REQUEST_TIMEOUT_MS) {
      ctx.addIssue({ code: 'custom', path: ['HTTP_HEADERS_TIMEOUT_MS'], message: 'must not exceed HTTP_REQUEST_TIMEOUT_MS (the headers are part of the request)' });
    }
    if (env.STREAM_MAX_TOTAL >= env.HTTP_MAX_CONNECTIONS) {
      ctx.addIssue({ code: 'custom', path: ['STREAM_MAX_TOTAL'], message: 'must be below HTTP_MAX_CONNECTIONS, so that open streams leave connections for requests' });
    }
    if (env.SERVICE_TEST_CLOCK && env.NODE_ENV === 'production') {
      ctx.addIssue({ code: 'custom', path: ['SERVICE_TEST_CLOCK'], message: 'refused when NODE_ENV=production' });
    }
  });

export interface Config {
  env: string;
  port: number;
  host: string;
  databaseUrl: string | undefined;
  databasePoolMax: number;
  /** How long a request waits for a pooled database connection before answering 503. */
  databaseAcquireTimeoutMs: number;
  /** How long start-up waits for the database (open, connect, migrate) before exiting non-zero. */
  databaseStartupTimeoutMs: number;
  /** Embedded: how often the watchdog queries the database thread (0: off); 3 misses end the process. */
  databaseWatchdogIntervalMs: number;
  dataDir: string;
  redisUrl: string | undefined;
  smtpUrl: string | undefined;
  /** The Prometheus guard metrics with a `prometheus` source are read from (its HTTP API's base URL). */
  prometheusUrl: string | undefined;
  topology: 'self-hosted' | 'hosted';
  publicSignup: boolean;
  /**
   * Where people reach the server, without a trailing slash: PUBLIC_URL, or
   * http://localhost:PORT when it is unset (see publicUrlFor for PORT=0).
   */
  publicUrl: string;
  /** Whether PUBLIC_URL was set: then only its origin may send session mutations (http/csrf.ts). */
  publicUrlConfigured: boolean;
  /** METRICS_TOKEN: when set, GET /metrics needs `Authorization: Bearer <it>` (http/ops.ts); open otherwise. */
  metricsToken: string | undefined;
  testClock: boolean;
  /** SERVICE_CHECK_RESPONSES: every JSON answer of a contract route is checked against the contract (http/response-check.ts); tests turn it on. */
  checkResponses: boolean;
  logLevel: string;
  /** LOG_FORMAT; unset: human-readable when stdout is a terminal, JSON lines otherwise (logger.ts). */
  logFormat: 'json' | 'pretty' | undefined;
  orgRateLimitPerMin: number;
  /** SESSION_RATE_LIMIT_PER_MIN: each signed-in user's token bucket, all their sessions together (http/api-rate-limit.ts). */
  sessionRateLimitPerMin: number;
  /** AUTH_FAILURES_PER_IP_PER_MIN: failed authentications a client address may make a minute before it is throttled (rate-limits/auth-failures.ts). */
  authFailuresPerIpPerMin: number;
  /** CLIENT_KEY_RATE_LIMIT_PER_IP_PER_MIN: requests a minute each client address may make with one client key (http/api-rate-limit.ts). */
  clientKeyRateLimitPerIpPerMin: number;
  /**
   * CLIENT_KEY_ORG_RATE_LIMIT_PER_MIN: requests a minute all client keys of an organization may make
   * together: a bucket of their own, so public traffic never drains the one of the server keys.
   */
  clientKeyOrgRateLimitPerMin: number;
  /**
   * USAGE_REPORT_MAX_PER_KEY_PER_HOUR, USAGE_REPORT_MAX_PER_CLIENT_IP_PER_HOUR: evaluations usage
   * reports may add to one hour, per API key (and signed-in user), and per client key and client
   * address (features/usage, docs/usage.md).
   */
  usageReports: { perKeyPerHour: number; perClientAddressPerHour: number };
  /** TRUST_PROXY, parsed: passed to Express as `trust proxy` (false when unset). */
  trustProxy: TrustProxy;
  /**
   * CORS_ALLOWED_ORIGINS: web origins whose pages may evaluate with a client key that names no
   * origins of its own (http/cors.ts); empty by default.
   */
  corsAllowedOrigins: readonly string[];
  /** What start-up should warn about: unknown SERVICE_* and GRADUAL_* variables (main.ts logs them). */
  warnings: string[];
  /** How often each instance looks for due rollout steps. */
  schedulerIntervalMs: number;
  /** Target IDs held in memory across all allow-lists for contains checks (0: always ask the database). */
  targetIdIndexMaxIds: number;
  /** Caps on open ruleset streams on one instance (STREAM_MAX_*), and how often their credentials are checked again. */
  streams: { perKey: number; perClientKey: number; perClientKeyAddress: number; perSession: number; perIp: number; total: number; recheckIntervalMs: number };
  /** The HTTP server's limits (HTTP_*; server.ts). */
  http: { headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number; maxHeadersCount: number; maxConnections: number };
  /** Outbound webhooks (WEBHOOK_*; features/webhooks, docs/webhooks.md). */
  webhooks: WebhookSettings;
}

/** Where outbound webhooks may be sent and how long a delivery may take. */
export interface WebhookSettings {
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS: private, loopback, link-local and other reserved addresses are allowed too. */
  allowPrivateNetworks: boolean;
  /** WEBHOOK_ALLOWED_NETWORKS: addresses and CIDR ranges allowed even though they are private or reserved. */
  allowedNetworks: readonly string[];
  /** WEBHOOK_ALLOW_HTTP: subscriptions may use plain http:// URLs (https:// only otherwise). */
  allowHttp: boolean;
  /** WEBHOOK_TIMEOUT_MS: one delivery attempt, connection to the end of the answer. */
  timeoutMs: number;
  /** WEBHOOK_WORKER_INTERVAL_MS: how often each instance looks for due deliveries. */
  workerIntervalMs: number;
  /** WEBHOOK_MAX_PENDING_PER_SUBSCRIPTION: deliveries waiting for one subscription at most; beyond it the oldest are dropped. */
  maxPendingPerSubscription: number;
}

export class ConfigError extends Error {}

/** Variables with this server's prefixes that other tools of the repository read (the test harness). */
const OTHER_TOOLS_VARIABLES = new Set(['GRADUAL_CHROMIUM', 'GRADUAL_REQUIRE_BROWSER', 'GRADUAL_TEST_VIA_PRISM']);

/**
 * The configuration from the environment, or a ConfigError naming every refused variable. A
 * variable set to the empty string is refused, never read as unset: `PORT=` is not 8080, and
 * `DATABASE_URL=` (an unfilled template) is not the embedded database.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const names = Object.keys(EnvSchema.innerType().shape);
  const empty = names.filter((name) => env[name] === '');
  const parsed = EnvSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([, value]) => value !== '')));
  const lines = [
    ...empty.map((name) => `  ${name}: is set but empty; unset it or give it a value`),
    ...(parsed.success ? [] : parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`)),
  ];
  if (!parsed.success || lines.length > 0) {
    throw new ConfigError(`Invalid configuration (docs/operations.md describes every variable):\n${lines.join('\n')}`);
  }
  const warnings = Object.keys(env)
    .filter((name) => /^(SERVICE|GRADUAL)_/.test(name) && !names.includes(name) && !OTHER_TOOLS_VARIABLES.has(name))
    .map((name) => `${name} is not a setting of this server and is ignored${didYouMean(name, names)}`);
  const e = parsed.data;
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    databasePoolMax: e.DATABASE_POOL_MAX,
    databaseAcquireTimeoutMs: e.DATABASE_ACQUIRE_TIMEOUT_MS,
    databaseStartupTimeoutMs: e.DATABASE_STARTUP_TIMEOUT_MS,
    databaseWatchdogIntervalMs: e.DATABASE_WATCHDOG_INTERVAL_MS,
    dataDir: e.DATA_DIR,
    redisUrl: e.REDIS_URL,
    smtpUrl: e.SMTP_URL,
    prometheusUrl: e.PROMETHEUS_URL?.replace(/\/+$/, ''),
    topology: e.SERVICE_TOPOLOGY,
    publicSignup: e.SERVICE_PUBLIC_SIGNUP,
    publicUrl: e.PUBLIC_URL === undefined ? localUrl(e.PORT) : e.PUBLIC_URL.replace(/\/+$/, ''),
    publicUrlConfigured: e.PUBLIC_URL !== undefined,
    metricsToken: e.METRICS_TOKEN,
    testClock: e.SERVICE_TEST_CLOCK,
    checkResponses: e.SERVICE_CHECK_RESPONSES,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    orgRateLimitPerMin: e.ORG_RATE_LIMIT_PER_MIN,
    sessionRateLimitPerMin: e.SESSION_RATE_LIMIT_PER_MIN,
    authFailuresPerIpPerMin: e.AUTH_FAILURES_PER_IP_PER_MIN,
    clientKeyRateLimitPerIpPerMin: e.CLIENT_KEY_RATE_LIMIT_PER_IP_PER_MIN,
    clientKeyOrgRateLimitPerMin: e.CLIENT_KEY_ORG_RATE_LIMIT_PER_MIN,
    usageReports: { perKeyPerHour: e.USAGE_REPORT_MAX_PER_KEY_PER_HOUR, perClientAddressPerHour: e.USAGE_REPORT_MAX_PER_CLIENT_IP_PER_HOUR },
    trustProxy: e.TRUST_PROXY,
    corsAllowedOrigins: e.CORS_ALLOWED_ORIGINS,
    warnings,
    schedulerIntervalMs: e.SCHEDULER_INTERVAL_MS,
    targetIdIndexMaxIds: e.TARGET_ID_INDEX_MAX_IDS,
    streams: {
      perKey: e.STREAM_MAX_PER_KEY,
      perClientKey: e.STREAM_MAX_PER_CLIENT_KEY,
      perClientKeyAddress: e.STREAM_MAX_PER_CLIENT_KEY_ADDRESS,
      perSession: e.STREAM_MAX_PER_SESSION,
      perIp: e.STREAM_MAX_PER_IP,
      total: e.STREAM_MAX_TOTAL,
      recheckIntervalMs: e.STREAM_RECHECK_INTERVAL_MS,
    },
    http: {
      headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      maxHeadersCount: e.HTTP_MAX_HEADERS_COUNT,
      maxConnections: e.HTTP_MAX_CONNECTIONS,
    },
    webhooks: {
      allowPrivateNetworks: e.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
      allowedNetworks: e.WEBHOOK_ALLOWED_NETWORKS,
      allowHttp: e.WEBHOOK_ALLOW_HTTP,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      workerIntervalMs: e.WEBHOOK_WORKER_INTERVAL_MS,
      maxPendingPerSubscription: e.WEBHOOK_MAX_PENDING_PER_SUBSCRIPTION,
    },
  };
}

/** ` (did you mean X?)` for the known name closest to a misspelt one (at most 3 edits away), else ''. */
function didYouMean(name: string, known: readonly string[]): string {
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(name, candidate);
    if (distance <= 3 && (!best || distance < best.distance)) best = { name: candidate, distance };
  }
  return best ? ` (did you mean ${best.name}?)` : '';
}

/** Levenshtein distance (insertions, deletions and substitutions). */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** The address on this machine for a port, as PUBLIC_URL defaults to it. */
export function localUrl(port: number): string {
  return `http://localhost:${port}`;
}

/**
 * The address to show people, for a server listening on `port`: PUBLIC_URL when it is set,
 * otherwise http://localhost:<port> (the port actually bound, which differs from config.port
 * only when PORT=0 lets the system choose).
 */
export function publicUrlFor(config: Pick<Config, 'publicUrl' | 'publicUrlConfigured'>, port: number): string {
  return config.publicUrlConfigured ? config.publicUrl : localUrl(port);
}

/** Signup and install-state are public only on hosted, or with SERVICE_PUBLIC_SIGNUP=1 (spec). */
export function signupMounted(config: Config): boolean {
  return config.topology === 'hosted' || config.publicSignup;
}
