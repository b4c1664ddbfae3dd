import { useMemo, useState, type FormEvent } from 'react';
import type { ConfigState, FlagState, Rollout } from '@gradual/sdk';
import { isLiveStatus } from '@gradual/sdk/evaluation';
import { api, errorMessage, fieldErrors } from '../api';
import { DefinitionPanel } from '../components/DefinitionPanel';
import { FlagHistory } from '../components/FlagHistory';
import { RulesEditor } from '../components/RulesEditor';
import { ConvergenceLine } from '../components/ConvergenceLine';
import { RollbackBanner } from '../components/RollbackBanner';
import { RolloutPanel } from '../components/RolloutPanel';
import { TargetIds } from '../components/TargetIds';
import { RemovalEvidence } from '../components/RemovalEvidence';
import { UsagePanel } from '../components/UsagePanel';
import { WhoGetsIt } from '../components/WhoGetsIt';
import { ErrorNote, Field, Loading, PageHeader, Section, StatusBadge } from '../components/ui';
import { formatJsonPretty, formatTime, parseJsonInput } from '../format';
import { useAction, useResource } from '../hooks';
import { mentions, useLiveReload } from '../live/live';
import { definitionApi, primitiveApi, type Kind } from '../primitive-api';
import { Link, navigate, seg } from '../router';
import { Crumbs } from '../Shell';
import { FireTable } from './Rollback';

/** One flag or config in one environment: value, rules, rollout, target IDs, "who gets it", rollbacks. */
export function PrimitivePage(props: { slug: string; projectId: string; envId: string; kind: Kind; primitiveKey: string }) {
  const { slug, projectId, envId, kind, primitiveKey } = props;
  const ops = useMemo(() => primitiveApi(kind, envId, primitiveKey), [kind, envId, primitiveKey]);
  const defOps = useMemo(() => definitionApi(kind, projectId, primitiveKey), [kind, projectId, primitiveKey]);
  const def = useResource(() => defOps.get(), [defOps]);
  const segments = useResource(() => api().listSegments({ path: { id: projectId } }), [projectId]);
  const project = useResource(() => api().getProject({ path: { id: projectId } }), [projectId]);
  const env = useResource(() => api().getEnvironment({ path: { envId } }), [envId]);
  const plans = useResource(() => api().listRolloutPlans({ path: { id: projectId } }), [projectId]);
  const state = useResource<FlagState | ConfigState>(() => ops.getState(), [ops]);
  const fires = useResource(() => ops.fires(), [ops]);
  // The organization's stream: this environment's changes of it (a rollback fire that rolled back
  // is one), and its definition's writes (name, tags, archive) elsewhere. Read again in place.
  useLiveReload({ orgSlug: slug }, () => Promise.all([state.reload(), env.reload(), def.reload(), fires.reload()]), {
    change: (e) => e.envId === envId && mentions(e, primitiveKey),
    orgChange: (e) => e.projectId === projectId && e.envId === null && mentions(e, primitiveKey),
  });
  // Its proposals in this environment (made, cancelled, expired) change nothing on screen but its history.
  const [proposalWrites, setProposalWrites] = useState(0);
  useLiveReload({ orgSlug: slug }, () => setProposalWrites((n) => n + 1), {
    change: () => false,
    orgChange: (e) => e.envId === envId && mentions(e, primitiveKey, ['proposal']),
  });

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
  const archivedAt = def.data?.definition.archivedAt ?? null;
  const segmentCheck = async (key: string, list: 'included' | 'excluded', targetId: string) => {
    const path = { id: projectId, key, targetId };
    return (list === 'included' ? await api().checkSegmentIncluded({ path }) : await api().checkSegmentExcluded({ path })).contains;
  };

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
      {archivedAt && (
        <div className="banner" role="status">
          This {kind} is archived ({formatTime(archivedAt)}): every environment serves its base value to everyone, and its value, rules and rollouts cannot
          change until it is restored.
        </div>
      )}
      {rollout && <RollbackBanner rollout={rollout} />}

      <Section title="Rollout" id="rollout-h">
        {live && <ConvergenceLine envId={envId} version={env.data?.version} />}
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
        <WhoGetsIt
          kind={kind}
          primitiveKey={primitiveKey}
          value={s.value}
          rules={s.rules}
          rollout={rollout}
          defaultBucketField={defaultBucketField}
          ops={ops}
          archived={archivedAt !== null}
          segments={segments.data && { list: segments.data, check: segmentCheck }}
        />
      </Section>

      <div className="two-col">
        <Section title="Value" id="value-h">
          <ValueEditor value={s.value} save={async (v, reason) => state.setData(await ops.setValue(v, reason))} />
        </Section>
        <Section title={`Rules (${s.rules.length})`} id="rules-h">
          <RulesEditor
            mode="flag"
            rules={s.rules}
            segments={segments.data}
            segmentsHref={`${base}/segments`}
            segmentHref={(key) => `${base}/segments/${seg(key)}`}
            defaultAttribute={defaultBucketField}
            save={async (rules, reason) => state.setData(await ops.setRules(rules, reason))}
          />
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

      <Section title="Usage" id="usage-h">
        {!archivedAt && <RemovalEvidence ops={defOps} kind={kind} primitiveKey={primitiveKey} />}
        <UsagePanel ops={defOps} />
      </Section>

      <Section title={kind === 'flag' ? 'Flag details' : 'Config details'} id="details-h">
        <DefinitionPanel
          kind={kind}
          primitiveKey={primitiveKey}
          ops={defOps}
          def={def}
          onChanged={() => void state.reload()}
          onDeleted={() => navigate(base)}
        />
      </Section>

      <Section title="History" id="history-h">
        <FlagHistory slug={slug} envId={envId} kind={kind} primitiveKey={primitiveKey} refresh={`${s.updatedAt}|${rollout?.updatedAt ?? ''}|${def.data?.definition.updatedAt ?? ''}|${archivedAt ?? ''}|${proposalWrites}`} />
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
