import { useState } from 'react';
import type { RolloutPlan } from '@gradual/sdk';
import { api } from '../api';
import { GuardMetrics } from '../components/GuardMetrics';
import { PlanForm } from '../components/PlanForm';
import { Empty, ErrorNote, Loading, PageHeader, Section } from '../components/ui';
import { DAY_NAMES, formatDuration, formatPercent } from '../format';
import { useAction, useResource } from '../hooks';
import { projectResources, useLiveReload } from '../live/live';
import { seg } from '../router';
import { Crumbs } from '../Shell';

/** The project's rollout plans (list, create, edit, delete) and the guard metrics their steps may watch. */
export function PlansPage({ slug, projectId }: { slug: string; projectId: string }) {
  const project = useResource(() => api().getProject({ path: { id: projectId } }), [projectId]);
  const plans = useResource(() => api().listRolloutPlans({ path: { id: projectId } }), [projectId]);
  useLiveReload({ orgSlug: slug }, plans.reload, projectResources(projectId, ['rollout_plan']));
  /** The key of the plan being edited, or 'new' for the create form. */
  const [editing, setEditing] = useState<string>();
  const [confirmDelete, setConfirmDelete] = useState<string>();
  const remove = useAction();

  const done = (saved: RolloutPlan) => {
    setEditing(undefined);
    plans.setData((all = []) => [...all.filter((p) => p.key !== saved.key), saved].sort((a, b) => a.key.localeCompare(b.key)));
  };
  const del = async (key: string) => {
    await remove.run(() => api().deleteRolloutPlan({ path: { id: projectId, planKey: key } }));
    setConfirmDelete(undefined);
    void plans.reload();
  };

  return (
    <>
      <Crumbs items={[['Projects', `/o/${slug}`], [project.data?.name ?? '…', `/o/${slug}/p/${seg(projectId)}`], ['Rollout plans']]} />
      <PageHeader
        title="Rollout plans"
        sub="Templates of ramp steps, cadence and blackout days. A rollout snapshots its plan when attached; later edits do not change it."
        actions={
          <button className="btn btn-primary" onClick={() => setEditing('new')} disabled={editing === 'new'}>
            New plan
          </button>
        }
      />
      {editing === 'new' && (
        <Section title="New plan">
          <PlanForm save={(body) => api().createRolloutPlan({ path: { id: projectId }, body })} onDone={done} onCancel={() => setEditing(undefined)} />
        </Section>
      )}
      <ErrorNote error={plans.error ?? remove.error} />
      {plans.loading && !plans.data && <Loading />}
      {plans.data?.length === 0 && editing !== 'new' && <Empty>No plans yet.</Empty>}
      {plans.data?.map((p) =>
        editing === p.key ? (
          <Section key={p.key} title={`Edit ${p.name}`}>
            <PlanForm
              plan={p}
              save={({ key: _key, ...patch }) => api().updateRolloutPlan({ path: { id: projectId, planKey: p.key }, body: patch })}
              onDone={done}
              onCancel={() => setEditing(undefined)}
            />
          </Section>
        ) : (
          <Section
            key={p.key}
            title={
              <>
                {p.name} <code className="small">{p.key}</code>
              </>
            }
            actions={
              <div className="row">
                <button className="btn btn-small" onClick={() => setEditing(p.key)}>
                  Edit
                </button>
                {confirmDelete === p.key ? (
                  <button className="btn btn-small btn-danger" onClick={() => void del(p.key)} disabled={remove.busy}>
                    Confirm delete
                  </button>
                ) : (
                  <button className="btn btn-small btn-danger-outline" onClick={() => setConfirmDelete(p.key)}>
                    Delete
                  </button>
                )}
              </div>
            }
          >
            {p.description && <p>{p.description}</p>}
            <p className="small muted">
              {p.cadence === 'auto' ? 'Automatic' : 'Manual'} cadence
              {p.blackoutDaysOfWeek.length > 0 && ` · no steps on ${p.blackoutDaysOfWeek.map((d) => DAY_NAMES[d]).join(', ')} (${p.blackoutTimezone})`}
            </p>
            <ol className="ramp">
              {p.rampSteps.map((s, i) => (
                <li key={i}>
                  <strong>{formatPercent(s.percent)}</strong>
                  <span className="small muted">{s.holdForSeconds ? `hold ${formatDuration(s.holdForSeconds)}` : 'final'}</span>
                  {s.requiresApproval && <span className="badge badge-paused">approval</span>}
                  {s.guard && <span className="badge">guarded: {s.guard.metrics.map((m) => m.key).join(', ')}</span>}
                </li>
              ))}
            </ol>
          </Section>
        ),
      )}
      <GuardMetrics projectId={projectId} />
    </>
  );
}
