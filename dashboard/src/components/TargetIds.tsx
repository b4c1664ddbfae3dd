import { useId, useMemo, useState, type ChangeEvent, type FormEvent, type ReactNode } from 'react';
import type { TargetIdContains, TargetIdPage, TargetIdsAdded, TargetIdsCount, TargetIdsRemoved } from '@gradual/sdk';
import { errorMessage } from '../api';
import { useAction, useReloadOn, useResource } from '../hooks';
import type { PrimitiveApi } from '../primitive-api';

const PAGE = 50;

/**
 * IDs from pasted text or a CSV file: the first column of each line (quotes stripped), blanks and
 * duplicates dropped, and a header line dropped when it names the field.
 */
export function parseTargetIds(text: string, field?: string): string[] {
  const seen = new Set<string>();
  const lines = text.split(/\r?\n/);
  lines.forEach((line, i) => {
    const cells = line.includes(',') || line.includes(';') || line.includes('\t') ? [line.split(/[,;\t]/)[0]!] : line.split(/\s+/);
    for (const raw of cells) {
      const id = raw.trim().replace(/^"(.*)"$/, '$1').trim();
      if (!id) continue;
      if (i === 0 && (id.toLowerCase() === field?.toLowerCase() || /^(id|ids|target_?ids?|user_?id)$/i.test(id))) continue;
      seen.add(id);
    }
  });
  return [...seen];
}

/** The bulk operations of one list of IDs: a rollout's target IDs, or a segment's included or excluded IDs. */
export interface IdListOps {
  add: (ids: string[]) => Promise<TargetIdsAdded>;
  remove: (ids: string[]) => Promise<TargetIdsRemoved>;
  replace: (ids: string[]) => Promise<TargetIdsCount>;
  list: (cursor: string | undefined, limit: number) => Promise<TargetIdPage>;
  contains: (id: string) => Promise<TargetIdContains>;
}

/** A rollout's target-ID list (the allow-list of its bucket field). */
export function TargetIds({ ops, count, field, onCount }: { ops: PrimitiveApi; count: number; field: string; onCount: (n: number) => void }) {
  const listOps = useMemo<IdListOps>(
    () => ({ add: ops.addTargetIds, remove: ops.removeTargetIds, replace: ops.replaceTargetIds, list: ops.listTargetIds, contains: ops.containsTargetId }),
    [ops],
  );
  return (
    <IdList
      ops={listOps}
      count={count}
      field={field}
      onCount={onCount}
      countTestId="target-count"
      intro={
        <>
          Contexts whose <code>{field}</code> is on this list always get the candidate, whatever the percentage. The list has{' '}
        </>
      }
    />
  );
}

/**
 * One list of IDs: paste or upload to add, remove or replace the whole list (confirmed), a paged
 * view of what is on it, and "is this ID on the list?".
 */
