import { useId, useState, type ReactNode } from 'react';
import { errorMessage } from '../api';
import type { RolloutStatus, PausedReason } from '@gradual/sdk';

const ICON_PATHS = {
  /** A cross: remove, clear. */
  close: 'M4 4l8 8M12 4l-8 8',
  /** A shield with a tick: a step that waits for someone's approval. */
  approval: 'M8 1.5l5.5 2v4c0 3.3-2.3 5.9-5.5 7-3.2-1.1-5.5-3.7-5.5-7v-4zM5.5 8l1.8 1.8 3.2-3.6',
} as const;

/**
 * A small line icon drawn as inline SVG in the text's colour, so it shows without an emoji or
 * symbol font. Decorative (hidden from assistive technology) unless given a label.
 */
export function Icon({ name, label }: { name: keyof typeof ICON_PATHS; label?: string }) {
  return (
    <svg className="icon" viewBox="0 0 16 16" width="1em" height="1em" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" strokeLinejoin="round" {...(label ? { role: 'img', 'aria-label': label } : { 'aria-hidden': true, focusable: 'false' })}>
      <path d={ICON_PATHS[name]} />
    </svg>
  );
}

/** A labelled form control with its validation message underneath (linked by aria-describedby). */
export function Field(props: {
  label: string;
  error?: string | undefined;
  hint?: ReactNode;
  children: (ids: { id: string; describedBy: string | undefined; invalid: boolean }) => ReactNode;
  className?: string;
}) {
  const id = useId();
  const msgId = `${id}-msg`;
  const hintId = `${id}-hint`;
  const describedBy = [props.error ? msgId : '', props.hint ? hintId : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`field ${props.error ? 'field-invalid' : ''} ${props.className ?? ''}`}>
      <label htmlFor={id}>{props.label}</label>
      {props.children({ id, describedBy, invalid: Boolean(props.error) })}
      {props.hint && (
        <div className="hint" id={hintId}>
          {props.hint}
        </div>
      )}
      {props.error && (
        <div className="field-error" id={msgId} role="alert">
          {props.error}
        </div>
      )}
    </div>
  );
}

/** A text input inside a Field. */
export function TextField(props: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  error?: string | undefined;
  hint?: ReactNode;
  type?: string;
  placeholder?: string;
  required?: boolean;
  autoFocus?: boolean;
  name?: string;
  inputMode?: 'text' | 'decimal' | 'numeric' | 'email';
  className?: string;
}) {
  return (
    <Field label={props.label} error={props.error} hint={props.hint} className={props.className}>
      {({ id, describedBy, invalid }) => (
        <input
          id={id}
          name={props.name}
          type={props.type ?? 'text'}
          value={props.value}
          placeholder={props.placeholder}
          required={props.required}
          autoFocus={props.autoFocus}
          inputMode={props.inputMode}
          aria-invalid={invalid || undefined}
          aria-describedby={describedBy}
          onChange={(e) => props.onChange(e.target.value)}
        />
      )}
    </Field>
  );
}

export function ErrorNote({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  return (
    <div className="note note-error" role="alert">
      {title && <strong>{title} </strong>}
      {errorMessage(error)}
    </div>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="loading" role="status">
      {label}
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="empty">{children}</div>;
}

const STATUS_TEXT: Record<string, string> = {
  active: 'Rolling out',
  paused: 'Paused',
  completed: 'Completed',
  cancelled: 'Cancelled',
};
const REASON_TEXT: Record<PausedReason, string> = {
  user: 'by a person',
  approval_gate: 'awaiting approval',
  auto_rollback: 'rolled back',
  guard: 'by its guard',
  convergence: 'waiting for the fleet timed out',
};

export function StatusBadge({ status, reason }: { status: RolloutStatus | 'none'; reason?: PausedReason | null }) {
  if (status === 'none') return <span className="badge badge-none">No rollout</span>;
  const cls = status === 'paused' && reason === 'auto_rollback' ? 'badge-danger' : `badge-${status}`;
  return (
    <span className={`badge ${cls}`}>
      {status === 'paused' && reason === 'approval_gate' && <Icon name="approval" />}
      {STATUS_TEXT[status]}
      {status === 'paused' && reason ? ` · ${REASON_TEXT[reason]}` : ''}
    </span>
  );
}

/** Copies text to the clipboard; says so for a moment. */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      // Clipboard refused (insecure origin, permissions): select-and-copy fallback.
      const area = document.createElement('textarea');
      area.value = text;
      document.body.append(area);
      area.select();
      document.execCommand?.('copy');
      area.remove();
    }
    setCopied(true);
    setTimeout(() => setCopied(false), 1500);
  };
  return (
    <button type="button" className="btn btn-small" onClick={() => void copy()}>
      {copied ? 'Copied' : label}
    </button>
  );
}

/** A heading row with actions on the right. */
export function PageHeader({ title, sub, actions }: { title: ReactNode; sub?: ReactNode; actions?: ReactNode }) {
  return (
    <div className="page-header">
      <div>
        <h1>{title}</h1>
        {sub && <div className="sub">{sub}</div>}
      </div>
      {actions && <div className="actions">{actions}</div>}
    </div>
  );
}

export function Section({ title, children, actions, id }: { title: ReactNode; children: ReactNode; actions?: ReactNode; id?: string }) {
  return (
    <section className="card" aria-labelledby={id}>
      <div className="card-head">
        <h2 id={id}>{title}</h2>
        {actions}
      </div>
      {children}
    </section>
  );
}
