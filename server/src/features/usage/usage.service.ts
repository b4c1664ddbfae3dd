import type { EntityManager } from '@mikro-orm/postgresql';
import type { z } from 'zod';
import { KEY_MAX_LENGTH, type CodeReferenceReport, type CodeReferenceReportAccepted, type InsightStatus, type PrimitiveInsight, type PrimitiveUsage, type UsageReport, type UsageReportAccepted } from '@gradual/contract';
import { EnvironmentEntity, PrimitiveEntity, type CodeReferenceCheckRow, type PrimitiveKind } from '../../db/entities/index.js';
import { DomainError } from '../../domain/errors.js';
import { RULES_PER_PRIMITIVE_MAX, rulesNeededFor } from '../../domain/usage-variants.js';
import { clientAddressKey } from '../../rate-limits/client-address.js';
import { authorize, tokenSees, type Caller } from '../access/authorize.js';
import type { EnvDirectory } from '../environments/env-directory.js';
import { findProject, iso } from '../common/lookup.js';
import {
  addReportedUsage,
  emptyReportColumns,
  readCodeReferenceReports,
  readInsightRows,
  readLastEvaluated,
  readPrimitiveIds,
  readProjectUsage,
  readUsageHours,
  saveCodeReferenceReport,
  type CodeReferenceReportRow,
} from './usage.store.js';

const HOUR_MS = 3600_000;
const DAY_MS = 24 * HOUR_MS;
/** Usage hours are kept this long; the periodic flush deletes older ones. */
export const USAGE_RETENTION_MS = 90 * DAY_MS;
/** How far a report's `windowEnd` may lie ahead of the server's clock (clients' clocks drift). */
export const USAGE_CLOCK_SKEW_MS = 5 * 60_000;
/** The longest report window. */
export const USAGE_WINDOW_MAX_MS = HOUR_MS;
/** Reports are counted in the current hour of the server's clock or in this many hours before it. */
export const USAGE_REPORT_HOURS_BACK = 1;

export const DEFAULT_USAGE_DAYS = 7;
export const DEFAULT_STALE_AFTER_DAYS = 7;
export const DEFAULT_READY_AFTER_DAYS = 30;

/** The start of the UTC hour `at` falls in. */
export function startOfHour(at: Date): Date {
  return new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS);
}

type Report = z.infer<typeof UsageReport>;
type ReportAnswer = z.infer<typeof UsageReportAccepted>;

/** How many evaluations reports may add to one hour (USAGE_REPORT_MAX_* settings, docs/usage.md). */
export interface UsageReportCaps {
  /** Per API key (sdk, api, agent) and per signed-in user. */
  perKeyPerHour: number;
  /** Per client key and client address (IPv6 per /64): a client key is public, shared by every visitor. */
  perClientAddressPerHour: number;
}

/** Whose hourly budget a report is counted against, and how large that budget is. */
function budgetOf(caller: Caller, caps: UsageReportCaps): { subject: string; cap: number } {
  const principal = caller.principal;
  if (principal?.kind === 'token' && principal.key.kind === 'client') {
    return { subject: `client:${principal.key.id}:${clientAddressKey(caller.ip)}`, cap: caps.perClientAddressPerHour };
  }
  if (principal?.kind === 'token') return { subject: `key:${principal.key.id}`, cap: caps.perKeyPerHour };
  return { subject: `user:${principal?.userId ?? 'anonymous'}`, cap: caps.perKeyPerHour };
}

/**
 * Adds an SDK's evaluation counts of one window to the hour its end falls in (a window end a
 * little ahead of the clock counts as now). Whoever may evaluate the environment may report; a
 * client key only for client-visible flags and configs, a key restricted to some flags and
 * configs only for those. A bad window, or one ending before the previous hour of the server's
 * clock, refuses the whole report (`invalid_request` naming the field), so nothing is counted.
 * Entries naming no flag or config it may report are skipped; entries with a variant the flag or
 * config cannot serve in the environment are dropped; the reporter's evaluations per hour are
 * capped (per client address for a client key), and what is over the cap is not counted.
 */
