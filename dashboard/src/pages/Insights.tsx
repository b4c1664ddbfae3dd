import type { InsightStatus, PrimitiveInsight } from '@gradual/sdk';
import { api } from '../api';
import { primitivePath } from '../components/FlagMatrix';
import { Empty, ErrorNote, Loading, PageHeader } from '../components/ui';
import { formatTime } from '../format';
import { useResource } from '../hooks';
import { projectResources, useLiveReload } from '../live/live';
import { Link, seg, setQuery, useLocation } from '../router';
import { Crumbs } from '../Shell';

export const INSIGHT_TEXT: Record<InsightStatus, string> = {
  new: 'New',
  not_evaluated: 'Not evaluated',
  ready_to_remove: 'Ready to remove',
  in_use: 'In use',
};
const INSIGHT_CLASS: Record<InsightStatus, string> = {
  new: 'badge-active',
  not_evaluated: 'badge-paused',
  ready_to_remove: 'badge-danger',
  in_use: 'badge-completed',
};
const INSIGHT_HELP: Record<InsightStatus, string> = {
  new: 'Created recently and not evaluated yet.',
  not_evaluated: 'No SDK or server evaluation in any environment for the stale period.',
  ready_to_remove: 'Every environment serves one value to everyone (no rules, no live rollout) and nothing changed for the ready period.',
  in_use: 'Evaluated recently.',
};
const STATUSES = Object.keys(INSIGHT_TEXT) as InsightStatus[];
const isStatus = (s: string): s is InsightStatus => (STATUSES as string[]).includes(s);

export function InsightBadge({ status }: { status: InsightStatus }) {
  return (
    <span className={`badge ${INSIGHT_CLASS[status]}`} title={INSIGHT_HELP[status]} data-testid="insight-status">
      {INSIGHT_TEXT[status]}
    </span>
  );
}

/** A whole number from the query string within [min, max], or undefined (the server's default). */
function dayParam(text: string | null, min: number, max: number): number | undefined {
  if (!text) return undefined;
  const n = Number(text);
  return Number.isInteger(n) && n >= min && n <= max ? n : undefined;
}

/**
 * Stale flags: every live flag and config of the project with its insight status (new, not
 * evaluated, ready to remove, in use), when it was last evaluated and last changed. Filters live
 * in the address (`?status=&staleAfterDays=&readyAfterDays=`).
 */
export function InsightsPage({ slug, projectId }: { slug: string; projectId: string }) {
  const { search } = useLocation();
  const statusText = search.get('status') ?? '';
  const status = isStatus(statusText) ? statusText : undefined;
  const staleAfterDays = dayParam(search.get('staleAfterDays'), 1, 90);
  const readyAfterDays = dayParam(search.get('readyAfterDays'), 1, 365);
  const project = useResource(() => api().getProject({ path: { id: projectId } }), [projectId]);
  const envs = useResource(() => api().listEnvironments({ path: { id: projectId } }), [projectId]);
  const insights = useResource(
    () => api().listInsights({ path: { id: projectId }, query: { status, staleAfterDays, readyAfterDays } }),
    [projectId, status, staleAfterDays, readyAfterDays],
  );
  // Flags and configs created, archived or restored, and their rollouts (a finished rollout makes a flag ready to remove).
  useLiveReload(
    { orgSlug: slug },
    () => Promise.all([insights.reload(), envs.reload()]),
    projectResources(projectId, ['flag', 'config', 'rollout', 'environment'], { envIds: envs.data?.map((e) => e.id) }),
  );
  const base = `/o/${slug}/p/${seg(projectId)}`;
  const first = envs.data?.[0];
  const link = (i: PrimitiveInsight) => (first ? primitivePath(slug, projectId, first.id, i.kind, i.key) : undefined);

  return (
    <>
      <Crumbs items={[['Projects', `/o/${slug}`], [project.data?.name ?? '…', base], ['Stale flags']]} />
      <PageHeader title="Stale flags" sub="Which flags and configs are still evaluated, and which can go. Archived ones are not listed." />
      <form className="toolbar filters" onSubmit={(e) => e.preventDefault()} aria-label="Filters">
        <label>
          <span className="label">Status</span>
          <select value={status ?? ''} onChange={(e) => setQuery({ status: e.target.value })}>
            <option value="">Any status</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {INSIGHT_TEXT[s]}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span className="label">Stale after (days)</span>
          <input
            type="number"
            min={1}
            max={90}
            inputMode="numeric"
            placeholder="7"
            value={search.get('staleAfterDays') ?? ''}
            onChange={(e) => setQuery({ staleAfterDays: e.target.value })}
          />
        </label>
        <label>
          <span className="label">Ready to remove after (days)</span>
          <input
            type="number"
            min={1}
            max={365}
            inputMode="numeric"
            placeholder="30"
            value={search.get('readyAfterDays') ?? ''}
            onChange={(e) => setQuery({ readyAfterDays: e.target.value })}
          />
        </label>
        {insights.data && (
          <span className="muted small" aria-live="polite">
            {insights.data.length} {insights.data.length === 1 ? 'flag or config' : 'flags and configs'}
          </span>
        )}
      </form>
      <ErrorNote error={insights.error} />
      {insights.loading && !insights.data && <Loading />}
      {insights.data?.length === 0 && <Empty>{status ? `Nothing is “${INSIGHT_TEXT[status]}”.` : 'No live flags or configs in this project.'}</Empty>}
      {insights.data && insights.data.length > 0 && (
        <div className="table-wrap card">
          <table className="insights" data-testid="insights">
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Status</th>
                <th scope="col">Last evaluated</th>
                <th scope="col">Evaluations</th>
                <th scope="col">Last changed</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {insights.data.map((i) => {
                const to = link(i);
                return (
                  <tr key={`${i.kind}:${i.key}`} data-key={i.key}>
                    <td>
                      {to ? (
                        <Link to={to}>
                          <code>{i.key}</code>
                        </Link>
                      ) : (
                        <code>{i.key}</code>
                      )}{' '}
                      <span className="kind">{i.kind}</span>
                      <div className="small muted">{i.name}</div>
                    </td>
                    <td>
                      <InsightBadge status={i.status} />
                    </td>
                    <td>
                      {i.lastEvaluatedAt ? formatTime(i.lastEvaluatedAt) : <span className="muted">never</span>}
                      {i.environments.length > 1 && (
                        <ul className="plain small muted">
                          {i.environments.map((e) => (
                            <li key={e.envId}>
                              {e.envKey}: {e.lastEvaluatedAt ? formatTime(e.lastEvaluatedAt) : 'never'}
                            </li>
                          ))}
                        </ul>
                      )}
                    </td>
                    <td>{i.evaluations.toLocaleString()}</td>
                    <td>{formatTime(i.lastChangedAt)}</td>
                    <td>{formatTime(i.createdAt)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
