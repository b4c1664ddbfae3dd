import { ReferenceKind, type EntityMetadata, type EntityProperty } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';

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

  /** `update … as t`: writes every column of each bound row (toJson), matched by primary key. */
  updateStatement(): string {
    const assignments = this.props.filter((p) => p.fieldNames[0] !== this.primaryKey).map((p) => `"${p.fieldNames[0]}" = r."${p.fieldNames[0]}"`);
    return `update "${this.meta.tableName}" as t set ${assignments.join(', ')} from jsonb_to_recordset(?::jsonb) as r(${this.definitions}) where t."${this.primaryKey}" = r."${this.primaryKey}"`;
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
