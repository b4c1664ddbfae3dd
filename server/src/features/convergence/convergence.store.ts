import type { EntityManager } from '@mikro-orm/postgresql';
import { rawQuery } from '../common/sql.js';

/** One instance's latest acknowledgement of a flush window. */
export interface AckRow {
  envId: string;
  instanceId: string;
  sdkName: string;
  sdkVersion: string;
  service: string | null;
  mode: 'stream' | 'poll';
  version: number;
  seenAt: Date;
  /** When it first acknowledged `version` in the window. */
  firstAckedAt: Date;
  /** It served another version before (a move, not a start): counts for the time to converge. */
  moved: boolean;
}

/**
 * Writes a flush's acknowledgements: each instance's latest (a later `last_seen` wins, so
 * instances writing out of order keep the newest), and the first acknowledgement of each version
 * (the first write wins). Rows in key order, so concurrent flushes never deadlock.
 */
const compare = (a: string | number, b: string | number): number => (a < b ? -1 : a > b ? 1 : 0);

export async function writeAcks(em: EntityManager, rows: AckRow[]): Promise<void> {
  const sorted = [...rows].sort((a, b) => compare(a.envId, b.envId) || compare(a.instanceId, b.instanceId));
  const col = <K extends keyof AckRow>(k: K) => sorted.map((r) => r[k]);
  await rawQuery(
    em,
    `insert into sdk_instances (env_id, instance_id, sdk_name, sdk_version, service, mode, version, last_seen)
       select e, i, n, v, nullif(s, ''), m, ver, seen
         from unnest(?::uuid[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::int[], ?::timestamptz[]) as u(e, i, n, v, s, m, ver, seen)
     on conflict (env_id, instance_id) do update set
       sdk_name = excluded.sdk_name, sdk_version = excluded.sdk_version, service = excluded.service, mode = excluded.mode,
       version = excluded.version, last_seen = excluded.last_seen
     where sdk_instances.last_seen <= excluded.last_seen`,
    [col('envId'), col('instanceId'), col('sdkName'), col('sdkVersion'), sorted.map((r) => r.service ?? ''), col('mode'), col('version'), sorted.map((r) => r.seenAt.toISOString())],
  );
  const byVersion = [...sorted].sort((a, b) => compare(a.envId, b.envId) || compare(a.version, b.version) || compare(a.instanceId, b.instanceId));
  await rawQuery(
    em,
    `insert into sdk_instance_versions (env_id, version, instance_id, first_acked_at, moved)
       select * from unnest(?::uuid[], ?::int[], ?::text[], ?::timestamptz[], ?::boolean[])
     on conflict (env_id, version, instance_id) do nothing`,
    [byVersion.map((r) => r.envId), byVersion.map((r) => r.version), byVersion.map((r) => r.instanceId), byVersion.map((r) => r.firstAckedAt.toISOString()), byVersion.map((r) => r.moved)],
  );
}

export async function deleteAcksBefore(em: EntityManager, before: Date): Promise<void> {
  await rawQuery(em, `delete from sdk_instances where last_seen < ?`, [before]);
  await rawQuery(em, `delete from sdk_instance_versions where first_acked_at < ?`, [before]);
}

export interface InstanceRow {
  instanceId: string;
  sdkName: string;
  sdkVersion: string;
  service: string | null;
  mode: 'stream' | 'poll';
  version: number;
  lastSeen: Date;
}

export interface LedgerRead {
  instances: number;
  current: number;
  laggards: InstanceRow[];
  bySdk: Array<{ name: string; version: string; instances: number; current: number }>;
  versions: Array<{ version: number; committedAt: Date | null; instances: number; p50Ms: number | null; p99Ms: number | null }>;
}