export async function reportUsage(em: EntityManager, caller: Caller, envs: EnvDirectory, envId: string, report: Report, caps: UsageReportCaps): Promise<ReportAnswer> {
  const env = await envs.get(em, envId);
  await authorize(em, caller, env.orgId, { action: 'read', envId: env.id, evaluation: true });
  const now = caller.now;
  const start = new Date(report.windowStart);
  const end = new Date(report.windowEnd);
  if (end.getTime() > now.getTime() + USAGE_CLOCK_SKEW_MS) {
    throw new DomainError('invalid_request', 'The window ends in the future.', { fields: { windowEnd: `must not be later than the server's clock (${iso(now)}) plus ${USAGE_CLOCK_SKEW_MS / 60_000} minutes` } });
  }
  const earliest = new Date(startOfHour(now).getTime() - USAGE_REPORT_HOURS_BACK * HOUR_MS);
  if (end.getTime() < earliest.getTime()) {
    throw new DomainError('invalid_request', 'The window ended before the previous hour.', { fields: { windowEnd: `must be in the current or the previous hour of the server's clock (not before ${iso(earliest)})` } });
  }
  if (start.getTime() > end.getTime()) {
    throw new DomainError('invalid_request', 'The window starts after it ends.', { fields: { windowStart: 'must not be later than windowEnd' } });
  }
  if (end.getTime() - start.getTime() > USAGE_WINDOW_MAX_MS) {
    throw new DomainError('invalid_request', 'The window is longer than an hour.', { fields: { windowStart: 'must be at most one hour before windowEnd' } });
  }
  const principal = caller.principal;
  const clientKey = principal?.kind === 'token' && principal.key.kind === 'client';
  const columns = emptyReportColumns();
  for (const entry of report.entries) {
    if (!tokenSees(caller, env.id, entry.key)) continue;
    // A variant no evaluation serves still goes to the match, so that its entry is told apart
    // (`dropped` when the key names a flag or config it may report, `skipped` otherwise); it
    // needs more rules than any flag or config has, so nothing of it is counted.
    const rulesNeeded = rulesNeededFor(entry.variant);
    columns.kinds.push(entry.kind);
    columns.keys.push(entry.key);
    columns.variants.push(rulesNeeded === null ? '' : entry.variant);
    columns.rulesNeeded.push(rulesNeeded ?? RULES_PER_PRIMITIVE_MAX + 1);
    columns.counts.push(entry.count);
  }
  const seen = end.getTime() > now.getTime() ? now : end;
  const added = await addReportedUsage(em, columns, { envId: env.id, hour: startOfHour(seen), seenAt: seen, clientVisibleOnly: clientKey, ...budgetOf(caller, caps) });
  return {
    accepted: added.possible,
    skipped: report.entries.length - added.matched,
    dropped: added.matched - added.possible,
    overLimit: added.reported - added.counted,
  };
}

type Usage = z.infer<typeof PrimitiveUsage>;

/** A flag's or config's evaluations over the last `days` days per environment the caller may read: total, per variant, per hour. */
export async function getPrimitiveUsage(em: EntityManager, caller: Caller, kind: PrimitiveKind, projectId: string, key: string, days = DEFAULT_USAGE_DAYS): Promise<Usage> {
  const project = await findProject(em, projectId);
  await authorize(em, caller, project.orgId, { action: 'read', projectId, resourceKey: key });
  const primitive = key.length <= KEY_MAX_LENGTH ? await em.findOne(PrimitiveEntity, { projectId, kind, key }) : null;
  if (!primitive) throw new DomainError('not_found', `No ${kind} "${key}" in this project.`);
  const since = new Date(caller.now.getTime() - days * DAY_MS);
  const envs = (await em.find(EnvironmentEntity, { projectId }, { orderBy: { createdAt: 'asc', key: 'asc' } })).filter((e) => tokenSees(caller, e.id));
  const hours = await readUsageHours(em, primitive.id, startOfHour(since));
  const last = await readLastEvaluated(em, primitive.id);
  return {
    kind,
    key,
    days,
    environments: envs.map((env) => {
      const own = hours.filter((h) => h.envId === env.id);
      const variants = new Map<string, number>();
      const hourly = new Map<number, number>();
      let total = 0;
      for (const h of own) {
        total += h.count;
        variants.set(h.variant, (variants.get(h.variant) ?? 0) + h.count);
        hourly.set(h.hour.getTime(), (hourly.get(h.hour.getTime()) ?? 0) + h.count);
      }
      const lastAt = last.get(env.id);
      return {
        envId: env.id,
        envKey: env.key,
        lastEvaluatedAt: lastAt ? iso(lastAt) : null,
        total,
        variants: [...variants].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([variant, count]) => ({ variant, count })),
        hourly: [...hourly].sort(([a], [b]) => a - b).map(([hour, count]) => ({ hour: iso(new Date(hour)), count })),
      };
    }),
  };
}

