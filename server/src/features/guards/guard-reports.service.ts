import type { EntityManager } from '@mikro-orm/postgresql';
import { LIVE_STATUSES, type GuardReport, type GuardReportAccepted } from '@gradual/contract';
import { RolloutEntity } from '../../db/entities/index.js';
import { DomainError } from '../../domain/errors.js';
import { guardedStep } from '../../domain/rollouts/ramp-position.js';
import { authorize, tokenSees, type Caller } from '../access/authorize.js';
import { iso } from '../common/lookup.js';
import { rawQuery } from '../common/sql.js';
import type { EnvDirectory } from '../environments/env-directory.js';
import { PROMETHEUS_SAMPLE_PREFIX } from './prometheus-source.js';

/** A report's window: at most this long, ending at most this far back and this far ahead of the server's clock. */
const WINDOW_MAX_MS = 5 * 60_000;
const WINDOW_END_MAX_AGE_MS = 10 * 60_000;
const CLOCK_SKEW_MS = 60_000;
const MINUTE_MS = 60_000;

/** One row of guard_samples to add (see GuardSampleEntity). */
interface SampleRow {
  rolloutId: string;
  percent: number;
  arm: 'treatment' | 'control';
  metric: string;
  units: number;
  events: number;
  sum: number;
  sumSquares: number;
}

/**
 * POST /envs/{envId}/guard-metrics: adds an SDK's pre-aggregated arms to the minute its window
 * ends in, for the rollouts holding at a guarded step of the reported percent. Client keys may not
 * report (a page's numbers are anyone's). Several instances add to the same rows with one upsert
 * per report, rows in key order, so concurrent reports never deadlock and none is lost.
 */
export async function reportGuardMetrics(em: EntityManager, caller: Caller, envs: EnvDirectory, envId: string, report: GuardReport): Promise<GuardReportAccepted> {
  const env = await envs.get(em, envId);
  // Not an evaluation: a client key (public, in web pages) is refused, as everywhere but evaluation.
  await authorize(em, caller, env.orgId, { action: 'read', envId: env.id });
  const now = caller.now;
  const start = new Date(report.windowStart).getTime();
  const end = new Date(report.windowEnd).getTime();
  if (end > now.getTime() + CLOCK_SKEW_MS) {
    throw new DomainError('invalid_request', 'The window ends in the future.', { fields: { windowEnd: `must not be later than the server's clock (${iso(now)}) plus a minute` } });
  }
  if (end < now.getTime() - WINDOW_END_MAX_AGE_MS) {
    throw new DomainError('invalid_request', 'The window ended too long ago.', { fields: { windowEnd: 'must be within the last 10 minutes of the server\'s clock' } });
  }
  if (start > end) throw new DomainError('invalid_request', 'The window starts after it ends.', { fields: { windowStart: 'must not be later than windowEnd' } });
  if (end - start > WINDOW_MAX_MS) throw new DomainError('invalid_request', 'The window is longer than 5 minutes.', { fields: { windowStart: 'must be at most 5 minutes before windowEnd' } });
  const minute = new Date(Math.floor((Math.min(end, now.getTime()) - 1) / MINUTE_MS) * MINUTE_MS);

  const entries = [
    ...report.exposures.map((e) => ({ ...e, metric: '', units: e.units, events: 0, sum: 0, sumSquares: 0 })),
    ...report.events.map((e) => ({ ...e, metric: e.event, units: 0, events: e.count, sum: e.sum, sumSquares: e.sumSquares })),
  ];
  // Event names with the Prometheus samples' prefix are the server's own (prometheus-source.ts).
  const visible = entries.filter((e) => tokenSees(caller, env.id, e.key) && !e.metric.startsWith(PROMETHEUS_SAMPLE_PREFIX));
  const keys = [...new Set(visible.map((e) => e.key))];
  const live = keys.length === 0 ? [] : await em.find(RolloutEntity, { envId: env.id, primitiveKey: { $in: keys }, status: { $in: [...LIVE_STATUSES] } });
  const rollouts = new Map(live.map((r) => [`${r.primitiveKind}:${r.primitiveKey}`, r]));
  const rows = new Map<string, SampleRow>();
  let accepted = 0;
  let dropped = 0;
  for (const e of visible) {
    const row = rollouts.get(`${e.kind}:${e.key}`);
    if (!row) continue; // skipped: no live rollout
    const step = guardedStep(row);
    if (!step || step.percent !== e.percent) {
      dropped++;
      continue;
    }
    accepted++;
    const id = `${row.id}\u0000${e.arm}\u0000${e.metric}`;
    const sample = rows.get(id) ?? { rolloutId: row.id, percent: e.percent, arm: e.arm, metric: e.metric, units: 0, events: 0, sum: 0, sumSquares: 0 };
    rows.set(id, { ...sample, units: sample.units + e.units, events: sample.events + e.events, sum: sample.sum + e.sum, sumSquares: sample.sumSquares + e.sumSquares });
  }
  const sorted = [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
  if (sorted.length > 0) await addSamples(em, minute, sorted);
  return { accepted, skipped: entries.length - accepted - dropped, dropped };
}

async function addSamples(em: EntityManager, minute: Date, rows: SampleRow[]): Promise<void> {
  const col = <K extends keyof SampleRow>(k: K) => rows.map((r) => r[k]);
  await rawQuery(
    em,
    `insert into guard_samples (rollout_id, percent, minute, arm, metric, units, events, sum, sum_squares)
       select s.rollout_id, s.percent, ?::timestamptz, s.arm, s.metric, s.units, s.events, s.sum, s.sum_squares
         from unnest(?::uuid[], ?::float8[], ?::text[], ?::text[], ?::bigint[], ?::bigint[], ?::float8[], ?::float8[])
           as s(rollout_id, percent, arm, metric, units, events, sum, sum_squares)
     on conflict (rollout_id, percent, minute, arm, metric) do update set
       units = guard_samples.units + excluded.units,
       events = guard_samples.events + excluded.events,
       sum = guard_samples.sum + excluded.sum,
       sum_squares = guard_samples.sum_squares + excluded.sum_squares`,
    [minute.toISOString(), col('rolloutId'), col('percent'), col('arm'), col('metric'), col('units'), col('events'), col('sum'), col('sumSquares')],
  );
}
