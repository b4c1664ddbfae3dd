import type { EntityManager } from '@mikro-orm/postgresql';
import type { PrometheusSource } from '@gradual/contract';
import type { Logger } from 'pino';
import { z } from 'zod';
import { GuardMetricEntity, RolloutEntity, type GuardMetric } from '../../db/entities/index.js';
import { guardedStep } from '../../domain/rollouts/ramp-position.js';
import { rawQuery } from '../common/sql.js';

/**
 * The Prometheus source of guard metrics (docs/guards.md#prometheus-source). Before the scheduler
 * checks a guarded step, the step's Prometheus metrics are read for each arm, one point per whole
 * minute since the step began (at most the last hour): `sum(increase(<selector>[1m]))` at the end
 * of each minute, with `{{arm}}` and `{{key}}` filled in. The points are written to guard_samples
 * beside the SDK's reports, so the check reads both alike.
 *
 * A minute is re-read at every check while it is in the window: a late scrape corrects it, and the
 * rows are set, not added to, so several instances reading the same minute agree. A failed read
 * leaves the minutes as they were; the next check reads them again.
 */

const MINUTE_MS = 60_000;
/** Whole minutes read back at each check: a step's first hour, or its last hour. */
const MINUTES_READ_MAX = 60;
/** Rollouts sampled per check pass (the scheduler claims its batch from the same due rows). */
const ROLLOUTS_PER_PASS_MAX = 250;
const QUERY_TIMEOUT_MS = 5000;

/** guard_samples' metric for a Prometheus metric: SDK reports of event names with this prefix are not taken. */
export const PROMETHEUS_SAMPLE_PREFIX = 'prometheus:';
export const prometheusSampleName = (metricKey: string): string => `${PROMETHEUS_SAMPLE_PREFIX}${metricKey}`;

export interface PrometheusReader {
  /** PROMETHEUS_URL, without a trailing slash. */
  url: string;
  fetch?: typeof fetch;
  logger: Logger;
  /** Told of each query: read, or failed (unreachable, an error answer, a bad PromQL). */
  onQuery?: (result: 'ok' | 'failed') => void;
}

type Arm = 'treatment' | 'control';
type Part = keyof PrometheusSource;

/** `sum(increase(<selector>[1m]))` of one arm of one rollout. */
export function promQuery(selector: string, arm: Arm, primitiveKey: string): string {
  const filled = selector.replaceAll('{{arm}}', arm).replaceAll('{{key}}', primitiveKey);
  return `sum(increase(${filled}[1m]))`;
}

/** What /api/v1/query_range answers (the parts read). */
const RangeAnswer = z.object({
  status: z.string(),
  error: z.string().optional(),
  data: z.object({ resultType: z.string(), result: z.array(z.object({ values: z.array(z.tuple([z.number(), z.string()])) })) }).optional(),
});

/** The value at the end of each minute (by the minute's start, in ms) of one range query. */
async function readRange(reader: PrometheusReader, query: string, firstMinute: number, lastMinute: number): Promise<Map<number, number> | null> {
  const params = new URLSearchParams({
    query,
    start: String((firstMinute + MINUTE_MS) / 1000),
    end: String((lastMinute + MINUTE_MS) / 1000),
    step: '60',
  });
  try {
    const res = await (reader.fetch ?? fetch)(`${reader.url}/api/v1/query_range`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: params.toString(),
      signal: AbortSignal.timeout(QUERY_TIMEOUT_MS),
    });
    const parsed = RangeAnswer.safeParse(await res.json().catch(() => null));
    if (!res.ok || !parsed.success || parsed.data.status !== 'success' || parsed.data.data?.resultType !== 'matrix') {
      reader.logger.warn({ status: res.status, error: parsed.data?.error, query }, 'guard metric: Prometheus refused a query');
      reader.onQuery?.('failed');
      return null;
    }
    reader.onQuery?.('ok');
    const values = new Map<number, number>();
    // sum(…) answers one series, or none when no series matched (no events anywhere yet).
    for (const [t, v] of parsed.data.data.result[0]?.values ?? []) {
      const x = Number(v);
      if (Number.isFinite(x)) values.set(t * 1000 - MINUTE_MS, Math.max(0, x));
    }
    return values;
  } catch (err) {
    reader.logger.warn({ err, query }, 'guard metric: Prometheus could not be read');
    reader.onQuery?.('failed');
    return null;
  }
}

interface SampleRow {
  rolloutId: string;
  percent: number;
  minute: number;
  arm: Arm;
  metric: string;
  events: number;
  sum: number;
  sumSquares: number;
}

/**
 * Reads the Prometheus metrics of every rollout whose guarded step's check is due at `now` into
 * guard_samples. Outside any transaction: a slow Prometheus never holds a rollout's lock.
 */