export function IdList(props: {
  ops: IdListOps;
  count: number;
  /** The context attribute the IDs are values of (a CSV header naming it is skipped). */
  field: string;
  onCount: (n: number) => void;
  /** The sentence before "<count> IDs." */
  intro: ReactNode;
  /** Names the controls when a page shows several lists ("Included"). */
  name?: string;
  countTestId?: string;
}) {
  const { ops, count, field, onCount, name } = props;
  const uid = useId();
  const [text, setText] = useState('');
  const [fileName, setFileName] = useState<string>();
  const [result, setResult] = useState<string>();
  const [confirmReplace, setConfirmReplace] = useState(false);
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [probe, setProbe] = useState('');
  const [probeAnswer, setProbeAnswer] = useState<{ id: string; contains: boolean }>();
  const action = useAction();
  const probeAction = useAction();
  const ids = parseTargetIds(text, field);
  const cursor = cursors[cursors.length - 1];
  const page = useResource(() => ops.list(cursor, PAGE), [cursor, ops]);
  // A new count: the list changed (a write here or elsewhere), read the page again.
  useReloadOn(count, page.reload);

  const readFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    if (!file) return;
    setFileName(file.name);
    setText(await file.text());
    e.target.value = '';
  };

  const run = async (what: 'add' | 'remove' | 'replace') => {
    const out = await action.run(async () => {
      if (what === 'add') {
        const r = await ops.add(ids);
        return { count: r.count, text: `Added ${r.added.toLocaleString()} of ${ids.length.toLocaleString()} (${(ids.length - r.added).toLocaleString()} were already listed).` };
      }
      if (what === 'remove') {
        const r = await ops.remove(ids);
        return { count: r.count, text: `Removed ${r.removed.toLocaleString()} of ${ids.length.toLocaleString()}.` };
      }
      const r = await ops.replace(ids);
      return { count: r.count, text: `Replaced the list with ${r.count.toLocaleString()} IDs.` };
    });
    if (out) {
      setResult(`${out.text} The list now has ${out.count.toLocaleString()}.`);
      setText('');
      setFileName(undefined);
      setConfirmReplace(false);
      setCursors([undefined]);
      onCount(out.count);
    }
  };

  const check = async (e: FormEvent) => {
    e.preventDefault();
    const id = probe.trim();
    if (!id) return;
    const r = await probeAction.run(() => ops.contains(id));
    if (r) setProbeAnswer({ id, contains: r.contains });
  };

  return (
    <div className="target-ids">
      <p className="muted">
        {props.intro}
        <strong data-testid={props.countTestId}>{count.toLocaleString()}</strong> IDs.
      </p>
      <div className="split">
        <div>
          <label className="label" htmlFor={`${uid}-input`}>
            Paste IDs{name ? ` for ${name}` : ''} (one per line, or CSV with the IDs in the first column)
          </label>
          <textarea id={`${uid}-input`} className="mono" rows={5} value={text} onChange={(e) => setText(e.target.value)} />
          <div className="row wrap">
            <label className="btn btn-small file-button">
              Upload CSV…
              <input type="file" aria-label={`Upload CSV${name ? ` for ${name}` : ''}`} accept=".csv,.txt,text/csv,text/plain" onChange={(e) => void readFile(e)} className="visually-hidden" />
            </label>
            <span className="small muted" aria-live="polite">
              {fileName ? `${fileName}: ` : ''}
              {ids.length.toLocaleString()} unique IDs ready
            </span>
          </div>
          <div className="row wrap">
            <button className="btn" disabled={action.busy || ids.length === 0} onClick={() => void run('add')} aria-label={name ? `Add to ${name.toLowerCase()}` : undefined}>
              Add
            </button>
            <button className="btn" disabled={action.busy || ids.length === 0} onClick={() => void run('remove')} aria-label={name ? `Remove from ${name.toLowerCase()}` : undefined}>
              Remove
            </button>
            {confirmReplace ? (
              <>
                <button className="btn btn-danger" disabled={action.busy} onClick={() => void run('replace')}>
                  Replace all {count.toLocaleString()} with these {ids.length.toLocaleString()}
                </button>
                <button className="btn" onClick={() => setConfirmReplace(false)}>
                  Keep the list
                </button>
              </>
            ) : (
              <button className="btn btn-danger-outline" disabled={action.busy} onClick={() => setConfirmReplace(true)} aria-label={name ? `Replace whole list… (${name.toLowerCase()})` : undefined}>
                Replace whole list…
              </button>
            )}
          </div>
          {result && (
            <div className="note note-success" role="status">
              {result}
            </div>
          )}
          {action.error ? (
            <div className="note note-error" role="alert">
              {errorMessage(action.error)}
            </div>
          ) : null}
          <form className="row wrap probe" onSubmit={(e) => void check(e)}>
            <label className="grow">
              <span className="label">Is this ID on the {name ? `${name.toLowerCase()} ` : ''}list?</span>
              <input value={probe} onChange={(e) => setProbe(e.target.value)} placeholder="user-42" />
            </label>
            <button className="btn" disabled={probeAction.busy || !probe.trim()} aria-label={name ? `Check ${name.toLowerCase()}` : undefined}>
              Check
            </button>
          </form>
          {probeAnswer && (
            <div className="small" role="status">
              <code>{probeAnswer.id}</code> is {probeAnswer.contains ? 'on the list.' : 'not on the list.'}
            </div>
          )}
        </div>
        <div>
          <div className="label">On the {name ? `${name.toLowerCase()} ` : ''}list {cursors.length > 1 ? `(page ${cursors.length})` : ''}</div>
          {page.error ? <div className="note note-error">{errorMessage(page.error)}</div> : null}
          <ul className="id-list">
            {page.data?.items.map((id) => (
              <li key={id}>
                <code>{id}</code>
              </li>
            ))}
            {page.data?.items.length === 0 && <li className="muted">Empty.</li>}
          </ul>
          <div className="row">
            <button className="btn btn-small" disabled={cursors.length < 2} onClick={() => setCursors((c) => c.slice(0, -1))}>
              ← Previous
            </button>
            <button className="btn btn-small" disabled={!page.data?.nextCursor} onClick={() => setCursors((c) => [...c, page.data!.nextCursor])}>
              Next →
            </button>
          </div>
        </div>
      </div>
    </div>
  );
}
