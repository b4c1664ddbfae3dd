import type { EntityManager } from '@mikro-orm/postgresql';
import { LIVE_STATUSES_SQL, type CodeReferenceCheckRow, type PrimitiveKind } from '../../db/entities/index.js';
import { transaction } from '../../db/transaction.js';
import { rawQuery } from '../common/sql.js';

/** Evaluation counts to add, as parallel columns (one row per environment, flag or config, and variant). */
export interface UsageColumns {
  envIds: string[];
  kinds: PrimitiveKind[];
  keys: string[];
  variants: string[];
  counts: number[];
}

export const emptyColumns = (): UsageColumns => ({ envIds: [], kinds: [], keys: [], variants: [], counts: [] });

/**
 * Adds the counts to `hour` in one statement: rows are matched to their flag or config by the
 * environment's project, kind and key (rows matching none are left out, and so are flags and
 * configs that are not client-visible when `clientVisibleOnly`), summed per (environment,
 * primitive, variant), and added to the hour's existing counts; `last_seen_at` keeps the latest.
 * Answers how many of the given rows matched.
 */
export async function addUsage(em: EntityManager, rows: UsageColumns, hour: Date, seenAt: Date, clientVisibleOnly = false): Promise<number> {
  if (!rows.envIds.length) return 0;
  const { rows: result } = await rawQuery<{ matched: number }>(
    em,
    `with input as (
       select u.env_id, u.kind, u.key, u.variant, u.count from unnest(?::uuid[], ?::text[], ?::text[], ?::text[], ?::bigint[]) as u(env_id, kind, key, variant, count)
     ), matched as (
       select i.env_id, p.id as primitive_id, i.variant, i.count
       from input i
       join environments e on e.id = i.env_id
       join primitives p on p.project_id = e.project_id and p.kind = i.kind and p.key = i.key
       where p.client_visible or not ?::boolean
     ), added as (
       insert into usage_hours (env_id, primitive_id, variant, hour, count, last_seen_at)
       select env_id, primitive_id, variant, ?::timestamptz, sum(count), ?::timestamptz from matched group by env_id, primitive_id, variant
       on conflict (env_id, primitive_id, variant, hour) do update
         set count = usage_hours.count + excluded.count, last_seen_at = greatest(usage_hours.last_seen_at, excluded.last_seen_at)
     )
     select count(*)::int as matched from matched`,
    [rows.envIds, rows.kinds, rows.keys, rows.variants, rows.counts, clientVisibleOnly, hour.toISOString(), seenAt.toISOString()],
  );
  return result[0]?.matched ?? 0;
}

/** One usage report's entries, as parallel columns (the environment is the report's). */
export interface ReportColumns {
  kinds: PrimitiveKind[];
  keys: string[];
  variants: string[];
  /** Per entry, the rules its flag or config needs in the environment to have served the variant (domain/usage-variants.ts). */
  rulesNeeded: number[];
  counts: number[];
}

export const emptyReportColumns = (): ReportColumns => ({ kinds: [], keys: [], variants: [], rulesNeeded: [], counts: [] });

/** Where a report's entries are counted, and whose hourly budget they are counted against. */
export interface ReportTarget {
  envId: string;
  hour: Date;
  seenAt: Date;
  /** Only client-visible flags and configs match (a client key's report). */
  clientVisibleOnly: boolean;
  /** The reporter the budget belongs to (`key:…`, `client:…:<address>`, `user:…`). */
  subject: string;
  /** Evaluations the subject's reports may add to `hour`, all reports together. */
  cap: number;
}

export interface ReportedUsage {
  /** Entries naming a flag or config of the environment's project the reporter may report. */
  matched: number;
  /** Of those, entries whose variant the flag or config can serve in the environment (the rest are dropped). */
  possible: number;
  /** Evaluations the possible entries reported. */
  reported: number;
  /** Evaluations counted: `reported`, or less when the subject's budget for the hour ran out. */
  counted: number;
}

/**
 * Adds one report's entries to `hour` in one transaction of two statements. The first takes the
 * subject's budget row of the hour (created at 0) and holds its lock until the commit, so reports of
 * one subject take turns, on every instance sharing the database, and never count past `cap`
 * together. The second matches the entries to their flags and configs (by the environment's
 * project, kind and key; only client-visible ones when `clientVisibleOnly`), keeps those whose
 * variant the flag or config can serve in the environment (a `rule-<n>` needs at least n rules; an
 * archived one has none), sums them per variant, scales every sum down in proportion when their
 * total exceeds what is left of the budget (rounded down), adds them to the hour and charges the
 * budget with what was added. Nothing is written for an entry counted as 0.
 */
