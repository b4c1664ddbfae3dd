import type { Rollout } from '@gradual/sdk';
import { api } from '../api';
import { ConvergenceLine } from '../components/ConvergenceLine';
import { RollbackBanner } from '../components/RollbackBanner';
import { RollBackNow } from '../components/RollBackNow';
import { TypedDelete } from '../components/Danger';
import { Empty, ErrorNote, Loading, PageHeader, Section, StatusBadge } from '../components/ui';
import { formatJson, formatPercent } from '../format';
import { useResource } from '../hooks';
import { useLiveReload } from '../live/live';
import { primitiveApi } from '../primitive-api';
import { Link, navigate, seg, setQuery, useLocation } from '../router';
import { Crumbs } from '../Shell';

interface Row {
  kind: 'flag' | 'config';
  key: string;
  value: unknown;
  rulesCount: number;
  rollout: Rollout | null;
}

/** One environment: every flag and config with its value, rules and rollout at a glance. */
export function EnvironmentPage({ slug, projectId, envId }: { slug: string; projectId: string; envId: string }) {
  const { search } = useLocation();
  const q = search.get('q') ?? '';
  const project = useResource(() => api().getProject({ path: { id: projectId } }), [projectId]);
  const env = useResource(() => api().getEnvironment({ path: { envId } }), [envId]);
  const rows = useResource(async (): Promise<Row[]> => {
    const [flags, configs] = await Promise.all([api().listFlagStates({ path: { envId } }), api().listConfigStates({ path: { envId } })]);
    return [
      ...flags.map((f) => ({ kind: 'flag' as const, key: f.key, value: f.value, rulesCount: f.rules.length, rollout: f.rollout })),
      ...configs.map((c) => ({ kind: 'config' as const, key: c.key, value: c.value, rulesCount: c.rules.length, rollout: c.rollout })),
    ].sort((a, b) => a.key.localeCompare(b.key));
  }, [envId]);
  useLiveReload({ envId }, () => Promise.all([rows.reload(), env.reload()]));

  const base = `/o/${slug}/p/${seg(projectId)}/e/${seg(envId)}`;
  const needle = q.trim().toLowerCase();
  const shown = rows.data?.filter((r) => r.key.toLowerCase().includes(needle));
  const rolledBack = rows.data?.filter((r) => r.rollout?.lastAutoRollback) ?? [];

  return (
    <>
      <Crumbs items={[['Projects', `/o/${slug}`], [project.data?.name ?? '…', `/o/${slug}/p/${seg(projectId)}`], [env.data?.name ?? '…']]} />
      <PageHeader
        title={env.data?.name ?? 'Environment'}
        sub={env.data && (
          <>
            <code>{env.data.key}</code> · version {env.data.version}
          </>
        )}
        actions={
          <Link className="btn" to={`${base}/rollback`}>
            Rollback webhooks
          </Link>
        }
      />
      <ConvergenceLine envId={envId} version={env.data?.version} />
      {rolledBack.map((r) => (
        <RollbackBanner key={r.key} rollout={r.rollout!} link={`${base}/${r.kind}s/${seg(r.key)}`} />
      ))}
      <div className="toolbar">
        <label className="search">
          <span className="visually-hidden">Search by key</span>
          <input type="search" placeholder="Search by key…" value={q} onChange={(e) => setQuery({ q: e.target.value })} aria-label="Search by key" />
        </label>
        {shown && (
          <span className="muted small" aria-live="polite">
            {shown.length} of {rows.data!.length}
          </span>
        )}
      </div>
      <ErrorNote error={rows.error} />
      {rows.loading && !rows.data && <Loading />}
      {rows.data?.length === 0 && (
        <Empty>
          No flags or configs in this project yet. <Link to={`/o/${slug}/p/${seg(projectId)}`}>Create one on the project page.</Link>
        </Empty>
      )}
      {shown && shown.length > 0 && (
        <div className="table-wrap">
          <table className="primitives">
            <thead>
              <tr>
                <th>Key</th>
                <th>Value</th>
                <th>Rules</th>
                <th>Rollout</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((r) => (
                <tr key={`${r.kind}:${r.key}`}>
                  <td>
                    <Link to={`${base}/${r.kind}s/${seg(r.key)}`}>
                      <code>{r.key}</code>
                    </Link>{' '}
                    <span className="kind">{r.kind}</span>
                  </td>
                  <td>
                    <code className="value">{formatJson(r.value)}</code>
                  </td>
                  <td>{r.rulesCount === 0 ? <span className="muted">none</span> : r.rulesCount}</td>
                  <td>
                    <RolloutGlance rollout={r.rollout} />
                    {r.rollout && <RollBackNow rollout={r.rollout} rollback={primitiveApi(r.kind, envId, r.key).rollback} onDone={() => void rows.reload()} />}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {shown?.length === 0 && rows.data!.length > 0 && <Empty>No key contains “{q}”.</Empty>}
      {env.data && (
        <Section title="Danger zone" id="env-danger-h">
          <TypedDelete
            noun="environment"
            confirmKey={env.data.key}
            consequences="Deletes this environment's values, rules, rollouts and target IDs, its rollback secrets and fire history, usage and proposals; API keys bound to it alone are revoked. The flags and configs stay in the project's other environments."
            remove={(confirm) => api().deleteEnvironment({ path: { envId }, body: { confirm } })}
            onDeleted={() => navigate(`/o/${slug}/p/${seg(projectId)}`)}
          />
        </Section>
      )}
    </>
  );
}

function RolloutGlance({ rollout }: { rollout: Rollout | null }) {
  if (!rollout || rollout.status === 'cancelled' || rollout.status === 'completed') {
    return <StatusBadge status={rollout?.status ?? 'none'} />;
  }
  return (
    <div className="glance">
      <StatusBadge status={rollout.status} reason={rollout.pausedReason} />
      <div className="meter" role="img" aria-label={`${formatPercent(rollout.percent)} admitted`}>
        <div style={{ width: `${rollout.percent}%` }} />
      </div>
      <span className="small">{formatPercent(rollout.percent)}</span>
    </div>
  );
}
