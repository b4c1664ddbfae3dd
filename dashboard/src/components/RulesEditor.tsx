import { useState, type FormEvent } from 'react';
import type { ConditionOperator, Rule, Segment } from '@gradual/sdk';
import { fieldErrors } from '../api';
import { formatJson } from '../format';
import { useAction } from '../hooks';
import { Link } from '../router';
import {
  emptyCondition,
  emptyRule,
  fromDrafts,
  isSegmentOperator,
  OPERATOR_TEXT,
  OPERATORS,
  toDraft,
  withOperator,
  type ConditionDraft,
  type RuleDraft,
} from '../rule-drafts';
import { Refusal } from './Danger';
import { Field } from './ui';

export interface RulesEditorProps {
  /** `flag`: a flag's or config's rules (each with a value, first match wins); `segment`: a segment's rules (no value, any match). */
  mode: 'flag' | 'segment';
  rules: Rule[];
  /** The project's segments, for the `in segment` picker (undefined while loading). */
  segments: Segment[] | undefined;
  /** Where the project's segments are listed, linked when there is none yet. */
  segmentsHref?: string;
  /** A segment's own key, left out of its picker. */
  selfKey?: string;
  /** The attribute a segment condition tests by default: the project's target-ID field. */
  defaultAttribute: string;
  /**
   * The version of what the rules belong to (a segment's ETag). The editor keeps the one it was
   * opened on and saves against it, so an edit made elsewhere meanwhile is refused (412), not undone.
   */
  etag?: string;
  save: (rules: Rule[], reason: string, openedOn: string | undefined) => Promise<void>;
}

/** The rules in words, one list item per rule. */
export function RulesList({ rules, mode, segmentHref }: { rules: Rule[]; mode: 'flag' | 'segment'; segmentHref?: (key: string) => string }) {
  if (rules.length === 0) {
    return <p className="muted">{mode === 'flag' ? 'No rules: everyone not in a rollout gets the value.' : 'No rules: only the included IDs are in the segment.'}</p>;
  }
  return (
    <ol className="rules">
      {rules.map((r, i) => (
        <li key={i}>
          {r.description && <div className="small muted">{r.description}</div>}
          If{' '}
          {r.conditions.length === 0
            ? 'always'
            : r.conditions.map((c, j) => (
                <span key={j}>
                  {j > 0 && ' and '}
                  <code>{c.attribute}</code> {OPERATOR_TEXT[c.operator]}{' '}
                  {isSegmentOperator(c.operator)
                    ? c.values.map((v, k) => (
                        <span key={k}>
                          {k > 0 && ', '}
                          {segmentHref ? (
                            <Link to={segmentHref(String(v))}>
                              <code>{String(v)}</code>
                            </Link>
                          ) : (
                            <code>{String(v)}</code>
                          )}
                        </span>
                      ))
                    : <code>{c.values.map((v) => JSON.stringify(v)).join(', ')}</code>}
                </span>
              ))}
          {mode === 'flag' && (
            <>
              {' '}
              → <code className="value">{formatJson(r.value)}</code>
            </>
          )}
        </li>
      ))}
    </ol>
  );
}

/**
 * A structured rule editor: each rule a group of condition rows (attribute, operator, values or
 * segments) and, for flags and configs, the value it serves. Problems show beside the control,
 * whether found here or by the server.
 */
