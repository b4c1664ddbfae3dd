import { useState, type FormEvent, type ReactNode } from 'react';
import { isGradualApiError } from '@gradual/sdk';
import { errorMessage } from '../api';
import { useAction } from '../hooks';
import { Link } from '../router';

/** The referrers a `409 in_use` names (`flag.new-checkout`, `rollout.production`, `proposal.<id>`), or none. */
export function inUseReferrers(err: unknown): string[] {
  return isGradualApiError(err) && err.code === 'in_use' ? Object.keys(err.fields ?? {}) : [];
}

/** The cycle a `409 segment_cycle` reports (`["a", "b", "a"]`), or none. */
export function segmentCycle(err: unknown): string[] {
  if (!isGradualApiError(err) || err.code !== 'segment_cycle') return [];
  const cycle = err.details?.cycle;
  return Array.isArray(cycle) ? cycle.map(String) : [];
}

/** A referrer in words: "flag new-checkout", "rollout in production", "proposal 1a2b3c4d". */
export function referrerText(referrer: string): ReactNode {
  const dot = referrer.indexOf('.');
  const type = dot < 0 ? referrer : referrer.slice(0, dot);
  const key = dot < 0 ? '' : referrer.slice(dot + 1);
  if (type === 'rollout') return <>a live rollout in <code>{key}</code></>;
  if (type === 'proposal') return <>pending proposal <code>{key.slice(0, 8)}</code></>;
  return (
    <>
      {type} <code>{key}</code>
    </>
  );
}

/**
 * An API refusal with what it is about: the referrers of `in_use` (each linked when `linkFor`
 * knows where it lives), the cycle of `segment_cycle`, or the message.
 */
export function Refusal({ error, linkFor }: { error: unknown; linkFor?: (referrer: string) => string | undefined }) {
  if (!error) return null;
  const referrers = inUseReferrers(error);
  const cycle = segmentCycle(error);
  return (
    <div className="note note-error" role="alert">
      {errorMessage(error)}
      {referrers.length > 0 && (
        <>
          {' '}
          Still in use by:
          <ul className="referrers">
            {referrers.map((r) => {
              const to = linkFor?.(r);
              return <li key={r}>{to ? <Link to={to}>{referrerText(r)}</Link> : referrerText(r)}</li>;
            })}
          </ul>
        </>
      )}
      {cycle.length > 0 && (
        <div>
          The cycle: <code>{cycle.join(' → ')}</code>
        </div>
      )}
    </div>
  );
}

/**
 * Deleting something for good: a button that opens a form asking for its key to be typed again
 * (the API checks the same `confirm`), then deletes and calls `onDeleted`. Refusals (`in_use`)
 * show what still uses it.
 */
export function TypedDelete(props: {
  /** "environment", "project", "flag", "segment"… */
  noun: string;
  confirmKey: string;
  consequences: ReactNode;
  remove: (confirm: string) => Promise<void>;
  onDeleted: () => void;
  disabled?: boolean;
  disabledReason?: ReactNode;
  linkFor?: (referrer: string) => string | undefined;
}) {
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState('');
  const action = useAction();
  const matches = typed === props.confirmKey;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!matches) return;
    const done = await action.run(async () => {
      await props.remove(typed);
      return true;
    });
    if (done) props.onDeleted();
  };

  if (!open) {
    return (
      <div className="danger-zone">
        <p className="small">{props.consequences}</p>
        {props.disabled && props.disabledReason && <p className="small muted">{props.disabledReason}</p>}
        <button type="button" className="btn btn-danger-outline" disabled={props.disabled} onClick={() => setOpen(true)}>
          Delete {props.noun}…
        </button>
      </div>
    );
  }
  const inputId = `confirm-${props.noun.replace(/\s+/g, '-')}`;
  return (
    <form className="danger-zone" onSubmit={(e) => void submit(e)} noValidate aria-label={`Delete ${props.noun}`}>
      <p className="small">{props.consequences}</p>
      <label className="label" htmlFor={inputId}>
        Type <code>{props.confirmKey}</code> to confirm
      </label>
      <input id={inputId} value={typed} onChange={(e) => setTyped(e.target.value)} autoComplete="off" spellCheck={false} autoFocus />
      <Refusal error={action.error} linkFor={props.linkFor} />
      <div className="form-actions">
        <button className="btn btn-danger" disabled={!matches || action.busy}>
          Delete {props.noun} for good
        </button>
        <button
          type="button"
          className="btn"
          onClick={() => {
            setOpen(false);
            setTyped('');
            action.setError(undefined);
          }}
        >
          Cancel
        </button>
      </div>
    </form>
  );
}