export async function addReportedUsage(em: EntityManager, rows: ReportColumns, target: ReportTarget): Promise<ReportedUsage> {
  if (!rows.keys.length) return { matched: 0, possible: 0, reported: 0, counted: 0 };
  return transaction(em, async (tx) => {
    const hour = target.hour.toISOString();
    const { rows: budget } = await rawQuery<{ used: string }>(
      tx,
      `insert into usage_budgets (subject, hour, used) values (?, ?::timestamptz, 0)
       on conflict (subject, hour) do update set used = usage_budgets.used
       returning used`,
      [target.subject, hour],
    );
    const left = Math.max(0, target.cap - Number(budget[0]?.used ?? 0));
    const { rows: result } = await rawQuery<{ matched: number; possible: number; reported: string; counted: string }>(
      tx,
      `with input as (
         select u.kind, u.key, u.variant, u.rules_needed, u.count
         from unnest(?::text[], ?::text[], ?::text[], ?::int[], ?::bigint[]) as u(kind, key, variant, rules_needed, count)
       ), matched as (
         select p.id as primitive_id, i.variant, i.count,
           i.rules_needed <= case when p.archived_at is null then coalesce(jsonb_array_length(ps.rules), 0) else 0 end as possible
         from input i
         join environments e on e.id = ?::uuid
         join primitives p on p.project_id = e.project_id and p.kind = i.kind and p.key = i.key
         left join primitive_states ps on ps.primitive_id = p.id and ps.env_id = e.id
         where p.client_visible or not ?::boolean
       ), summed as (
         select primitive_id, variant, sum(count) as count from matched where possible group by primitive_id, variant
       ), total as (
         select coalesce(sum(count), 0) as reported from summed
       ), scaled as (
         select s.primitive_id, s.variant,
           case when t.reported <= ?::numeric then s.count else floor(s.count * ?::numeric / t.reported) end::bigint as count
         from summed s cross join total t
       ), added as (
         insert into usage_hours (env_id, primitive_id, variant, hour, count, last_seen_at)
         select ?::uuid, primitive_id, variant, ?::timestamptz, count, ?::timestamptz from scaled where count > 0
         order by primitive_id, variant
         on conflict (env_id, primitive_id, variant, hour) do update
           set count = usage_hours.count + excluded.count, last_seen_at = greatest(usage_hours.last_seen_at, excluded.last_seen_at)
       ), charged as (
         update usage_budgets set used = used + (select coalesce(sum(count), 0) from scaled)
         where subject = ? and hour = ?::timestamptz
       )
       select (select count(*) from matched)::int as matched,
         (select count(*) from matched where possible)::int as possible,
         (select reported from total)::text as reported,
         (select coalesce(sum(count), 0) from scaled)::text as counted`,
      [
        rows.kinds,
        rows.keys,
        rows.variants,
        rows.rulesNeeded,
        rows.counts,
        target.envId,
        target.clientVisibleOnly,
        left,
        left,
        target.envId,
        hour,
        target.seenAt.toISOString(),
        target.subject,
        hour,
      ],
    );
    const r = result[0];
    return { matched: r?.matched ?? 0, possible: r?.possible ?? 0, reported: Number(r?.reported ?? 0), counted: Number(r?.counted ?? 0) };
  });
}

/** Deletes the usage budgets of the hours before `cutoff` (only the current and the previous hour take reports). */
export async function deleteUsageBudgetsBefore(em: EntityManager, cutoff: Date): Promise<number> {
  const { rowCount } = await rawQuery(em, `delete from usage_budgets where hour < ?::timestamptz`, [cutoff.toISOString()]);
  return rowCount;
}

/**
 * Deletes the hours before `cutoff`: per flag and config through the (primitive_id, hour) index,
 * so the statement reads only the rows it deletes.
 */
export async function deleteUsageBefore(em: EntityManager, cutoff: Date): Promise<number> {
  const { rowCount } = await rawQuery(
    em,
    `delete from usage_hours u using primitives p where u.primitive_id = p.id and u.hour < ?::timestamptz`,
    [cutoff.toISOString()],
  );
  return rowCount;
}

export interface UsageHourRow {
  envId: string;
  variant: string;
  hour: Date;
  count: number;
}

/** One flag's or config's hours since `since`, oldest first. */
export async function readUsageHours(em: EntityManager, primitiveId: string, since: Date): Promise<UsageHourRow[]> {
  const { rows } = await rawQuery<{ env_id: string; variant: string; hour: Date; count: string }>(
    em,
    `select env_id, variant, hour, count from usage_hours where primitive_id = ? and hour >= ?::timestamptz order by hour, env_id, variant`,
    [primitiveId, since.toISOString()],
  );
  return rows.map((r) => ({ envId: r.env_id, variant: r.variant, hour: new Date(r.hour), count: Number(r.count) }));
}

/** Per environment, the latest evaluation of one flag or config (over every retained hour). */
export async function readLastEvaluated(em: EntityManager, primitiveId: string): Promise<Map<string, Date>> {
  const { rows } = await rawQuery<{ env_id: string; last: Date }>(em, `select env_id, max(last_seen_at) as last from usage_hours where primitive_id = ? group by env_id`, [primitiveId]);
  return new Map(rows.map((r) => [r.env_id, new Date(r.last)]));
}

