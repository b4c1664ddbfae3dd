/**
 * CPU time spent by a measured section, less sensitive than wall time to other processes on a
 * shared machine: this process (all threads, so the embedded database's worker too) and, for a
 * local PostgreSQL, its server processes serving our database (read from /proc; skipped when
 * that is not possible, e.g. a remote server or another OS).
 */
import { readFile } from 'node:fs/promises';
import type { Database } from '../../server/src/db/database.js';
import { withAdminConnection } from '../../server/src/db/admin.js';
import { rawQuery } from '../../server/src/features/common/sql.js';

const TICKS_PER_S = 100; // USER_HZ on Linux

/** CPU time (user + system, ms) a process has used so far; null when /proc cannot tell. */
export async function procCpuMs(pid: number): Promise<number | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of /proc/<pid>/stat (1-based); the slice starts at field 3.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_S;
  } catch {
    return null;
  }
}

export interface CpuSnapshot {
  process: NodeJS.CpuUsage;
  server: Map<number, number> | null;
}

async function serverPids(db: Database): Promise<number[] | null> {
  if (db.kind !== 'postgres' || process.platform !== 'linux') return null;
  const { rows } = await rawQuery<{ pid: number }>(db.em(), 'select pid from pg_stat_activity where datname = current_database()');
  return rows.map((r) => r.pid);
}

export async function cpuSnapshot(db: Database): Promise<CpuSnapshot> {
  const pids = await serverPids(db);
  let server: Map<number, number> | null = null;
  if (pids) {
    server = new Map();
    for (const pid of pids) {
      const ms = await procCpuMs(pid);
      if (ms === null) return { process: process.cpuUsage(), server: null };
      server.set(pid, ms);
    }
  }
  return { process: process.cpuUsage(), server };
}

export interface CpuSpent {
  /** This process, all threads (ms). */
  processMs: number;
  /** PostgreSQL server processes of our database (ms); null when not measurable. */
  serverMs: number | null;
}

/** CPU spent since `before`. Server processes that appeared meanwhile count from zero. */
export async function cpuSince(db: Database, before: CpuSnapshot): Promise<CpuSpent> {
  const usage = process.cpuUsage(before.process);
  const processMs = (usage.user + usage.system) / 1000;
  if (!before.server) return { processMs, serverMs: null };
  const pids = (await serverPids(db)) ?? [];
  let serverMs = 0;
  for (const pid of new Set([...pids, ...before.server.keys()])) {
    const now = await procCpuMs(pid);
    if (now === null) return { processMs, serverMs: null }; // a backend exited: its time is lost
    serverMs += now - (before.server.get(pid) ?? 0);
  }
  return { processMs, serverMs };
}

/**
 * CPU time (ms) used so far by the PostgreSQL server processes connected to the database of
 * `databaseUrl` (another process's pool, e.g. a production start), read through a connection of
 * our own, which is left out. Null when not measurable.
 */
export async function pgBackendsCpuMs(databaseUrl: string): Promise<Map<number, number> | null> {
  if (process.platform !== 'linux') return null;
  const rows = await withAdminConnection(databaseUrl, (execute) =>
    execute('select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()'),
  );
  const out = new Map<number, number>();
  for (const { pid } of rows as Array<{ pid: number }>) {
    const ms = await procCpuMs(pid);
    if (ms === null) return null;
    out.set(pid, ms);
  }
  return out;
}

/** CPU between two pgBackendsCpuMs readings; backends that appeared meanwhile count from zero. */
export function pgBackendsCpuSpent(before: Map<number, number> | null, after: Map<number, number> | null): number | null {
  if (!before || !after) return null;
  let ms = 0;
  for (const [pid, now] of after) ms += now - (before.get(pid) ?? 0);
  return ms;
}