export async function samplePrometheus(em: EntityManager, reader: PrometheusReader, now: Date): Promise<{ rollouts: number; rows: number }> {
  const due = await em.find(
    RolloutEntity,
    { status: 'active', guardCheckAt: { $ne: null, $lte: now } },
    { orderBy: { guardCheckAt: 'asc' }, limit: ROLLOUTS_PER_PASS_MAX },
  );
  const steps = due.flatMap((row) => {
    const step = guardedStep(row);
    return step ? [{ row, step }] : [];
  });
  if (steps.length === 0) return { rollouts: 0, rows: 0 };
  const defined = await em.find(GuardMetricEntity, {
    projectId: { $in: [...new Set(steps.map((s) => s.row.projectId))] },
    key: { $in: [...new Set(steps.flatMap((s) => s.step.guard.metrics.map((m) => m.key)))] },
    prometheus: { $ne: null },
  });
  const byProjectKey = new Map(defined.map((d) => [`${d.projectId}:${d.key}`, d]));
  const lastMinute = Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS - MINUTE_MS;
  const rows: SampleRow[] = [];
  let rollouts = 0;
  for (const { row, step } of steps) {
    const metrics = step.guard.metrics.flatMap((m) => byProjectKey.get(`${row.projectId}:${m.key}`) ?? []);
    if (metrics.length === 0) continue;
    const since = (row.stepStartedAt ?? now).getTime();
    const firstMinute = Math.max(Math.floor(since / MINUTE_MS) * MINUTE_MS, lastMinute - (MINUTES_READ_MAX - 1) * MINUTE_MS);
    if (lastMinute < firstMinute) continue;
    rollouts++;
    for (const metric of metrics) {
      for (const arm of ['treatment', 'control'] as const) {
        const read = await readMetric(reader, metric, arm, row.primitiveKey, firstMinute, lastMinute);
        if (read === null) continue;
        for (const [minute, parts] of read) {
          rows.push({ rolloutId: row.id, percent: step.percent, minute, arm, metric: prometheusSampleName(metric.key), ...parts });
        }
      }
    }
  }
  if (rows.length > 0) await setSamples(em, rows);
  return { rollouts, rows: rows.length };
}

/** One arm's minutes of one metric: events (or observations), and a mean metric's sums. Null when a read failed. */
async function readMetric(
  reader: PrometheusReader,
  metric: GuardMetric,
  arm: Arm,
  primitiveKey: string,
  firstMinute: number,
  lastMinute: number,
): Promise<Map<number, { events: number; sum: number; sumSquares: number }> | null> {
  const source = metric.prometheus;
  if (!source) return null;
  const parts: Part[] = metric.kind === 'mean' ? ['events', 'sum', 'sumSquares'] : ['events'];
  const read: Partial<Record<Part, Map<number, number>>> = {};
  for (const part of parts) {
    const selector = source[part];
    if (selector === undefined) return null;
    const values = await readRange(reader, promQuery(selector, arm, primitiveKey), firstMinute, lastMinute);
    if (values === null) return null;
    read[part] = values;
  }
  const out = new Map<number, { events: number; sum: number; sumSquares: number }>();
  for (const [minute, events] of read.events!) {
    // increase() extrapolates: a counter's events are whole, observations' sums are not.
    out.set(minute, { events: Math.round(events), sum: read.sum?.get(minute) ?? 0, sumSquares: read.sumSquares?.get(minute) ?? 0 });
  }
  return out;
}

/** Sets the rows (a re-read replaces a minute's value), in key order so concurrent writers never deadlock. */
async function setSamples(em: EntityManager, rows: SampleRow[]): Promise<void> {
  const key = (r: SampleRow) => `${r.rolloutId}\u0000${r.percent}\u0000${r.minute}\u0000${r.arm}\u0000${r.metric}`;
  const sorted = [...rows].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  const col = <K extends keyof SampleRow>(k: K) => sorted.map((r) => r[k]);
  await rawQuery(
    em,
    `insert into guard_samples (rollout_id, percent, minute, arm, metric, units, events, sum, sum_squares)
       select s.rollout_id, s.percent, to_timestamp(s.minute / 1000.0), s.arm, s.metric, 0, s.events, s.sum, s.sum_squares
         from unnest(?::uuid[], ?::float8[], ?::float8[], ?::text[], ?::text[], ?::bigint[], ?::float8[], ?::float8[])
           as s(rollout_id, percent, minute, arm, metric, events, sum, sum_squares)
     on conflict (rollout_id, percent, minute, arm, metric) do update set
       events = excluded.events,
       sum = excluded.sum,
       sum_squares = excluded.sum_squares`,
    [col('rolloutId'), col('percent'), col('minute'), col('arm'), col('metric'), col('events'), col('sum'), col('sumSquares')],
  );
}
