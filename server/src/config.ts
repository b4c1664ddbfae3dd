import { z } from 'zod';

const flag = z
  .enum(['0', '1', 'true', 'false', ''])
  .optional()
  .transform((v) => v === '1' || v === 'true');

/** Every environment variable the server reads, parsed once at start-up. */
const EnvSchema = z
  .object({
    NODE_ENV: z.string().default('development'),
    PORT: z.coerce.number().int().min(0).max(65535).default(8080),
    HOST: z.string().default('0.0.0.0'),
    DATABASE_URL: z.string().url().optional(),
    DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
    DATA_DIR: z.string().default('./.data'),
    REDIS_URL: z.string().url().optional(),
    SMTP_URL: z.string().url().optional(),
    SERVICE_TOPOLOGY: z.enum(['self-hosted', 'hosted']).default('self-hosted'),
    SERVICE_PUBLIC_SIGNUP: flag,
    PUBLIC_URL: z.string().url().optional(),
    SERVICE_TEST_CLOCK: flag,
    SERVICE_CHECK_RESPONSES: flag,
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
    ORG_RATE_LIMIT_PER_MIN: z.coerce.number().int().min(1).default(6000),
    TRUST_PROXY: z.string().optional(),
    SCHEDULER_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(1000),
    TARGET_ID_INDEX_MAX_IDS: z.coerce.number().int().min(0).default(2_000_000),
  })
  .superRefine((env, ctx) => {
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
  dataDir: string;
  redisUrl: string | undefined;
  smtpUrl: string | undefined;
  topology: 'self-hosted' | 'hosted';
  publicSignup: boolean;
  /**
   * Where people reach the server, without a trailing slash: PUBLIC_URL, or
   * http://localhost:PORT when it is unset (see publicUrlFor for PORT=0).
   */
  publicUrl: string;
  /** Whether PUBLIC_URL was set: then only its origin may send session mutations (http/csrf.ts). */
  publicUrlConfigured: boolean;
  testClock: boolean;
  /** SERVICE_CHECK_RESPONSES: every JSON answer of a contract route is checked against the contract (http/response-check.ts); tests turn it on. */
  checkResponses: boolean;
  logLevel: string;
  /** LOG_FORMAT; unset: human-readable when stdout is a terminal, JSON lines otherwise (logger.ts). */
  logFormat: 'json' | 'pretty' | undefined;
  orgRateLimitPerMin: number;
  trustProxy: string | undefined;
  /** How often each instance looks for due rollout steps. */
  schedulerIntervalMs: number;
  /** Target IDs held in memory across all allow-lists for contains checks (0: always ask the database). */
  targetIdIndexMaxIds: number;
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    databasePoolMax: e.DATABASE_POOL_MAX,
    dataDir: e.DATA_DIR,
    redisUrl: e.REDIS_URL,
    smtpUrl: e.SMTP_URL,
    topology: e.SERVICE_TOPOLOGY,
    publicSignup: e.SERVICE_PUBLIC_SIGNUP,
    publicUrl: e.PUBLIC_URL === undefined ? localUrl(e.PORT) : e.PUBLIC_URL.replace(/\/+$/, ''),
    publicUrlConfigured: e.PUBLIC_URL !== undefined,
    testClock: e.SERVICE_TEST_CLOCK,
    checkResponses: e.SERVICE_CHECK_RESPONSES,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    orgRateLimitPerMin: e.ORG_RATE_LIMIT_PER_MIN,
    trustProxy: e.TRUST_PROXY,
    schedulerIntervalMs: e.SCHEDULER_INTERVAL_MS,
    targetIdIndexMaxIds: e.TARGET_ID_INDEX_MAX_IDS,
  };
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