type Insight = z.infer<typeof PrimitiveInsight>;
type Status = z.infer<typeof InsightStatus>;

export interface InsightsQuery {
  staleAfterDays?: number | undefined;
  readyAfterDays?: number | undefined;
  status?: Status | undefined;
}

/**
 * The status of one flag or config, first match wins:
 * `new`: created within `staleAfterDays` and never evaluated (in the retained hours);
 * `ready_to_remove`: serves one value to everyone everywhere (`uniform`) and unchanged for `readyAfterDays`;
 * `not_evaluated`: no evaluation in any environment in the last `staleAfterDays`;
 * `in_use` otherwise.
 */
export function insightStatus(
  p: { createdAt: Date; lastChangedAt: Date; uniform: boolean; lastEvaluatedAt: Date | null; evaluations: number },
  now: Date,
  staleAfterDays: number,
  readyAfterDays: number,
): Status {
  const age = (at: Date) => now.getTime() - at.getTime();
  if (p.lastEvaluatedAt === null && age(p.createdAt) < staleAfterDays * DAY_MS) return 'new';
  if (p.uniform && age(p.lastChangedAt) >= readyAfterDays * DAY_MS) return 'ready_to_remove';
  if (p.evaluations === 0) return 'not_evaluated';
  return 'in_use';
}

/** The project's live flags and configs the caller may read, with their usage, last change and status (optionally only one status). */
export async function listInsights(em: EntityManager, caller: Caller, projectId: string, query: InsightsQuery): Promise<Insight[]> {
  const project = await findProject(em, projectId);
  await authorize(em, caller, project.orgId, { action: 'read', projectId });
  const staleAfterDays = query.staleAfterDays ?? DEFAULT_STALE_AFTER_DAYS;
  const readyAfterDays = query.readyAfterDays ?? DEFAULT_READY_AFTER_DAYS;
  const now = caller.now;
  const since = new Date(now.getTime() - staleAfterDays * DAY_MS);
  const rows = await readInsightRows(em, projectId);
  const usage = await readProjectUsage(em, projectId, since);
  const codeReferencesOf = codeReferencesByPrimitive(await readCodeReferenceReports(em, projectId));
  // A token restricted to some environments sees their usage only.
  const visibleEnvs = (await em.find(EnvironmentEntity, { projectId }, { orderBy: { createdAt: 'asc', key: 'asc' } })).filter((e) => tokenSees(caller, e.id));
  const usageOf = new Map<string, Map<string, { lastEvaluatedAt: Date; evaluations: number }>>();
  for (const u of usage) {
    let byEnv = usageOf.get(u.primitiveId);
    if (!byEnv) usageOf.set(u.primitiveId, (byEnv = new Map<string, { lastEvaluatedAt: Date; evaluations: number }>()));
    byEnv.set(u.envId, u);
  }
  const insights: Insight[] = [];
  for (const row of rows) {
    if (!tokenSees(caller, undefined, row.key)) continue;
    const byEnv = usageOf.get(row.id);
    let lastEvaluatedAt: Date | null = null;
    let evaluations = 0;
    for (const env of visibleEnvs) {
      const u = byEnv?.get(env.id);
      if (!u) continue;
      evaluations += u.evaluations;
      if (!lastEvaluatedAt || u.lastEvaluatedAt > lastEvaluatedAt) lastEvaluatedAt = u.lastEvaluatedAt;
    }
    const status = insightStatus({ ...row, lastEvaluatedAt, evaluations }, now, staleAfterDays, readyAfterDays);
    if (query.status && status !== query.status) continue;
    const codeReferences = codeReferencesOf.get(row.id) ?? [];
    insights.push({
      kind: row.kind,
      key: row.key,
      name: row.name,
      status,
      createdAt: iso(row.createdAt),
      lastChangedAt: iso(row.lastChangedAt),
      lastEvaluatedAt: lastEvaluatedAt ? iso(lastEvaluatedAt) : null,
      evaluations,
      environments: visibleEnvs.map((env) => {
        const u = byEnv?.get(env.id);
        return { envId: env.id, envKey: env.key, lastEvaluatedAt: u ? iso(u.lastEvaluatedAt) : null, evaluations: u?.evaluations ?? 0 };
      }),
      codeReferences,
      safeToRemove: evaluations === 0 && status !== 'new' && codeReferences.length > 0 && codeReferences.every((c) => c.references === 0),
    });
  }
  return insights;
}

