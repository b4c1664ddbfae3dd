import { useMemo, useState, type FormEvent } from 'react';
import type { ConfigState, FlagState, Rollout, Rule } from '@gradual/sdk';
import { isLiveStatus } from '@gradual/sdk/evaluation';
import { api, errorMessage, fieldErrors } from '../api';
import { FlagHistory } from '../components/FlagHistory';
import { RollbackBanner } from '../components/RollbackBanner';
import { RolloutPanel } from '../components/RolloutPanel';
import { TargetIds } from '../components/TargetIds';
import { WhoGetsIt } from '../components/WhoGetsIt';
import { ErrorNote, Field, Loading, PageHeader, Section, StatusBadge } from '../components/ui';
import { formatJson, formatJsonPretty, formatTime, parseJsonInput } from '../format';
import { useAction, useResource } from '../hooks';
import { mentions, useLiveReload } from '../live/live';
import { primitiveApi, type Kind } from '../primitive-api';
import { Link, seg } from '../router';
import { Crumbs } from '../Shell';
import { FireTable } from './Rollback';

/** One flag or config in one environment: value, rules, rollout, target IDs, "who gets it", rollbacks. */
export function PrimitivePage(props: { slug: string; projectId: string; envId: string; kind: Kind; primitiveKey: string }) {
  const { slug, projectId, envId, kind, primitiveKey } = props;
  const ops = useMemo(() => primitiveApi(kind, envId, primitiveKey), [kind, envId, primitiveKey]);
  const project = useResource(() => api().getProject({ path: { id: projectId } }), [projectId]);
  const env = useResource(() => api().getEnvironment({ path: { envId } }), [envId]);
  const plans = useResource(() => api().listRolloutPlans({ path: { id: projectId } }), [projectId]);
  const state = useResource<FlagState | ConfigState>(() => ops.getState(), [ops]);
  const fires = useResource(() => ops.fires(), [ops, state.data?.rollout?.updatedAt]);
  useLiveReload({ envId }, () => Promise.all([state.reload(), env.reload()]), (e) => mentions(e, primitiveKey));

  const base = `/o/${slug}/p/${seg(projectId)}`;
  const envBase = `${base}/e/${seg(envId)}`;
  const setRollout = (rollout: Rollout) => state.setData((s) => ({ ...s!, rollout }));

  const crumbs = (
    <Crumbs
      items={[
        ['Projects', `/o/${slug}`],
        [project.data?.name ?? '…', base],
        [env.data?.name ?? '…', envBase],
        [primitiveKey],
      ]}
    />
  );
  if (state.error && !state.data) {
    return (
      <>
        {crumbs}
        <ErrorNote error={state.error} />
      </>
    );
  }
  if (!state.data) return <Loading />;
  const s = state.data;
  const rollout = s.rollout;
  const live = rollout && isLiveStatus(rollout.status) ? rollout : null;
  const defaultBucketField = project.data?.targetIdField ?? 'userId';

  return (
    <>
      {crumbs}
      <PageHeader
        title={<code className="title-key">{primitiveKey}</code>}
        sub={
          <>
            {kind === 'flag' ? `${(s as FlagState).valueType} flag` : 'config'} in {env.data?.name ?? 'this environment'} · updated {formatTime(s.updatedAt)}
          </>
        }
        actions={<StatusBadge status={rollout && live ? rollout.status : 'none'} reason={live?.pausedReason} />}
      />
      {rollout && <RollbackBanner rollout={rollout} />}

      <Section title="Rollout" id="rollout-h">
        <RolloutPanel
          rollout={rollout}
          ops={ops}
          plans={plans.data ?? []}
          hasRules={s.rules.length > 0}
          defaultSeed={`${primitiveKey}:${env.data?.key ?? '<env>'}`}
          defaultBucketField={defaultBucketField}
          onChange={setRollout}
        />
        {plans.data?.length === 0 && !live && (
          <p className="small muted">
            No rollout plans in this project yet. <Link to={`${base}/plans`}>Create a plan</Link> to ramp in steps.
          </p>
        )}
      </Section>

      <Section title="Does this user get it?" id="who-h">
        <WhoGetsIt kind={kind} primitiveKey={primitiveKey} value={s.value} rules={s.rules} rollout={rollout} defaultBucketField={defaultBucketField} ops={ops} />
      </Section>

      <div className="two-col">
        <Section title="Value" id="value-h">
          <ValueEditor value={s.value} save={async (v, reason) => state.setData(await ops.setValue(v, reason))} />
        </Section>
        <Section title={`Rules (${s.rules.length})`} id="rules-h">
          <RulesEditor rules={s.rules} save={async (rules, reason) => state.setData(await ops.setRules(rules, reason))} />
        </Section>
      </div>

      {live && (
        <Section title="Target IDs" id="targets-h">
          <TargetIds ops={ops} count={live.targetIdsCount} field={live.bucketField} onCount={(n) => setRollout({ ...live, targetIdsCount: n })} />
        </Section>
      )}

      <Section
        title="Rollback fires"
        id="fires-h"
        actions={
          <Link className="btn btn-small" to={`${envBase}/rollback?${kind}=${seg(primitiveKey)}`}>
            Rollback webhooks
          </Link>
        }
      >
        <ErrorNote error={fires.error} />
        {fires.data && <FireTable fires={fires.data.fires} />}
      </Section>

      <Section title="History" id="history-h">
        <FlagHistory slug={slug} envId={envId} kind={kind} primitiveKey={primitiveKey} refresh={`${s.updatedAt}|${rollout?.updatedAt ?? ''}`} />
      </Section>
    </>
  );
}

