/**
 * A readable diff of two JSON values: one row per changed leaf, by dotted path. A record's
 * bookkeeping fields (its own timestamps and version counters) can be left out, and an object
 * that appears or disappears is shown field by field rather than as one JSON blob.
 */

export interface DiffRow {
  path: string;
  kind: 'added' | 'removed' | 'changed';
  before?: unknown;
  after?: unknown;
}

/** Top-level fields of a stored record that change with any write and say nothing about the change. */
export const BOOKKEEPING_FIELDS: ReadonlySet<string> = new Set(['createdAt', 'updatedAt', 'version', 'rowVersion']);

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `omit`: top-level fields to leave out (BOOKKEEPING_FIELDS for a record; none for a flag's or config's own value). */
export function diffValues(before: unknown, after: unknown, path = '', omit: ReadonlySet<string> = new Set()): DiffRow[] {
  if (JSON.stringify(before) === JSON.stringify(after)) return [];
  const bothArrays = Array.isArray(before) && Array.isArray(after);
  // An object against null or nothing is listed by its fields, like two objects.
  const objectSide = (isPlainObject(before) || before == null) && (isPlainObject(after) || after == null);
  if (bothArrays || objectSide) {
    const b: Record<string, unknown> = bothArrays ? { ...before } : isPlainObject(before) ? before : {};
    const a: Record<string, unknown> = bothArrays ? { ...after } : isPlainObject(after) ? after : {};
    const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])].filter((k) => path !== '' || !omit.has(k));
    const rows = keys.flatMap((k) => {
      const p = path ? `${path}.${k}` : k;
      if (!(k in b)) return leaves(a[k], p, 'added');
      if (!(k in a)) return leaves(b[k], p, 'removed');
      return diffValues(b[k], a[k], p);
    });
    // An empty object against null: nothing to list by field, so the values themselves.
    if (rows.length === 0 && !(isPlainObject(before) && isPlainObject(after)) && !bothArrays) return [{ path: path || '(value)', kind: 'changed', before, after }];
    return rows;
  }
  if (before === undefined) return [{ path: path || '(value)', kind: 'added', after }];
  if (after === undefined) return [{ path: path || '(value)', kind: 'removed', before }];
  return [{ path: path || '(value)', kind: 'changed', before, after }];
}

/** The rows of a value present on one side only: an object's fields, else the value itself. */
function leaves(value: unknown, path: string, kind: 'added' | 'removed'): DiffRow[] {
  if (isPlainObject(value) && Object.keys(value).length > 0) return kind === 'added' ? diffValues(undefined, value, path) : diffValues(value, undefined, path);
  return [kind === 'added' ? { path, kind, after: value } : { path, kind, before: value }];
}

const show = (v: unknown) => (v === undefined ? '' : JSON.stringify(v));

export function Diff({ before, after, omit }: { before: unknown; after: unknown; omit?: ReadonlySet<string> }) {
  const rows = diffValues(before, after, '', omit);
  if (rows.length === 0) return <p className="muted small">No value change recorded.</p>;
  return (
    <table className="diff">
      <thead>
        <tr>
          <th>Field</th>
          <th>Before</th>
          <th>After</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.path} className={`diff-${r.kind}`}>
            <td>
              <code>{r.path}</code>
            </td>
            <td className="before">{r.kind !== 'added' && <code>{show(r.before)}</code>}</td>
            <td className="after">{r.kind !== 'removed' && <code>{show(r.after)}</code>}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