type CodeReferences = Insight['codeReferences'][number];

/** Each primitive's latest check per repository (reports come newest first). */
function codeReferencesByPrimitive(reports: CodeReferenceReportRow[]): Map<string, CodeReferences[]> {
  const byPrimitive = new Map<string, CodeReferences[]>();
  for (const report of reports) {
    for (const check of report.checks) {
      let list = byPrimitive.get(check.primitiveId);
      if (!list) byPrimitive.set(check.primitiveId, (list = []));
      list.push({ repository: report.repository, commit: report.commit, checkedAt: iso(report.checkedAt), references: check.references, locations: check.locations });
    }
  }
  return byPrimitive;
}

/**
 * Records what a code base's type check found about keys of the project (`gradual flags stale
 * --report`), replacing that repository's previous report. Every key must be a flag or config of
 * the project (archived ones too) that the caller may see; a key named twice is refused. Evidence
 * for removal is a write: it needs write access.
 */
export async function reportCodeReferences(
  em: EntityManager,
  caller: Caller,
  projectId: string,
  report: z.infer<typeof CodeReferenceReport>,
): Promise<z.infer<typeof CodeReferenceReportAccepted>> {
  const project = await findProject(em, projectId);
  // Evidence about the project's keys, whatever the environment: not for keys restricted to some.
  await authorize(em, caller, project.orgId, { action: 'write', projectId, allEnvironments: true });
  const outOfScope = report.checks.find((c) => !tokenSees(caller, undefined, c.key));
  if (outOfScope) throw new DomainError('token_resource_out_of_scope', `This API key is not scoped to "${outOfScope.key}".`);
  const ids = await readPrimitiveIds(
    em,
    projectId,
    report.checks.map((c) => c.kind),
    report.checks.map((c) => c.key),
  );
  const fields: Record<string, string> = {};
  const checks: CodeReferenceCheckRow[] = [];
  const seen = new Set<string>();
  report.checks.forEach((c, i) => {
    const ref = `${c.kind}:${c.key}`;
    const primitiveId = ids.get(ref);
    if (primitiveId === undefined) fields[`checks.${i}.key`] = `no ${c.kind} "${c.key}" in this project`;
    else if (seen.has(ref)) fields[`checks.${i}.key`] = `${c.kind} "${c.key}" is checked twice`;
    else checks.push({ primitiveId, references: c.references, locations: c.locations });
    seen.add(ref);
  });
  if (Object.keys(fields).length) throw new DomainError('invalid_request', 'Some checks name no flag or config of the project.', { fields });
  const checkedAt = caller.now;
  const commit = report.commit ?? null;
  await saveCodeReferenceReport(em, {
    projectId,
    repository: report.repository,
    commit,
    checkedAt,
    checks,
  });
  return { repository: report.repository, commit, checkedAt: iso(checkedAt), checks: report.checks.length };
}
