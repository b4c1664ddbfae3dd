/**
 * Optional SQL attribution (BENCH_PROFILE=1): wraps the `pg` client MikroORM/knex use, so a
 * measured section can say how much of its wall time was spent waiting for each kind of
 * statement (round trip included) and how much was JavaScript in between. Statements are
 * grouped by their text with literals and parameters folded. Off by default: the wrapper
 * costs a little per query.
 */
import { createRequire } from 'node:module';

interface Bucket {
  count: number;
  ms: number;
  rows: number;
}

type QueryFn = (...args: unknown[]) => unknown;

let installed = false;
let active: Map<string, Bucket> | null = null;

function shape(text: string): string {
  // Only the head: bulk statements carry their values inline and can be megabytes long.
  return text
    .slice(0, 300)
    .replace(/\s+/g, ' ')
    .replace(/'[^']*'/g, "'…'")
    .replace(/\$\d+/g, '$…')
    .replace(/\b\d+\b/g, 'N')
    .slice(0, 120);
}

function install(): void {
  if (installed) return;
  installed = true;
  // The very `pg` instance @mikro-orm/postgresql (knex) loads.
  const req = createRequire(createRequire(import.meta.url).resolve('@mikro-orm/postgresql'));
  const pg = req('pg') as { Client: { prototype: { query: QueryFn } } };
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
    const buckets = active;
    if (!buckets) return original.apply(this, args);
    const first = args[0] as string | { text?: string };
    const text = typeof first === 'string' ? first : (first?.text ?? '?');
    const key = shape(text);
    const start = performance.now();
    const record = (rows: number) => {
      const b = buckets.get(key) ?? { count: 0, ms: 0, rows: 0 };
      b.count++;
      b.ms += performance.now() - start;
      b.rows += rows;
      buckets.set(key, b);
    };
    const last = args[args.length - 1];
    if (typeof last === 'function') {
      args[args.length - 1] = (err: unknown, res: { rowCount?: number | null } | undefined) => {
        record(res?.rowCount ?? 0);
        (last as (e: unknown, r: unknown) => void)(err, res);
      };
      return original.apply(this, args);
    }
    const out = original.apply(this, args);
    if (out && typeof (out as Promise<unknown>).then === 'function') {
      (out as Promise<{ rowCount?: number | null }>).then(
        (res) => record(res?.rowCount ?? 0),
        () => record(0),
      );
    }
    return out;
  };
}

export interface SqlProfile {
  wallMs: number;
  sqlMs: number;
  statements: number;
  byStatement: Array<{ sql: string } & Bucket>;
}

/** Runs `fn` with every pg query attributed; returns its result and the profile. */
export async function profileSql<T>(fn: () => Promise<T>): Promise<{ value: T; profile: SqlProfile }> {
  install();
  const buckets = new Map<string, Bucket>();
  active = buckets;
  const start = performance.now();
  try {
    const value = await fn();
    const wallMs = performance.now() - start;
    const byStatement = [...buckets].map(([sql, b]) => ({ sql, ...b })).sort((a, b) => b.ms - a.ms);
    return {
      value,
      profile: { wallMs, sqlMs: byStatement.reduce((a, b) => a + b.ms, 0), statements: byStatement.reduce((a, b) => a + b.count, 0), byStatement },
    };
  } finally {
    active = null;
  }
}

export function renderSqlProfile(p: SqlProfile, top = 8): string[] {
  const lines = [
    `profile: ${p.statements} statements, waiting on SQL ${(p.sqlMs / 1000).toFixed(2)} s of ${(p.wallMs / 1000).toFixed(2)} s wall ` +
      `(${((100 * p.sqlMs) / p.wallMs).toFixed(0)}%; the rest is JavaScript between statements)`,
  ];
  for (const s of p.byStatement.slice(0, top)) {
    lines.push(`  ${(s.ms / 1000).toFixed(2).padStart(6)} s  ×${String(s.count).padEnd(6)} rows ${String(s.rows).padEnd(7)} ${s.sql}`);
  }
  return lines;
}
