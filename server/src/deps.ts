import type { Logger } from 'pino';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import type { EnvChangeBus } from './features/environments/env-changes.js';
import type { RulesetCache } from './features/evaluation/ruleset.cache.js';
import type { LiveStreams } from './features/evaluation/live-streams.js';
import type { RateLimits } from './rate-limits/rate-limits.js';
import type { Mailer } from './mail/mailer.js';
import type { ServiceMetrics } from './metrics/metrics.js';
import type { ApiKeyCache } from './features/access/api-key-cache.js';
import type { EnvDirectory } from './features/environments/env-directory.js';
import type { TargetIdIndex } from './features/rollouts/target-id-index.js';
import type { UsageAggregator } from './features/usage/usage-aggregator.js';
import type { PrometheusReader } from './features/guards/prometheus-source.js';
import type { AckLedger } from './features/convergence/ack-ledger.js';

/** The server's long-lived parts, built once at start (server.ts) and handed to the app and the services that need them. */
export interface AppDeps {
  config: Config;
  db: Database;
  clock: Clock;
  logger: Logger;
  bus: EnvChangeBus;
  /** This instance's materialized rulesets, by environment. */
  rulesets: RulesetCache;
  /** Environments' owners and current versions (kept current by the bus). */
  envs: EnvDirectory;
  /** API keys by token hash, for a second (hot paths authenticate without the database). */
  apiKeys: ApiKeyCache;
  /** In-memory allow-lists for contains checks (bounded; kept current by env versions). */
  targetIds: TargetIdIndex;
  /** Open ruleset streams (SSE), closed on shutdown. */
  streams: LiveStreams;
  /** Rate-limit buckets (Redis-backed when REDIS_URL is set, shared by every instance). */
  limits: RateLimits;
  /** Prometheus metrics of this server (GET /metrics). */
  metrics: ServiceMetrics;
  /** Outgoing mail (SMTP_URL), or one stdout line per mail when unset. */
  mailer: Mailer;
  /** Evaluations this instance answered, counted in memory and written every minute (features/usage). */
  usage: UsageAggregator;
  /** The Prometheus guard metrics may be read from (PROMETHEUS_URL), or null. */
  prometheus: PrometheusReader | null;
  /** SDK instances' ruleset acknowledgements, held in memory and written every second (features/convergence). */
  acks: AckLedger;
}
