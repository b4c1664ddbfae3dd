import { useState, type FormEvent } from 'react';
import type { CreatedWebhookSubscription, WebhookDelivery, WebhookEventType, WebhookFormat, WebhookSubscription } from '@gradual/sdk';
import { api, fieldErrors } from '../api';
import { CopyButton, Empty, ErrorNote, Field, Loading, PageHeader, Section, TextField } from '../components/ui';
import { formatTime } from '../format';
import { useAction, useReloadOn, useResource } from '../hooks';
import { projectResources, useLiveReload } from '../live/live';
import { seg } from '../router';
import { Crumbs } from '../Shell';

/** Every event a subscription can receive, in words (the type makes a missing one a compile error). */
export const WEBHOOK_EVENT_NAMES: Record<WebhookEventType, string> = {
  'rollout.created': 'Rollout started',
  'rollout.advanced': 'Rollout advanced a step',
  'rollout.paused': 'Rollout paused (by a person or at an approval gate)',
  'rollout.resumed': 'Rollout resumed',
  'rollout.completed': 'Rollout completed',
  'rollout.cancelled': 'Rollout cancelled',
  'rollout.rolled_back': 'Rollout rolled back',
  'rollout.rollback_converged': 'Rollback reached the SDK fleet',
  'proposal.created': 'Change proposed',
  'proposal.approved': 'Proposal applied',
  'proposal.rejected': 'Proposal cancelled',
  'flag.archived': 'Flag archived',
  'flag.deleted': 'Flag deleted',
  'config.archived': 'Config archived',
  'config.deleted': 'Config deleted',
};
const EVENTS = Object.keys(WEBHOOK_EVENT_NAMES) as WebhookEventType[];

const DELIVERY_CLASS: Record<WebhookDelivery['status'], string> = { pending: 'badge-paused', succeeded: 'badge-completed', failed: 'badge-danger', dropped: 'badge-cancelled' };
const DELIVERY_TEXT: Record<WebhookDelivery['status'], string> = { pending: 'Pending', succeeded: 'Delivered', failed: 'Failed', dropped: 'Dropped' };
const isDeliveryStatus = (s: string): s is WebhookDelivery['status'] => Object.hasOwn(DELIVERY_TEXT, s);
const PAGE = 20;

interface FormValues {
  name: string;
  url: string;
  events: WebhookEventType[];
  format: WebhookFormat;
}

/**
 * A project's outbound webhooks: subscriptions (URL, events, Standard Webhooks JSON or a Slack
 * message), the signing secret shown once at creation, a test event, and each subscription's
 * delivery log.
 */
export function WebhooksPage({ slug, projectId }: { slug: string; projectId: string }) {
  const project = useResource(() => api().getProject({ path: { id: projectId } }), [projectId]);
  const subs = useResource(() => api().listWebhookSubscriptions({ path: { id: projectId } }), [projectId]);
  useLiveReload({ orgSlug: slug }, subs.reload, projectResources(projectId, ['webhook']));
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedWebhookSubscription>();
  const base = `/o/${slug}/p/${seg(projectId)}`;

  return (
    <>
      <Crumbs items={[['Projects', `/o/${slug}`], [project.data?.name ?? '…', base], ['Webhooks']]} />
      <PageHeader
        title="Webhooks"
        sub="Gradual calls these URLs when rollouts move, proposals are decided and flags are archived or deleted; each call is signed (Standard Webhooks) and retried."
        actions={
          <button
            className="btn btn-primary"
            onClick={() => {
              setCreating((c) => !c);
              setCreated(undefined);
            }}
            aria-expanded={creating}
          >
            New subscription
          </button>
        }
      />
      {created && (
        <div className="note note-success minted" role="status" data-testid="webhook-secret">
          <strong>Subscription “{created.name}” created.</strong> Its signing secret is shown only now; store it where your receiver verifies{' '}
          <code>webhook-signature</code>:
          <div className="secret-row">
            <code className="secret">{created.secret}</code>
            <CopyButton text={created.secret} label="Copy secret" />
          </div>
          <button type="button" className="btn btn-small" onClick={() => setCreated(undefined)}>
            I have stored it
          </button>
        </div>
      )}
      {creating && (
        <Section title="New subscription" id="new-webhook-h">
          <SubscriptionForm
            submitLabel="Create subscription"
            initial={{ name: '', url: '', events: ['rollout.rolled_back', 'rollout.paused'], format: 'standard' }}
            send={(v) => api().createWebhookSubscription({ path: { id: projectId }, body: v })}
            onDone={(sub) => {
              setCreating(false);
              if (sub) {
                setCreated(sub);
                void subs.reload();
              }
            }}
          />
        </Section>
      )}
      <ErrorNote error={subs.error} />
      {subs.loading && !subs.data && <Loading />}
      {subs.data?.length === 0 && !creating && <Empty>No webhook subscriptions yet.</Empty>}
      {subs.data?.map((s) => (
        <Subscription
          key={s.id}
          projectId={projectId}
          sub={s}
          onChanged={(next) => subs.setData((list) => (list ?? []).map((x) => (x.id === next.id ? next : x)))}
          onDeleted={() => subs.setData((list) => (list ?? []).filter((x) => x.id !== s.id))}
        />
      ))}
    </>
  );
}