function ValueEditor({ value, save }: { value: unknown; save: (v: unknown, reason: string) => Promise<void> }) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState('');
  const [reason, setReason] = useState('');
  const [local, setLocal] = useState<string>();
  const action = useAction();
  if (!editing) {
    return (
      <div>
        <pre className="json">{formatJsonPretty(value) || '—'}</pre>
        <button
          className="btn btn-small"
          onClick={() => {
            setText(formatJsonPretty(value));
            setEditing(true);
          }}
        >
          Change value
        </button>
      </div>
    );
  }
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const parsed = parseJsonInput(text);
    if (!parsed.ok) return setLocal(parsed.error);
    setLocal(undefined);
    const done = await action.run(async () => {
      await save(parsed.value, reason);
      return true;
    });
    if (done) setEditing(false);
  };
  return (
    <form onSubmit={(e) => void submit(e)} noValidate>
      <Field label="Value (JSON)" error={local ?? fieldErrors(action.error).value}>
        {({ id, describedBy }) => <textarea id={id} className="mono" rows={4} value={text} onChange={(e) => setText(e.target.value)} aria-describedby={describedBy} />}
      </Field>
      <Field label="Reason (optional)">{({ id }) => <input id={id} value={reason} onChange={(e) => setReason(e.target.value)} />}</Field>
      {action.error && !fieldErrors(action.error).value ? <div className="note note-error" role="alert">{errorMessage(action.error)}</div> : null}
      <div className="form-actions">
        <button className="btn btn-primary" disabled={action.busy}>
          Save value
        </button>
        <button type="button" className="btn" onClick={() => setEditing(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

const OPERATOR_TEXT: Record<string, string> = {
  in: 'is one of',
  not_in: 'is not one of',
  starts_with: 'starts with',
  ends_with: 'ends with',
  contains: 'contains',
  gt: '>',
  gte: '≥',
  lt: '<',
  lte: '≤',
};

function RulesEditor({ rules, save }: { rules: Rule[]; save: (rules: Rule[], reason: string) => Promise<void> }) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState('');
  const [reason, setReason] = useState('');
  const [local, setLocal] = useState<string>();
  const action = useAction();
  if (!editing) {
    return (
      <div>
        {rules.length === 0 ? (
          <p className="muted">No rules: everyone not in a rollout gets the value.</p>
        ) : (
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
                        <code>{c.attribute}</code> {OPERATOR_TEXT[c.operator]} <code>{c.values.map((v) => JSON.stringify(v)).join(', ')}</code>
                      </span>
                    ))}{' '}
                → <code className="value">{formatJson(r.value)}</code>
              </li>
            ))}
          </ol>
        )}
        <button
          className="btn btn-small"
          onClick={() => {
            setText(JSON.stringify(rules, null, 2));
            setEditing(true);
          }}
        >
          Edit rules
        </button>
      </div>
    );
  }
  const fields = fieldErrors(action.error);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return setLocal('Not valid JSON.');
    }
    if (!Array.isArray(parsed)) return setLocal('Rules are a JSON array: [{"conditions": [...], "value": ...}].');
    setLocal(undefined);
    const done = await action.run(async () => {
      await save(parsed as Rule[], reason);
      return true;
    });
    if (done) setEditing(false);
  };
  return (
    <form onSubmit={(e) => void submit(e)} noValidate>
      <Field label="Rules (JSON; the first matching rule wins)" error={local}>
        {({ id, describedBy }) => <textarea id={id} className="mono" rows={10} value={text} onChange={(e) => setText(e.target.value)} aria-describedby={describedBy} />}
      </Field>
      {Object.keys(fields).length > 0 && (
        <ul className="field-error" role="alert">
          {Object.entries(fields).map(([k, v]) => (
            <li key={k}>
              <code>{k}</code>: {v}
            </li>
          ))}
        </ul>
      )}
      <Field label="Reason (optional)">{({ id }) => <input id={id} value={reason} onChange={(e) => setReason(e.target.value)} />}</Field>
      {action.error && Object.keys(fields).length === 0 ? <div className="note note-error" role="alert">{errorMessage(action.error)}</div> : null}
      <div className="form-actions">
        <button className="btn btn-primary" disabled={action.busy}>
          Save rules
        </button>
        <button type="button" className="btn" onClick={() => setEditing(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