/** The ledger of one environment: instances seen since `since`, against its current `version`. */
export async function readLedger(em: EntityManager, envId: string, version: number, since: Date, laggardsMax: number): Promise<LedgerRead> {
  const num = (v: unknown): number => Number(v);
  const { rows: counts } = await rawQuery<{ sdk_name: string; sdk_version: string; instances: string | number; current: string | number }>(
    em,
    `select sdk_name, sdk_version, count(*) as instances, count(*) filter (where version >= ?) as current
       from sdk_instances where env_id = ? and last_seen >= ? group by sdk_name, sdk_version order by sdk_name, sdk_version`,
    [version, envId, since],
  );
  const bySdk = counts.map((r) => ({ name: r.sdk_name, version: r.sdk_version, instances: num(r.instances), current: num(r.current) }));
  const { rows: lagging } = await rawQuery<{ instance_id: string; sdk_name: string; sdk_version: string; service: string | null; mode: string; version: number; last_seen: string | Date }>(
    em,
    `select instance_id, sdk_name, sdk_version, service, mode, version, last_seen
       from sdk_instances where env_id = ? and last_seen >= ? and version < ?
       order by version asc, last_seen desc, instance_id asc limit ?`,
    [envId, since, version, laggardsMax],
  );
  const laggards = lagging.map((r) => ({
    instanceId: r.instance_id,
    sdkName: r.sdk_name,
    sdkVersion: r.sdk_version,
    service: r.service,
    mode: r.mode === 'poll' ? ('poll' as const) : ('stream' as const),
    version: num(r.version),
    lastSeen: new Date(r.last_seen),
  }));
  // The latest versions acknowledged, each with its commit (its audit rows' first) and the time
  // from it to each moving instance's first acknowledgement.
  const { rows: versions } = await rawQuery<{ version: number; committed_at: string | Date | null; instances: string | number; p50: number | string | null; p99: number | string | null }>(
    em,
    `with latest as (
       select distinct version from sdk_instance_versions where env_id = ? order by version desc limit 5
     ), committed as (
       select a.version, min(a.created_at) as committed_at from audit_events a join latest l on l.version = a.version
        where a.env_id = ? group by a.version
     )
     select v.version, c.committed_at, count(*) as instances,
            percentile_cont(0.5) within group (order by extract(epoch from v.first_acked_at - c.committed_at) * 1000) filter (where v.moved and c.committed_at is not null) as p50,
            percentile_cont(0.99) within group (order by extract(epoch from v.first_acked_at - c.committed_at) * 1000) filter (where v.moved and c.committed_at is not null) as p99
       from sdk_instance_versions v join latest l on l.version = v.version left join committed c on c.version = v.version
      where v.env_id = ? group by v.version, c.committed_at order by v.version desc`,
    [envId, envId, envId],
  );
  const ms = (v: unknown) => (v === null || v === undefined ? null : Math.max(0, Math.round(num(v))));
  return {
    instances: bySdk.reduce((n, s) => n + s.instances, 0),
    current: bySdk.reduce((n, s) => n + s.current, 0),
    laggards,
    bySdk,
    versions: versions.map((r) => ({
      version: num(r.version),
      committedAt: r.committed_at === null ? null : new Date(r.committed_at),
      instances: num(r.instances),
      p50Ms: ms(r.p50),
      p99Ms: ms(r.p99),
    })),
  };
}

/** How many of an environment's instances seen since `since` there are, and how many serve `version` or a later one. */
export async function fleetShare(em: EntityManager, envId: string, version: number, since: Date): Promise<{ instances: number; serving: number }> {
  const { rows } = await rawQuery<{ instances: string | number; serving: string | number }>(
    em,
    `select count(*) as instances, count(*) filter (where version >= ?) as serving from sdk_instances where env_id = ? and last_seen >= ?`,
    [version, envId, since],
  );
  return { instances: Number(rows[0]?.instances ?? 0), serving: Number(rows[0]?.serving ?? 0) };
}

/**
 * An environment's instances seen since `since`, how many serve `version` or a later one, and when
 * `percent` of them first did (the first acknowledgement of such a version of the instance that
 * made it that many; null when fewer serve it).
 */
export async function servedBy(em: EntityManager, envId: string, version: number, since: Date, percent: number): Promise<{ instances: number; serving: number; reachedAt: Date | null }> {
  const { rows } = await rawQuery<{ instances: string | number; serving: string | number; reached_at: string | Date | null }>(
    em,
    `with fleet as (select instance_id from sdk_instances where env_id = ? and last_seen >= ?),
          served as (
            select v.instance_id, min(v.first_acked_at) as at from sdk_instance_versions v join fleet f on f.instance_id = v.instance_id
             where v.env_id = ? and v.version >= ? group by v.instance_id),
          needed as (select greatest(ceil(count(*) * ?::float8 / 100)::int, 1) as n from fleet)
     select (select count(*) from fleet) as instances, (select count(*) from served) as serving,
            (select at from served order by at offset (select n - 1 from needed) limit 1) as reached_at`,
    [envId, since, envId, version, percent],
  );
  const row = rows[0];
  const instances = Number(row?.instances ?? 0);
  const serving = Number(row?.serving ?? 0);
  const enough = instances > 0 && serving >= Math.ceil((instances * percent) / 100);
  return { instances, serving, reachedAt: enough && row?.reached_at ? new Date(row.reached_at) : null };
}

/** Per environment with instances seen since `since`: how many, and how many serve its current version. */
export async function fleetByEnvironment(em: EntityManager, since: Date): Promise<Array<{ envId: string; instances: number; current: number }>> {
  const { rows } = await rawQuery<{ env_id: string; instances: string | number; current: string | number }>(
    em,
    `select i.env_id, count(*) as instances, count(*) filter (where i.version >= e.version) as current
       from sdk_instances i join environments e on e.id = i.env_id where i.last_seen >= ? group by i.env_id order by i.env_id`,
    [since],
  );
  return rows.map((r) => ({ envId: r.env_id, instances: Number(r.instances), current: Number(r.current) }));
}
