import type { AuditEventPage, AuditEventSummary } from '@gradual/sdk';
import { api } from '../api';
import { auditActionName, auditActorName, auditReasonText } from '../audit-names';
import { formatTime } from '../format';
import { useAction, useReloadOn, useResource } from '../hooks';
import { Link } from '../router';
import { Empty, ErrorNote, Loading } from './ui';

export const HISTORY_PAGE_SIZE = 20;

/**
 * A flag's and a config's audit rows share the key, so a listing by key and environment can hold
 * both; the other kind's own rows (value, rules, created, details, archive, restore) are left out.
 */
function ofKind(kind: 'flag' | 'config', events: AuditEventSummary[]): AuditEventSummary[] {
  const other = kind === 'flag' ? 'config' : 'flag';
  return events.filter((e) => e.resourceType !== other);
}

/** The listing's query: the rows of one key in one environment, and its project's rows that name no environment. */
function historyQuery(primitiveKey: string, envId: string) {
  return { resourceKey: primitiveKey, envId, includeProjectRows: 'true' as const, limit: HISTORY_PAGE_SIZE };
}

/**
 * The audit log of one flag or config in one environment, newest first, a page at a time: its
 * value, rules and rollouts there, and the project-level rows that name no environment (its
 * creation, details edits, archive and restore; `includeProjectRows`). `refresh` changes whenever
 * the state or definition on screen changes (a new entry to show).
 */
export function FlagHistory(props: { slug: string; envId: string; kind: 'flag' | 'config'; primitiveKey: string; refresh?: unknown }) {
  const { slug, envId, kind, primitiveKey, refresh } = props;
  const page = useResource(
    async (): Promise<AuditEventPage> => {
      const first = await api().listAuditEvents({ path: { slug }, query: historyQuery(primitiveKey, envId) });
      return { events: ofKind(kind, first.events), nextCursor: first.nextCursor };
    },
    [slug, envId, kind, primitiveKey],
  );
  // A new entry to show: read the first page again, keeping the table on screen meanwhile.
  useReloadOn(refresh, page.reload);
  const more = useAction();

  const loadOlder = async () => {
    const cursor = page.data?.nextCursor;
    if (!cursor) return;
    const next = await more.run(() => api().listAuditEvents({ path: { slug }, query: { ...historyQuery(primitiveKey, envId), cursor } }));
    if (next) page.setData((p) => ({ events: [...(p?.events ?? []), ...ofKind(kind, next.events)], nextCursor: next.nextCursor }));
  };

  const auditLink = `/o/${slug}/audit?${new URLSearchParams({ resourceKey: primitiveKey, envId, includeProjectRows: 'true' }).toString()}`;

  return (
    <div data-testid="flag-history">
      <ErrorNote error={page.error} />
      {page.loading && !page.data && <Loading />}
      {page.data?.events.length === 0 && !page.data.nextCursor && <Empty>No changes recorded in this environment yet.</Empty>}
      {page.data && page.data.events.length > 0 && (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Change</th>
                <th scope="col">By</th>
                <th scope="col">Reason</th>
                <th scope="col">Version</th>
              </tr>
            </thead>
            <tbody>
              {page.data.events.map((e) => {
                const why = auditReasonText(e);
                return (
                  <tr key={e.id} data-action={e.action}>
                    <td>{formatTime(e.createdAt)}</td>
                    <td title={e.action}>{auditActionName(e.action)}</td>
                    <td>{auditActorName(e)}</td>
                    <td>{why ? `“${why}”` : <span className="muted">—</span>}</td>
                    <td>{e.version ?? '—'}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <div className="row">
        {page.data?.nextCursor && (
          <button className="btn btn-small" onClick={() => void loadOlder()} disabled={more.busy}>
            {more.busy ? 'Loading…' : 'Older entries'}
          </button>
        )}
        <Link className="btn btn-small" to={auditLink}>
          Details in the audit log
        </Link>
      </div>
      <ErrorNote error={more.error} />
    </div>
  );
}