/** A live flag or config of a project with what the insights decide on. */
export interface InsightRow {
  id: string;
  kind: PrimitiveKind;
  key: string;
  name: string;
  createdAt: Date;
  /** The latest of its creation, its states' and its rollouts' updates. */
  lastChangedAt: Date;
  /** Every environment of the project has its state, none with rules, all with one value, and no live rollout. */
  uniform: boolean;
}

/**
 * The project's live (not archived) flags and configs, by kind and key. Rollouts are reached
 * through the project's environments, so their (env_id, primitive_id, …) indexes serve the lookup.
 */
export async function readInsightRows(em: EntityManager, projectId: string): Promise<InsightRow[]> {
  const { rows } = await rawQuery<{ id: string; kind: PrimitiveKind; key: string; name: string; created_at: Date; last_changed_at: Date; uniform: boolean }>(
    em,
    `select p.id, p.kind, p.key, p.name, p.created_at,
       greatest(p.created_at, s.last_updated, r.last_updated) as last_changed_at,
       (s.states = (select count(*) from environments e where e.project_id = p.project_id)
         and s.without_rules = s.states and s.value_count <= 1 and not r.live) as uniform
     from primitives p
     cross join lateral (
       select count(*) as states, count(*) filter (where jsonb_array_length(ps.rules) = 0) as without_rules,
         count(distinct coalesce(ps.value, 'null'::jsonb)) as value_count, max(ps.updated_at) as last_updated
       from primitive_states ps where ps.primitive_id = p.id
     ) s
     cross join lateral (
       select max(ro.updated_at) as last_updated, coalesce(bool_or(ro.status in ${LIVE_STATUSES_SQL}), false) as live
       from environments e join rollouts ro on ro.env_id = e.id and ro.primitive_id = p.id
       where e.project_id = p.project_id
     ) r
     where p.project_id = ? and p.archived_at is null
     order by p.kind, p.key`,
    [projectId],
  );
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    key: r.key,
    name: r.name,
    createdAt: new Date(r.created_at),
    lastChangedAt: new Date(r.last_changed_at),
    uniform: r.uniform,
  }));
}

/** Per flag or config and environment of the project: the latest evaluation, and the evaluations since `since`. */
export async function readProjectUsage(em: EntityManager, projectId: string, since: Date): Promise<Array<{ primitiveId: string; envId: string; lastEvaluatedAt: Date; evaluations: number }>> {
  const { rows } = await rawQuery<{ primitive_id: string; env_id: string; last: Date; evaluations: string }>(
    em,
    `select u.primitive_id, u.env_id, max(u.last_seen_at) as last, coalesce(sum(u.count) filter (where u.hour >= ?::timestamptz), 0) as evaluations
     from usage_hours u join primitives p on p.id = u.primitive_id
     where p.project_id = ? and p.archived_at is null
     group by u.primitive_id, u.env_id`,
    [since.toISOString(), projectId],
  );
  return rows.map((r) => ({ primitiveId: r.primitive_id, envId: r.env_id, lastEvaluatedAt: new Date(r.last), evaluations: Number(r.evaluations) }));
}

/** The ids of a project's flags and configs (archived too), by `<kind>:<key>`. */
export async function readPrimitiveIds(em: EntityManager, projectId: string, kinds: PrimitiveKind[], keys: string[]): Promise<Map<string, string>> {
  const { rows } = await rawQuery<{ id: string; kind: PrimitiveKind; key: string }>(
    em,
    `select p.id, p.kind, p.key from primitives p join unnest(?::text[], ?::text[]) as k(kind, key) on p.kind = k.kind and p.key = k.key where p.project_id = ?`,
    [kinds, keys, projectId],
  );
  return new Map(rows.map((r) => [`${r.kind}:${r.key}`, r.id]));
}

/** Replaces a repository's code reference report in one statement (concurrent reports of it: the last one wins whole). */
export async function saveCodeReferenceReport(
  em: EntityManager,
  report: { projectId: string; repository: string; commit: string | null; checkedAt: Date; checks: CodeReferenceCheckRow[] },
): Promise<void> {
  await rawQuery(
    em,
    `insert into code_reference_reports (project_id, repository, commit, checked_at, checks) values (?, ?, ?, ?, ?::jsonb)
     on conflict (project_id, repository) do update set commit = excluded.commit, checked_at = excluded.checked_at, checks = excluded.checks`,
    [report.projectId, report.repository, report.commit, report.checkedAt.toISOString(), JSON.stringify(report.checks)],
  );
}

export interface CodeReferenceReportRow {
  repository: string;
  commit: string | null;
  checkedAt: Date;
  checks: CodeReferenceCheckRow[];
}

/** A project's code reference reports, newest first. */
export async function readCodeReferenceReports(em: EntityManager, projectId: string): Promise<CodeReferenceReportRow[]> {
  const { rows } = await rawQuery<{ repository: string; commit: string | null; checked_at: Date; checks: CodeReferenceCheckRow[] }>(
    em,
    `select repository, commit, checked_at, checks from code_reference_reports where project_id = ? order by checked_at desc, repository`,
    [projectId],
  );
  return rows.map((r) => ({ repository: r.repository, commit: r.commit, checkedAt: new Date(r.checked_at), checks: r.checks }));
}
