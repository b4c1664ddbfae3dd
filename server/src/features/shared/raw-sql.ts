import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Runs SQL with real bound parameters ($1…, sent separately from the text) on
 * the unit of work's connection, inside its transaction when there is one.
 * MikroORM's own `execute` interpolates values into the SQL text on the
 * client, which is wrong for large arrays; bulk target-ID statements use this.
 */
export async function rawQuery<T = Record<string, unknown>>(em: EntityManager, sql: string, bindings: unknown[] = []): Promise<{ rows: T[]; rowCount: number }> {
  const knex = (em.getTransactionContext() as ReturnType<EntityManager['getKnex']> | undefined) ?? em.getKnex();
  const result = (await knex.raw(sql, bindings as never)) as { rows: T[]; rowCount: number | null };
  return { rows: result.rows, rowCount: result.rowCount ?? 0 };
}