function SubscriptionForm<R>(props: { initial: FormValues; submitLabel: string; send: (v: FormValues) => Promise<R>; onDone: (result?: R) => void }) {
  const [v, setV] = useState<FormValues>(props.initial);
  const action = useAction();
  const fields = fieldErrors(action.error);
  const eventsError = Object.entries(fields).find(([k]) => k === 'events' || k.startsWith('events.'))?.[1];
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const r = await action.run(() => props.send({ ...v, name: v.name.trim(), url: v.url.trim() }));
    if (r !== undefined) props.onDone(r);
  };
  const toggle = (ev: WebhookEventType, on: boolean) => setV((x) => ({ ...x, events: on ? [...x.events, ev] : x.events.filter((y) => y !== ev) }));
  return (
    <form className="form-grid" onSubmit={(e) => void submit(e)} noValidate aria-label={props.submitLabel}>
      <TextField label="Name" value={v.name} onChange={(name) => setV((x) => ({ ...x, name }))} error={fields.name} placeholder="Ops channel" autoFocus />
      <TextField
        label="URL"
        type="url"
        value={v.url}
        onChange={(url) => setV((x) => ({ ...x, url }))}
        error={fields.url}
        placeholder="https://hooks.example.com/gradual"
      />
      <fieldset className="checks" aria-describedby={eventsError ? 'webhook-events-error' : undefined}>
        <legend>Events</legend>
        {EVENTS.map((ev) => (
          <label key={ev}>
            <input type="checkbox" checked={v.events.includes(ev)} onChange={(e) => toggle(ev, e.target.checked)} /> {WEBHOOK_EVENT_NAMES[ev]} <code className="small">{ev}</code>
          </label>
        ))}
        <div className="row">
          <button type="button" className="link-button" onClick={() => setV((x) => ({ ...x, events: [...EVENTS] }))}>
            Select all
          </button>
          <button type="button" className="link-button" onClick={() => setV((x) => ({ ...x, events: [] }))}>
            Clear
          </button>
        </div>
        {eventsError && (
          <div className="field-error" id="webhook-events-error" role="alert">
            {eventsError}
          </div>
        )}
      </fieldset>
      <Field label="Format" error={fields.format}>
        {({ id, describedBy }) => (
          <select id={id} value={v.format} aria-describedby={describedBy} onChange={(e) => setV((x) => ({ ...x, format: e.target.value === 'slack' ? 'slack' : 'standard' }))}>
            <option value="standard">Standard Webhooks (JSON event)</option>
            <option value="slack">Slack incoming webhook (message)</option>
          </select>
        )}
      </Field>
      {Object.keys(fields).length === 0 && <ErrorNote error={action.error} />}
      <div className="form-actions">
        <button className="btn btn-primary" disabled={action.busy}>
          {props.submitLabel}
        </button>
        <button type="button" className="btn" onClick={() => props.onDone()}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function Subscription({ projectId, sub, onChanged, onDeleted }: { projectId: string; sub: WebhookSubscription; onChanged: (s: WebhookSubscription) => void; onDeleted: () => void }) {
  const [editing, setEditing] = useState(false);
  const [showLog, setShowLog] = useState(false);
  const [logVersion, setLogVersion] = useState(0);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [sent, setSent] = useState<string>();
  const action = useAction();
  const path = { id: projectId, subscriptionId: sub.id };
  const headingId = `webhook-${sub.id}-h`;

  const setEnabled = async (enabled: boolean) => {
    const next = await action.run(() => api().updateWebhookSubscription({ path, body: { enabled } }));
    if (next) onChanged(next);
  };
  const test = async () => {
    const delivery = await action.run(() => api().testWebhookSubscription({ path }));
    if (delivery) {
      setSent(`Test event queued (delivery ${delivery.id}).`);
      setShowLog(true);
      setLogVersion((n) => n + 1);
    }
  };
  const remove = async () => {
    const done = await action.run(async () => {
      await api().deleteWebhookSubscription({ path });
      return true;
    });
    if (done) onDeleted();
  };

  return (
    <section className="card webhook" aria-labelledby={headingId} data-testid="webhook-subscription">
      <div className="card-head">
        <h2 id={headingId}>
          {sub.name} {sub.enabled ? <span className="badge badge-completed">Enabled</span> : <span className="badge badge-cancelled">Disabled</span>}
        </h2>
        <div className="row wrap">
          <button className="btn btn-small" disabled={action.busy} onClick={() => void test()}>
            Send test event
          </button>
          <button className="btn btn-small" disabled={action.busy} onClick={() => void setEnabled(!sub.enabled)}>
            {sub.enabled ? 'Disable' : 'Enable'}
          </button>
          <button className="btn btn-small" onClick={() => setEditing((e) => !e)} aria-expanded={editing}>
            Edit
          </button>
          {confirmDelete ? (
            <>
              <button className="btn btn-small btn-danger" disabled={action.busy} onClick={() => void remove()}>
                Delete “{sub.name}” and its log
              </button>
              <button className="btn btn-small" onClick={() => setConfirmDelete(false)}>
                Keep it
              </button>
            </>
          ) : (
            <button className="btn btn-small btn-danger-outline" onClick={() => setConfirmDelete(true)}>
              Delete…
            </button>
          )}
        </div>
      </div>
      {editing ? (
        <SubscriptionForm
          submitLabel="Save subscription"
          initial={{ name: sub.name, url: sub.url, events: sub.events, format: sub.format }}
          send={(v) => api().updateWebhookSubscription({ path, body: v })}
          onDone={(next) => {
            setEditing(false);
            if (next) onChanged(next);
          }}
        />
      ) : (
        <dl className="facts">
          <dt>URL</dt>
          <dd>
            <code>{sub.url}</code>
          </dd>
          <dt>Events</dt>
          <dd>{sub.events.map((e) => WEBHOOK_EVENT_NAMES[e]).join(', ')}</dd>
          <dt>Format</dt>
          <dd>{sub.format === 'slack' ? 'Slack message' : 'Standard Webhooks JSON'}</dd>
          <dt>Created</dt>
          <dd>{formatTime(sub.createdAt)}</dd>
        </dl>
      )}
      <ErrorNote error={action.error} />
      {sent && (
        <div className="note note-success" role="status">
          {sent}
        </div>
      )}
      <button type="button" className="btn btn-small" onClick={() => setShowLog((s) => !s)} aria-expanded={showLog}>
        {showLog ? 'Hide delivery log' : 'Delivery log'}
      </button>
      {showLog && <DeliveryLog projectId={projectId} subscriptionId={sub.id} version={logVersion} />}
    </section>
  );
}

/** A subscription's deliveries, newest first, a page at a time, optionally one status only. */
export function DeliveryLog({ projectId, subscriptionId, version }: { projectId: string; subscriptionId: string; version: number }) {
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [status, setStatus] = useState<WebhookDelivery['status'] | ''>('');
  const cursor = cursors[cursors.length - 1];
  const page = useResource(
    () => api().listWebhookDeliveries({ path: { id: projectId, subscriptionId }, query: { cursor, limit: PAGE, ...(status ? { status } : {}) } }),
    [projectId, subscriptionId, cursor, status],
  );
  // A test event was sent: its delivery is new.
  useReloadOn(version, page.reload);
  return (
    <div className="delivery-log">
      <div className="toolbar">
        <label>
          <span className="label">Status</span>
          <select
            value={status}
            onChange={(e) => {
              const s = e.target.value;
              setStatus(isDeliveryStatus(s) ? s : '');
              setCursors([undefined]);
            }}
          >
            <option value="">Any</option>
            <option value="pending">Pending</option>
            <option value="succeeded">Delivered</option>
            <option value="failed">Failed</option>
            <option value="dropped">Dropped</option>
          </select>
        </label>
        <button type="button" className="btn btn-small" onClick={() => void page.reload()} disabled={page.loading}>
          Refresh
        </button>
      </div>
      <ErrorNote error={page.error} />
      {page.loading && !page.data && <Loading />}
      {page.data?.items.length === 0 && <Empty>No deliveries{status ? ` with this status` : ''} in the last 30 days.</Empty>}
      {page.data && page.data.items.length > 0 && (
        <div className="table-wrap">
          <table className="deliveries" data-testid="deliveries">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Response</th>
                <th scope="col">Last error</th>
              </tr>
            </thead>
            <tbody>
              {page.data.items.map((d) => (
                <tr key={d.id} data-event={d.eventType}>
                  <td className="small">{formatTime(d.createdAt)}</td>
                  <td>
                    <code>{d.eventType}</code>
                  </td>
                  <td>
                    <span className={`badge ${DELIVERY_CLASS[d.status]}`}>{DELIVERY_TEXT[d.status]}</span>
                    {d.status === 'pending' && d.nextAttemptAt && <div className="small muted">next try {formatTime(d.nextAttemptAt)}</div>}
                  </td>
                  <td>{d.attempts}</td>
                  <td>{d.responseStatus ?? <span className="muted">—</span>}</td>
                  <td className="small">{d.lastError ?? <span className="muted">—</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div className="row">
        <button className="btn btn-small" disabled={cursors.length < 2} onClick={() => setCursors((c) => c.slice(0, -1))}>
          ← Newer
        </button>
        <button className="btn btn-small" disabled={!page.data?.nextCursor} onClick={() => setCursors((c) => [...c, page.data!.nextCursor])}>
          Older →
        </button>
      </div>
    </div>
  );
}
