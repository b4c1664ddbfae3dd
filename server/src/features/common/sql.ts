import { ReferenceKind, type EntityMetadata, type EntityProperty } from '@mikro-orm/core';
import type { EntityManager, Knex } from '@mikro-orm/postgresql';
import { PREPARED_STATEMENTS, type PreparedStatements } from '../../db/database.js';
import { retryConflicts } from '../../db/transaction.js';

/*
 * The server's typed SQL: the one place statements are sent to the database other than through
 * MikroORM's entities. Entities and their CRUD go through MikroORM's unit of work; the bulk and
 * hot paths (allow-list edits, rollout transitions and their environment changes, the
 * current-rollout lookups, the ruleset read) send bound-parameter SQL through the functions here:
 *
 * - rawQuery: a statement on the unit of work's connection, inside its transaction if any.
 * - preparedQuery: a named statement outside any unit of work (the hot reads and one-statement
 *   writes); hotQuery picks it or rawQuery by whether a transaction is open.
 * - BoundRows: an entity's rows read and written as bound JSON (jsonb_to_recordset), with the
 *   column list taken from MikroORM's metadata.
 * - builtOnce: statement text built once (from metadata) and reused.
 *
 * Connections come only from public APIs: knex's `raw` (the ORM's knex, or its transaction) and
 * the statement pool the database opened beside the ORM (pg's own pool).
 */

/**
 * Runs SQL with real bound parameters (`?` placeholders, values sent apart from the text) on
 * the unit of work's connection, inside its transaction when there is one. MikroORM's own
 * `execute` interpolates values into the SQL text on the client, which is wrong for large
 * arrays; bulk target-ID statements use this.
 */
export async function rawQuery<T = Record<string, unknown>>(em: EntityManager, sql: string, bindings: readonly Knex.RawBinding[] = []): Promise<{ rows: T[]; rowCount: number }> {
  const tx = em.getTransactionContext<Knex.Transaction>();
  const run = async () => {
    const result = await (tx ?? em.getKnex()).raw<{ rows: T[]; rowCount: number | null }>(sql, bindings);
    return { rows: result.rows, rowCount: result.rowCount ?? 0 };
  };
  // Outside a transaction the statement commits on its own: one that lost a race is run again.
  return tx ? run() : retryConflicts(em, run);
}

/**
 * A named statement (`$1…` placeholders, each may repeat) outside any unit of work: for the hot
 * paths that run one statement thousands of times a second. Reads, or a write that is one
 * statement committing on its own; never from inside a transaction (a write there would escape
 * the transaction, and on the embedded database the statement would wait for that transaction
 * to end). It runs on the database's statement pool (PREPARED_STATEMENTS), prepared once per
 * connection (PostgreSQL parses and plans it once); on an ORM opened without one, through knex.
 */
export async function preparedQuery<T = Record<string, unknown>>(em: EntityManager, name: string, text: string, values: readonly Knex.RawBinding[]): Promise<T[]> {
  if (em.getTransactionContext()) throw new Error(`preparedQuery(${name}) inside a transaction`);
  const statements = em.config.getExtension<PreparedStatements>(PREPARED_STATEMENTS);
  // The statement commits on its own: one that lost a race (deadlock, serialization) is run again.
  if (statements) return retryConflicts(em, () => statements.query<T>(name, text, [...values]));
  const { sql, bindings } = positional(text, values);
  return (await rawQuery<T>(em, sql, bindings)).rows;
}

/**
 * One statement on a hot path that sometimes runs inside a transaction (a proposal applies a
 * rollout PUT in its own, a ruleset read with segments in a snapshot): preparedQuery outside one, the same statement on the transaction's
 * connection inside (where a write commits with the transaction).
 */
export async function hotQuery<T = Record<string, unknown>>(em: EntityManager, name: string, text: string, values: readonly Knex.RawBinding[]): Promise<T[]> {
  if (!em.getTransactionContext()) return preparedQuery<T>(em, name, text, values);
  const { sql, bindings } = positional(text, values);
  return (await rawQuery<T>(em, sql, bindings)).rows;
}

/** `$n` placeholders as knex's `?` ones, with the values in the order they appear (a `$n` may repeat). */
function positional(text: string, values: readonly Knex.RawBinding[]): { sql: string; bindings: Knex.RawBinding[] } {
  const bindings: Knex.RawBinding[] = [];
  const sql = text.replace(/\$(\d+)/g, (_, n: string) => {
    const index = Number(n) - 1;
    if (index >= values.length) throw new Error(`no value for $${n}`);
    bindings.push(values[index]!);
    return '?';
  });
  return { sql, bindings };
}

/** `?` placeholders (as the statement builders write them) numbered `$1…` in order, for a named statement. */
export function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

const built = new Map<string, string>();

/** Statement text built on first use and kept: statements built from entity metadata never change at run time. */
export function builtOnce(name: string, build: () => string): string {
  let text = built.get(name);
  if (text === undefined) built.set(name, (text = build()));
  return text;
}

/**
 * Column types a row can pass through JSON (jsonb_to_recordset) and come back from a raw select
 * as the value the entity holds: Dates travel as ISO instants, JSON properties stay nested (a
 * JSON null becomes SQL NULL, as the ORM writes a JS null).
 */
