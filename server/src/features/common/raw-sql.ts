import type { EntityManager, Knex } from '@mikro-orm/postgresql';
import { statementPoolOf } from '../../db/statement-pool.js';

/**
 * Runs SQL with real bound parameters ($1…, sent separately from the text) on
 * the unit of work's connection, inside its transaction when there is one.
 * MikroORM's own `execute` interpolates values into the SQL text on the
 * client, which is wrong for large arrays; bulk target-ID statements use this.
 */
export async function rawQuery<T = Record<string, unknown>>(em: EntityManager, sql: string, bindings: readonly Knex.RawBinding[] = []): Promise<{ rows: T[]; rowCount: number }> {
  const knex = em.getTransactionContext<Knex.Transaction>() ?? em.getKnex();
  const result = await knex.raw<{ rows: T[]; rowCount: number | null }>(sql, bindings);
  return { rows: result.rows, rowCount: result.rowCount ?? 0 };
}

/**
 * A named, server-side prepared statement (`$1…` placeholders) on a pooled connection of its
 * own, outside any unit of work: for the hot paths that run one statement thousands of times a
 * second. PostgreSQL parses and plans it once per connection, and the query skips MikroORM's and
 * knex's per-query work. Reads, or a write that is one statement committing on its own; never
 * from inside a transaction (a write there would escape the transaction, and on the embedded
 * database the statement would wait for that transaction to end). On the embedded database it
 * runs on the statement pool (db/statement-pool.ts), elsewhere on the ORM's pool.
 */
export async function preparedQuery<T = Record<string, unknown>>(em: EntityManager, name: string, text: string, values: unknown[]): Promise<T[]> {
  if (em.getTransactionContext()) throw new Error(`preparedQuery(${name}) inside a transaction`);
  const statements = statementPoolOf(em.config);
  if (statements) return statements.query<T>(name, text, values);
  const client = em.getKnex().client as {
    acquireConnection(): Promise<{ query(q: { name: string; text: string; values: unknown[] }): Promise<{ rows: T[] }> }>;
    releaseConnection(connection: unknown): Promise<unknown>;
  };
  const connection = await client.acquireConnection();
  try {
    return (await connection.query({ name, text, values })).rows;
  } finally {
    await client.releaseConnection(connection);
  }
}

/**
 * One statement on a hot path that sometimes runs inside a transaction (a proposal applies a
 * rollout PUT in its own): preparedQuery outside one, the same statement on the transaction's
 * connection inside (where a write commits with the transaction). `text` uses `$1…`
 * placeholders, each once and in order.
 */
export async function hotQuery<T = Record<string, unknown>>(em: EntityManager, name: string, text: string, values: Knex.RawBinding[]): Promise<T[]> {
  if (!em.getTransactionContext()) return preparedQuery<T>(em, name, text, values);
  return (await rawQuery<T>(em, text.replace(/\$\d+/g, '?'), values)).rows;
}
