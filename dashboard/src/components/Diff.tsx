/** A readable diff of two JSON values: one row per changed leaf, by dotted path. */

export interface DiffRow {
  path: string;
  kind: 'added' | 'removed' | 'changed';
  before?: unknown;
  after?: unknown;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function diffValues(before: unknown, after: unknown, path = ''): DiffRow[] {
  if (JSON.stringify(before) === JSON.stringify(after)) return [];
  const bothObjects = isPlainObject(before) && isPlainObject(after);
  const bothArrays = Array.isArray(before) && Array.isArray(after);
  if (bothObjects || bothArrays) {
    const b = before as Record<string, unknown>;
    const a = after as Record<string, unknown>;
    const keys = bothArrays
      ? Array.from({ length: Math.max((before as unknown[]).length, (after as unknown[]).length) }, (_, i) => String(i))
      : [...new Set([...Object.keys(b), ...Object.keys(a)])];
    return keys.flatMap((k) => {
      const p = path ? `${path}.${k}` : k;
      if (!(k in b)) return [{ path: p, kind: 'added' as const, after: a[k] }];
      if (!(k in a)) return [{ path: p, kind: 'removed' as const, before: b[k] }];
      return diffValues(b[k], a[k], p);
    });
  }
  if (before === undefined) return [{ path: path || '(value)', kind: 'added', after }];
  if (after === undefined) return [{ path: path || '(value)', kind: 'removed', before }];
  return [{ path: path || '(value)', kind: 'changed', before, after }];
}

const show = (v: unknown) => (v === undefined ? '' : JSON.stringify(v));

export function Diff({ before, after }: { before: unknown; after: unknown }) {
  const rows = diffValues(before, after);
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