export function RulesEditor(props: RulesEditorProps & { segmentHref?: (key: string) => string }) {
  const { mode, rules } = props;
  const [drafts, setDrafts] = useState<RuleDraft[] | null>(null);
  const [openedOn, setOpenedOn] = useState<string | undefined>();
  const [reason, setReason] = useState('');
  const [local, setLocal] = useState<Record<string, string>>({});
  const action = useAction();
  const withValue = mode === 'flag';

  if (!drafts) {
    return (
      <div>
        <RulesList rules={rules} mode={mode} segmentHref={props.segmentHref} />
        <button
          className="btn btn-small"
          onClick={() => {
            setDrafts(rules.map(toDraft));
            setOpenedOn(props.etag);
            setLocal({});
            action.setError(undefined);
          }}
        >
          Edit rules
        </button>
      </div>
    );
  }

  const server = fieldErrors(action.error);
  const errorAt = (path: string): string | undefined => local[path] ?? server[path] ?? server[`body.${path}`];
  const shownPaths = new Set<string>();
  const at = (path: string) => {
    shownPaths.add(path);
    return errorAt(path);
  };
  const updateRule = (i: number, next: Partial<RuleDraft>) => setDrafts((ds) => ds!.map((d, k) => (k === i ? { ...d, ...next } : d)));
  const updateCondition = (i: number, j: number, next: (c: ConditionDraft) => ConditionDraft) =>
    setDrafts((ds) => ds!.map((d, k) => (k === i ? { ...d, conditions: d.conditions.map((c, m) => (m === j ? next(c) : c)) } : d)));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const result = fromDrafts(drafts, withValue);
    if (!result.ok) return setLocal(result.errors);
    setLocal({});
    const done = await action.run(async () => {
      await props.save(result.rules, reason, openedOn);
      return true;
    });
    if (done) setDrafts(null);
  };

  const rendered = (
    <>
      {drafts.length === 0 && <p className="muted small">No rules. {withValue ? 'Everyone not in a rollout gets the value.' : 'Only the included IDs are in the segment.'}</p>}
      {drafts.map((d, i) => (
        <fieldset className="rule-draft" key={i}>
          <legend>Rule {i + 1}</legend>
          <Field label="Description (optional)">
            {({ id }) => <input id={id} value={d.description} onChange={(e) => updateRule(i, { description: e.target.value })} />}
          </Field>
          {d.conditions.length === 0 && withValue && <p className="small muted">No condition: this rule matches everyone.</p>}
          {d.conditions.map((c, j) => (
            <ConditionRow
              key={j}
              label={`Rule ${i + 1}, condition ${j + 1}`}
              condition={c}
              segments={(props.segments ?? []).filter((s) => s.key !== props.selfKey)}
              segmentsHref={props.segmentsHref}
              errors={{ attribute: at(`rules.${i}.conditions.${j}.attribute`), operator: at(`rules.${i}.conditions.${j}.operator`), values: at(`rules.${i}.conditions.${j}.values`) }}
              onChange={(next) => updateCondition(i, j, next)}
              defaultAttribute={props.defaultAttribute}
              onRemove={() => updateRule(i, { conditions: d.conditions.filter((_, m) => m !== j) })}
            />
          ))}
          {at(`rules.${i}.conditions`) && (
            <div className="field-error" role="alert">
              {at(`rules.${i}.conditions`)}
            </div>
          )}
          {withValue && (
            <Field label="Value (JSON)" error={at(`rules.${i}.value`)}>
              {({ id, describedBy, invalid }) => (
                <input id={id} className="mono" value={d.value} aria-invalid={invalid || undefined} aria-describedby={describedBy} onChange={(e) => updateRule(i, { value: e.target.value })} />
              )}
            </Field>
          )}
          <div className="row wrap">
            <button type="button" className="btn btn-small" onClick={() => updateRule(i, { conditions: [...d.conditions, emptyCondition()] })}>
              Add condition
            </button>
            <button type="button" className="btn btn-small" disabled={i === 0} onClick={() => setDrafts((ds) => move(ds!, i, i - 1))}>
              Move up
            </button>
            <button type="button" className="btn btn-small" disabled={i === drafts.length - 1} onClick={() => setDrafts((ds) => move(ds!, i, i + 1))}>
              Move down
            </button>
            <button type="button" className="btn btn-small btn-danger-outline" onClick={() => setDrafts((ds) => ds!.filter((_, k) => k !== i))}>
              Remove rule
            </button>
          </div>
        </fieldset>
      ))}
    </>
  );
  const otherServerFields = Object.entries(server).filter(([k]) => !shownPaths.has(k) && !shownPaths.has(k.replace(/^body\./, '')));

  return (
    <form onSubmit={(e) => void submit(e)} noValidate aria-label={withValue ? 'Rules (the first matching rule wins)' : 'Segment rules (a context matching any rule is in the segment)'}>
      <p className="small muted">{withValue ? 'All conditions of a rule must match; the first matching rule wins.' : 'All conditions of a rule must match; a context matching any rule is in the segment.'}</p>
      {rendered}
      <div className="row">
        <button type="button" className="btn btn-small" onClick={() => setDrafts((ds) => [...ds!, emptyRule(withValue, !withValue)])}>
          Add rule
        </button>
      </div>
      {otherServerFields.length > 0 && (
        <ul className="field-error" role="alert">
          {otherServerFields.map(([k, v]) => (
            <li key={k}>
              <code>{k}</code>: {v}
            </li>
          ))}
        </ul>
      )}
      <Field label="Reason (optional)">{({ id }) => <input id={id} value={reason} onChange={(e) => setReason(e.target.value)} />}</Field>
      {Object.keys(local).length > 0 && (
        <div className="note note-error" role="alert">
          Fix the marked fields first.
        </div>
      )}
      {action.error && Object.keys(server).length === 0 ? <Refusal error={action.error} /> : null}
      <div className="form-actions">
        <button className="btn btn-primary" disabled={action.busy}>
          Save rules
        </button>
        <button type="button" className="btn" onClick={() => setDrafts(null)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function move<T>(list: T[], from: number, to: number): T[] {
  const next = [...list];
  const [item] = next.splice(from, 1);
  next.splice(to, 0, item!);
  return next;
}

/** One condition: attribute, operator, and values (text) or segments (a multiple choice). */
function ConditionRow(props: {
  label: string;
  condition: ConditionDraft;
  segments: Segment[];
  segmentsHref: string | undefined;
  errors: { attribute: string | undefined; operator: string | undefined; values: string | undefined };
  defaultAttribute: string;
  onChange: (next: (c: ConditionDraft) => ConditionDraft) => void;
  onRemove: () => void;
}) {
  const { condition: c, errors, onChange } = props;
  const segment = isSegmentOperator(c.operator);
  return (
    <fieldset className="condition-row">
      <legend className="visually-hidden">{props.label}</legend>
      <Field label="Attribute" error={errors.attribute}>
        {({ id, describedBy, invalid }) => (
          <input
            id={id}
            value={c.attribute}
            placeholder={segment ? props.defaultAttribute : 'country'}
            aria-invalid={invalid || undefined}
            aria-describedby={describedBy}
            onChange={(e) => {
              const attribute = e.target.value;
              onChange((x) => ({ ...x, attribute }));
            }}
          />
        )}
      </Field>
      <Field label="Operator" error={errors.operator}>
        {({ id, describedBy }) => (
          <select
            id={id}
            value={c.operator}
            aria-describedby={describedBy}
            onChange={(e) => {
              const operator = e.target.value as ConditionOperator;
              onChange((x) => withOperator(x, operator, props.defaultAttribute));
            }}
          >
            {OPERATORS.map((op) => (
              <option key={op} value={op}>
                {OPERATOR_TEXT[op]}
              </option>
            ))}
          </select>
        )}
      </Field>
      {segment ? (
        <Field
          label="Segments"
          error={errors.values}
          hint={
            props.segments.length === 0 ? (
              <>
                No segments in this project yet.{props.segmentsHref && <> <Link to={props.segmentsHref}>Create one</Link>.</>}
              </>
            ) : (
              'Pick one or more (Ctrl or ⌘ for several).'
            )
          }
        >
          {({ id, describedBy, invalid }) => (
            <select
              id={id}
              multiple
              size={Math.min(4, Math.max(2, props.segments.length))}
              value={c.segments}
              aria-invalid={invalid || undefined}
              aria-describedby={describedBy}
              onChange={(e) => {
                const picked = [...e.target.selectedOptions].map((o) => o.value);
                onChange((x) => ({ ...x, segments: picked }));
              }}
            >
              {props.segments.map((s) => (
                <option key={s.key} value={s.key}>
                  {s.key} ({s.name})
                </option>
              ))}
              {c.segments
                .filter((k) => !props.segments.some((s) => s.key === k))
                .map((k) => (
                  <option key={k} value={k}>
                    {k} (not found)
                  </option>
                ))}
            </select>
          )}
        </Field>
      ) : (
        <Field label="Values" error={errors.values} hint="Comma-separated.">
          {({ id, describedBy, invalid }) => (
            <input
              id={id}
              value={c.values}
              placeholder={c.operator === 'gt' || c.operator === 'gte' || c.operator === 'lt' || c.operator === 'lte' ? '18' : 'NL, BE'}
              aria-invalid={invalid || undefined}
              aria-describedby={describedBy}
              onChange={(e) => {
                const values = e.target.value;
                onChange((x) => ({ ...x, values }));
              }}
            />
          )}
        </Field>
      )}
      <button type="button" className="btn btn-small align-end" onClick={props.onRemove}>
        Remove condition
      </button>
    </fieldset>
  );
}
