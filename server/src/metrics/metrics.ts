import client from 'prom-client';
import { LatencyHistogram } from './latency-histogram.js';

/**
 * The service's Prometheus metrics, one registry per server (tests run several in one
 * process). Beyond the process defaults and request latency, the few an operator alerts on:
 * the scheduler falling behind or failing, rollback fires by outcome, live streams (open, refused
 * over a cap, ended with their credentials), whether this instance hears other instances'
 * writes, and the fleet's convergence (SDK instances per environment, current or behind; how fast
 * rollbacks reach them).
 */
export class ServiceMetrics {
  readonly registry = new client.Registry();

  readonly requestDuration = new LatencyHistogram({
    name: 'gradual_http_request_duration_seconds',
    help: 'HTTP request latency by method, route and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });

  readonly schedulerTicks = new client.Counter({
    name: 'gradual_scheduler_ticks_total',
    help: 'Scheduler ticks on this instance, by result (ok, failed).',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  readonly schedulerTickDuration = new client.Histogram({
    name: 'gradual_scheduler_tick_duration_seconds',
    help: 'Wall time of one scheduler tick (all due batches).',
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  readonly schedulerTransitions = new client.Counter({
    name: 'gradual_scheduler_transitions_total',
    help: 'Rollout steps applied by this instance’s scheduler.',
    registers: [this.registry],
  });

  readonly rollbackFires = new client.Counter({
    name: 'gradual_rollback_fires_total',
    help: 'Rollback webhook fires answered by this instance, by outcome.',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly guardPrometheusQueries = new client.Counter({
    name: 'gradual_guard_prometheus_queries_total',
    help: 'Range queries of guard metrics read from Prometheus (PROMETHEUS_URL), by result (ok, failed).',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  readonly rulesetPollsFromMemory = new client.Counter({
    name: 'gradual_ruleset_polls_from_memory_total',
    help: 'Ruleset polls answered 304 from memory before the router, replaying their route’s answer (http/answer-cache.ts).',
    registers: [this.registry],
  });

  readonly targetIdChecks = new client.Counter({
    name: 'gradual_target_id_checks_total',
    help: 'Target-ID checks (contains) answered by source: memory (an in-memory allow-list as of the environment’s current version) or database (one statement).',
    labelNames: ['source'] as const,
    registers: [this.registry],
  });

  readonly evaluationsFromMemory = new client.Counter({
    name: 'gradual_evaluations_from_memory_total',
    help: 'Server-side evaluations (POST evaluate) answered from memory before the router, against the ruleset their route answered from (http/answer-cache.ts).',
    registers: [this.registry],
  });

  readonly targetIdIndexErrors = new client.Counter({
    name: 'gradual_target_id_index_refresh_errors_total',
    help: 'Failed reads of an in-memory allow-list (its checks went to the database meanwhile).',
    registers: [this.registry],
  });

  readonly streamsRefused = new client.Counter({
    name: 'gradual_sse_streams_refused_total',
    help: 'Ruleset streams refused with 429, by the cap that refused them (key, session, ip, total: STREAM_MAX_*).',
    labelNames: ['limit'] as const,
    registers: [this.registry],
  });

  readonly streamsEndedByCredentials = new client.Counter({
    name: 'gradual_sse_streams_credentials_ended_total',
    help: 'Ruleset streams ended because their credentials stopped holding (key revoked, expired or deleted; session ended or expired; user no longer a member).',
    registers: [this.registry],
  });

  readonly streamCredentialCheckErrors = new client.Counter({
    name: 'gradual_sse_stream_credential_check_errors_total',
    help: 'Failed re-checks of the open streams’ credentials (the streams stay open until a check succeeds).',
    registers: [this.registry],
  });

  readonly dbConflicts = new client.Counter({
    name: 'gradual_db_conflicts_total',
    help: 'Transactions and statements the database aborted for a concurrent one (sqlstate 40P01 deadlock, 40001 serialization failure), by outcome: retried, or gave_up (answered 503).',
    labelNames: ['sqlstate', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly rollbackConvergence = new client.Histogram({
    name: 'gradual_rollback_convergence_seconds',
    help: 'Time from a rollback to 99 % of the SDK instances seen recently serving it, as the watch that recorded it measured (docs/convergence.md).',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [this.registry],
  });

  constructor(sources: {
    openStreams: () => number;
    busConnected: () => boolean;
    targetIdsInMemory?: () => number;
    /** Per environment with SDK instances seen in the ledger's window: how many, and how many serve its current version (read from the database). */
    fleet?: () => Promise<Array<{ envId: string; instances: number; current: number }>>;
  }) {
    client.collectDefaultMetrics({ register: this.registry });
    new client.Gauge({
      name: 'gradual_sse_open_streams',
      help: 'Ruleset streams (SSE) open on this instance.',
      registers: [this.registry],
      collect() {
        this.set(sources.openStreams());
      },
    });
    new client.Gauge({
      name: 'gradual_target_id_index_ids',
      help: 'Target IDs held in memory for contains checks (TARGET_ID_INDEX_MAX_IDS bounds it).',
      registers: [this.registry],
      collect() {
        this.set(sources.targetIdsInMemory?.() ?? 0);
      },
    });
    new client.Gauge({
      name: 'gradual_sdk_instances',
      help: 'SDK instances seen in the convergence ledger’s window (5 minutes), by environment and whether they serve its current version (state current or behind). Read from the database: every server instance reports the same figures.',
      labelNames: ['env_id', 'state'] as const,
      registers: [this.registry],
      async collect() {
        if (!sources.fleet) return;
        this.reset();
        for (const env of await sources.fleet()) {
          this.set({ env_id: env.envId, state: 'current' }, env.current);
          this.set({ env_id: env.envId, state: 'behind' }, env.instances - env.current);
        }
      },
    });
    new client.Gauge({
      name: 'gradual_env_change_listener_up',
      help: '1 when this instance receives other instances’ writes (LISTEN connected, or embedded), else 0.',
      registers: [this.registry],
      collect() {
        this.set(sources.busConnected() ? 1 : 0);
      },
    });
  }
}
