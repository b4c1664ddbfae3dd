import { useState } from 'react';
import type { AuditEventPage, AuditEventSummary } from '@gradual/sdk';
import { api, errorMessage } from '../api';
import { auditActionName, auditActorName, auditReasonText, autoRollbackAlertUrl } from '../audit-names';
import { BOOKKEEPING_FIELDS, Diff } from '../components/Diff';
import { Empty, ErrorNote, Icon, Loading, PageHeader } from '../components/ui';
import { formatTime } from '../format';
import { useAction, useResource } from '../hooks';
import { useLiveReload } from '../live/live';
import { setQuery, useLocation } from '../router';

const RESOURCE_TYPES = ['flag', 'config', 'rollout', 'rollout_plan', 'segment', 'environment', 'project', 'webhook', 'rollback_secret', 'member', 'invitation', 'api_token', 'proposal'];

interface AuditFilters {
  resourceType: string;
  resourceKey: string;
  envId: string;
  actorId: string;
  includeProjectRows: string;
}

/** The listing's query: the filters that are set. */
function auditQuery(filters: AuditFilters): Record<string, string> {
  return Object.fromEntries(Object.entries(filters).filter(([, v]) => v));
}

/** The org's audit log: filters in the URL (deep links), newest first, a readable diff per entry. */
export function AuditPage({ slug }: { slug: string }) {
  const { search } = useLocation();
  const filters: AuditFilters = {
    resourceType: search.get('resourceType') ?? '',
    resourceKey: search.get('resourceKey') ?? '',
    envId: search.get('envId') ?? '',
    actorId: search.get('actorId') ?? '',
    // With an environment: also its project's rows that name no environment (a flag's history links here so).
    includeProjectRows: search.get('envId') && search.get('includeProjectRows') === 'true' ? 'true' : '',
  };
  const [keyDraft, setKeyDraft] = useState(filters.resourceKey);
  const query = auditQuery(filters);
  const { resourceType, resourceKey, envId, actorId, includeProjectRows } = filters;
  const page = useResource(
    () => api().listAuditEvents({ path: { slug }, query: { ...auditQuery({ resourceType, resourceKey, envId, actorId, includeProjectRows }), limit: 50 } }),
    [slug, resourceType, resourceKey, envId, actorId, includeProjectRows],
  );
  const more = useAction();
  // Every announced write, in environments (`change`) and outside them (`org-change`): the list is filtered by the server.
  useLiveReload({ orgSlug: slug }, page.reload);

  const loadMore = async () => {
    const cursor = page.data?.nextCursor;
    if (!cursor) return;
    const next = await more.run(() => api().listAuditEvents({ path: { slug }, query: { ...query, cursor, limit: 50 } }));
    if (next) page.setData((p: AuditEventPage | undefined) => ({ events: [...(p?.events ?? []), ...next.events], nextCursor: next.nextCursor }));
  };

  return (
    <>
      <PageHeader title="Audit log" sub="Every change, who made it, and why." />
      <form
        className="toolbar filters"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery({ resourceKey: keyDraft.trim() });
        }}
      >
        <label>
          <span className="label">Resource</span>
          <select value={filters.resourceType} onChange={(e) => setQuery({ resourceType: e.target.value })} aria-label="Resource type">
            <option value="">All</option>
            {RESOURCE_TYPES.map((t) => (
              <option key={t} value={t}>
                {t.replace('_', ' ')}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span className="label">Key</span>
          <input type="search" aria-label="Resource key" value={keyDraft} onChange={(e) => setKeyDraft(e.target.value)} onBlur={() => setQuery({ resourceKey: keyDraft.trim() })} placeholder="new-checkout" />
        </label>
        {(filters.actorId || filters.envId) && (
          <span className="chip">
            {filters.actorId ? `actor ${filters.actorId.slice(0, 8)}…` : ''} {filters.envId ? `environment ${filters.envId.slice(0, 8)}…${filters.includeProjectRows ? ' and its project' : ''}` : ''}
            <button type="button" className="link-button" onClick={() => setQuery({ actorId: undefined, envId: undefined, includeProjectRows: undefined })} aria-label="Clear actor and environment filters">
              <Icon name="close" />
            </button>
          </span>
        )}
        <button className="btn btn-small">Filter</button>
        {Object.keys(query).length > 0 && (
          <button
            type="button"
            className="btn btn-small"
            onClick={() => {
              setKeyDraft('');
              setQuery({ resourceType: undefined, resourceKey: undefined, actorId: undefined, envId: undefined, includeProjectRows: undefined });
            }}
          >
            Clear
          </button>
        )}
      </form>
      <ErrorNote error={page.error} />
      {page.loading && !page.data && <Loading />}
      {page.data?.events.length === 0 && <Empty>No audit entries match.</Empty>}
      {page.data && page.data.events.length > 0 && (
        <ul className="audit-list">
          {page.data.events.map((e) => (
            <AuditEntry key={e.id} event={e} />
          ))}
        </ul>
      )}
      {page.data?.nextCursor && (
        <button className="btn" onClick={() => void loadMore()} disabled={more.busy}>
          {more.busy ? 'Loading…' : 'Older entries'}
        </button>
      )}
      <ErrorNote error={more.error} />
    </>
  );
}

function AuditEntry({ event: e }: { event: AuditEventSummary }) {
  const [open, setOpen] = useState(false);
  const detail = useResource(() => (open ? api().getAuditEvent({ path: { id: e.id } }) : Promise.resolve(undefined)), [open, e.id]);
  const actor = auditActorName(e);
  const why = auditReasonText(e);
  // A flag's or config's value is the user's own JSON: every field of it is shown.
  const omit = e.action.endsWith('.update_value') ? undefined : BOOKKEEPING_FIELDS;
  return (
    <li className={`audit-entry ${open ? 'open' : ''}`} data-action={e.action}>
      <button className="audit-summary" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        <span className="when">{formatTime(e.createdAt)}</span>
        <span className="what">
          <span className="action">{auditActionName(e.action)}</span> {e.resourceKey && <code>{e.resourceKey}</code>}
        </span>
        <span className="who">{actor}</span>
        {why && <span className="why">“{why}”</span>}
      </button>
      {open && (
        <div className="audit-detail">
          {detail.loading && <Loading />}
          {detail.error ? <div className="note note-error">{errorMessage(detail.error)}</div> : null}
          {detail.data && (
            <>
              <dl className="facts small">
                <dt>Action</dt>
                <dd>
                  <code>{e.action}</code>
                </dd>
                <dt>Resource</dt>
                <dd>
                  {e.resourceType} {e.resourceKey && <code>{e.resourceKey}</code>}
                </dd>
                {e.version !== null && (
                  <>
                    <dt>Environment version</dt>
                    <dd>{e.version}</dd>
                  </>
                )}
                {why && (
                  <>
                    <dt>Reason</dt>
                    <dd>{auditReasonText(e, autoRollbackAlertUrl(detail.data.newValue))}</dd>
                  </>
                )}
              </dl>
              <Diff before={detail.data.previousValue} after={detail.data.newValue} {...(omit ? { omit } : {})} />
            </>
          )}
        </div>
      )}
    </li>
  );
}