const PASSABLE_COLUMNS = new Set(['uuid', 'text', 'int', 'integer', 'double precision', 'double', 'boolean', 'timestamptz', 'jsonb']);

/**
 * Rows of one entity read and written with bound-parameter SQL, outside the unit of work: for the
 * hot write paths (rollout transitions and their audit rows), where MikroORM's find, change-set
 * and flush work cost more CPU than the statements themselves, and a flush inlines every value
 * into the SQL text. This class builds the SQL and maps the rows; the caller runs the statements
 * (rawQuery), often several as one (data-modifying CTEs). Objects read here are detached (plain
 * objects of the entity's type): nothing saves them unless the caller writes them back.
 *
 * The column list comes from the entity's metadata, so a new property is picked up without a
 * change here; a property this mapping cannot carry is refused when the mapping is first built.
 */
export class BoundRows<T extends object> {
  private readonly props: EntityProperty[];
  private readonly primaryKey: string;
  private readonly columns: string;
  private readonly definitions: string;
  /** `x."col", …` for selects from the table aliased `x`. */
  readonly selectList: string;

  private constructor(private readonly meta: EntityMetadata) {
    this.props = meta.props.filter((p) => p.persist !== false);
    for (const p of this.props) {
      if (p.fieldNames.length !== 1 || !PASSABLE_COLUMNS.has(p.columnTypes[0]!) || (p.kind !== ReferenceKind.SCALAR && !(p.kind === ReferenceKind.MANY_TO_ONE && p.mapToPk))) {
        throw new Error(`BoundRows cannot carry ${meta.className}.${p.name} (${p.kind}, ${p.columnTypes.join(', ')})`);
      }
    }
    const [pk] = meta.primaryKeys;
    if (meta.primaryKeys.length !== 1 || !pk) throw new Error(`BoundRows needs a single primary key (${meta.className})`);
    this.primaryKey = meta.properties[pk]!.fieldNames[0]!;
    this.columns = this.props.map((p) => `"${p.fieldNames[0]}"`).join(', ');
    this.definitions = this.props.map((p) => `"${p.fieldNames[0]}" ${p.columnTypes[0]}`).join(', ');
    this.selectList = this.props.map((p) => `x."${p.fieldNames[0]}"`).join(', ');
  }

  /**
   * `insert … select … from jsonb_to_recordset(?::jsonb) as r(…)`: inserts the rows bound as one
   * jsonb parameter (toJson). `expressions` replaces a column's value (default `r."col"`);
   * `join` adds to the FROM clause, e.g. a CTE the expressions read.
   */
  insertStatement(opts: { expressions?: Record<string, string>; join?: string } = {}): string {
    const values = this.props.map((p) => opts.expressions?.[p.fieldNames[0]!] ?? `r."${p.fieldNames[0]}"`).join(', ');
    return `insert into "${this.meta.tableName}" (${this.columns}) select ${values} from jsonb_to_recordset(?::jsonb) as r(${this.definitions})${opts.join ? ` ${opts.join}` : ''}`;
  }

  /**
   * `update … as t`: writes every column of each bound row (toJson), matched by primary key.
   * `expressions` and `join` as for insertStatement.
   */
  updateStatement(opts: { expressions?: Record<string, string>; join?: string } = {}): string {
    const assignments = this.props
      .filter((p) => p.fieldNames[0] !== this.primaryKey)
      .map((p) => `"${p.fieldNames[0]}" = ${opts.expressions?.[p.fieldNames[0]!] ?? `r."${p.fieldNames[0]}"`}`);
    return `update "${this.meta.tableName}" as t set ${assignments.join(', ')} from jsonb_to_recordset(?::jsonb) as r(${this.definitions})${opts.join ? ` ${opts.join}` : ''} where t."${this.primaryKey}" = r."${this.primaryKey}"`;
  }

  private static readonly cache = new WeakMap<EntityMetadata, BoundRows<object>>();

  static of<T extends object>(em: EntityManager, entityName: string): BoundRows<T> {
    const meta = em.getMetadata().get(entityName);
    let rows = BoundRows.cache.get(meta);
    if (!rows) BoundRows.cache.set(meta, (rows = new BoundRows(meta)));
    return rows as BoundRows<T>;
  }

  /** A raw row (selected with `selectList`, or `to_jsonb` of one) as the entity's plain object. */
  fromRow(row: Record<string, unknown>): T {
    const out: Record<string, unknown> = {};
    for (const p of this.props) {
      const value = row[p.fieldNames[0]!] ?? null;
      // A selected timestamptz arrives parsed; inside to_jsonb it is text.
      out[p.name] = p.columnTypes[0] === 'timestamptz' && typeof value === 'string' ? new Date(value) : value;
    }
    return out as T;
  }

  /** The rows as the one jsonb parameter the statements above bind. */
  toJson(rows: T[]): string {
    return JSON.stringify(
      rows.map((row) => {
        const record: Record<string, unknown> = {};
        for (const p of this.props) record[p.fieldNames[0]!] = (row as Record<string, unknown>)[p.name] ?? null;
        return record;
      }),
    );
  }
}
