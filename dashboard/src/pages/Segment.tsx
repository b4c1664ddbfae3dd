import { useMemo, useState, type FormEvent } from 'react';
import type { Environment } from '@gradual/sdk';
import { isGradualApiError } from '@gradual/sdk';
import { api, fieldErrors } from '../api';
import { referrerText, TypedDelete } from '../components/Danger';
import { RulesEditor } from '../components/RulesEditor';
import { IdList } from '../components/TargetIds';
import { ErrorNote, Field, Loading, PageHeader, Section, TextField } from '../components/ui';
import { formatTime } from '../format';
import { useAction, useReloadOn, useResource } from '../hooks';
import { projectResources, useLiveReload } from '../live/live';
import { Link, navigate, seg } from '../router';
import { segmentApi } from '../segment-api';
import { Crumbs } from '../Shell';

/** Where a referrer (`flag.<key>`, `config.<key>`, `segment.<key>`) lives in the dashboard, if anywhere. */
export function referrerPath(slug: string, projectId: string, envs: readonly Environment[] | undefined, referrer: string): string | undefined {
  const dot = referrer.indexOf('.');
  if (dot < 0) return undefined;
  const type = referrer.slice(0, dot);
  const key = referrer.slice(dot + 1);
  const base = `/o/${slug}/p/${seg(projectId)}`;
  if (type === 'segment') return `${base}/segments/${seg(key)}`;
  const first = envs?.[0];
  if ((type === 'flag' || type === 'config') && first) return `${base}/e/${seg(first.id)}/${type}s/${seg(key)}`;
  return undefined;
}

/** One segment: its name, rules, included and excluded IDs, what uses it, and its delete. */
export function SegmentPage({ slug, projectId, segmentKey }: { slug: string; projectId: string; segmentKey: string }) {
  const ops = useMemo(() => segmentApi(projectId, segmentKey), [projectId, segmentKey]);
  const project = useResource(() => api().getProject({ path: { id: projectId } }), [projectId]);
  const envs = useResource(() => api().listEnvironments({ path: { id: projectId } }), [projectId]);
  const segments = useResource(() => api().listSegments({ path: { id: projectId } }), [projectId]);
  const loaded = useResource(() => ops.get(), [ops]);
  const referrers = useResource(() => ops.referrers(), [ops]);
  // The segment changed (here or elsewhere): what refers to it may have too.
  useReloadOn(loaded.data?.segment.updatedAt, referrers.reload);
  // Writes of the project's segments (this one, or one its rules name) and of flags' and configs' rules (which refer to it or stop).
  useLiveReload(
    { orgSlug: slug },
    () => Promise.all([loaded.reload(), segments.reload(), referrers.reload()]),
    projectResources(projectId, ['segment', 'flag', 'config'], { envIds: envs.data?.map((e) => e.id) }),
  );
  const base = `/o/${slug}/p/${seg(projectId)}`;
  const field = project.data?.targetIdField ?? 'userId';
  const linkFor = (r: string) => referrerPath(slug, projectId, envs.data, r);

  const crumbs = <Crumbs items={[['Projects', `/o/${slug}`], [project.data?.name ?? '…', base], ['Segments', `${base}/segments`], [segmentKey]]} />;
  if (loaded.error && !loaded.data) {
    return (
      <>
        {crumbs}
        <ErrorNote error={loaded.error} />
      </>
    );
  }
  if (!loaded.data) return <Loading />;
  const { segment: s, etag } = loaded.data;
  // The write answers the list's new count: shown at once. A list change moves the segment's ETag
  // too, so the segment is read again as well.
  const listChanged = (list: 'includedCount' | 'excludedCount') => (count: number) => {
    loaded.setData((prev = { segment: s, etag }) => ({ ...prev, segment: { ...prev.segment, [list]: count } }));
    void loaded.reload();
  };

  return (
    <>
      {crumbs}
      <PageHeader
        title={<code className="title-key">{s.key}</code>}
        sub={
          <>
            {s.name} · segment · updated {formatTime(s.updatedAt)}
          </>
        }
      />
      <div className="two-col">
        <Section title="Details" id="segment-details-h">
          <SegmentDetails
            name={s.name}
            description={s.description}
            etag={etag}
            save={async (body, editedEtag) => {
              await ops.update(body, editedEtag);
              await loaded.reload();
            }}
          />
        </Section>
        <Section title="Used by" id="referrers-h">
          <ErrorNote error={referrers.error} />
          {referrers.data?.length === 0 && <p className="muted">No flag, config or segment uses it.</p>}
          <ul className="referrers" data-testid="referrers">
            {referrers.data?.map((r) => {
              const to = linkFor(r);
              return <li key={r}>{to ? <Link to={to}>{referrerText(r)}</Link> : referrerText(r)}</li>;
            })}
          </ul>
        </Section>
      </div>

      <Section title={`Rules (${s.rules.length})`} id="segment-rules-h">
        <p className="small muted">
          A context is in the segment when the condition's attribute is an included ID; otherwise, unless it is an excluded ID, when it matches any of these rules.
        </p>
        <RulesEditor
          mode="segment"
          rules={s.rules}
          segments={segments.data}
          segmentsHref={`${base}/segments`}
          segmentHref={(key) => `${base}/segments/${seg(key)}`}
          selfKey={s.key}
          defaultAttribute={field}
          etag={etag}
          save={async (rules, _reason, openedOn) => {
            await ops.update({ rules }, openedOn);
            await loaded.reload();
          }}
        />
      </Section>

      <Section title={`Included IDs (${s.includedCount.toLocaleString()})`} id="included-h">
        <IdList
          ops={ops.lists.included}
          count={s.includedCount}
          field={field}
          name="Included"
          countTestId="included-count"
          onCount={listChanged('includedCount')}
          intro={<>Always in the segment, whatever its rules. The list has </>}
        />
      </Section>
      <Section title={`Excluded IDs (${s.excludedCount.toLocaleString()})`} id="excluded-h">
        <IdList
          ops={ops.lists.excluded}
          count={s.excludedCount}
          field={field}
          name="Excluded"
          countTestId="excluded-count"
          onCount={listChanged('excludedCount')}
          intro={<>Never in the segment by its rules (an included ID is in it all the same). The list has </>}
        />
      </Section>

      <Section title="Danger zone" id="segment-danger-h">
        <TypedDelete
          noun="segment"
          confirmKey={s.key}
          consequences="Deletes the segment with its included and excluded IDs. The server refuses while a flag, config or segment still uses it."
          remove={(confirm) => ops.remove(confirm, etag)}
          onDeleted={() => navigate(`${base}/segments`)}
          linkFor={linkFor}
        />
      </Section>
    </>
  );
}

/**
 * The segment's name and description. The form keeps what it was opened on, ETag included: the page
 * reloads the segment when anyone changes it, and a save over someone else's change answers 412
 * rather than undoing it.
 */
function SegmentDetails(props: {
  name: string;
  description: string | null;
  etag: string | undefined;
  save: (body: { name?: string; description?: string | null }, etag: string | undefined) => Promise<void>;
}) {
  const [editing, setEditing] = useState<{ name: string; description: string | null; etag: string | undefined }>();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const action = useAction();
  const fields = fieldErrors(action.error);
  if (!editing) {
    return (
      <div>
        <dl className="facts">
          <dt>Name</dt>
          <dd>{props.name}</dd>
          <dt>Description</dt>
          <dd>{props.description ?? <span className="muted">none</span>}</dd>
        </dl>
        <button
          className="btn btn-small"
          onClick={() => {
            setName(props.name);
            setDescription(props.description ?? '');
            action.setError(undefined);
            setEditing({ name: props.name, description: props.description, etag: props.etag });
          }}
        >
          Edit details
        </button>
      </div>
    );
  }
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const body: { name?: string; description?: string | null } = {};
    if (name.trim() !== editing.name) body.name = name.trim();
    const d = description.trim();
    if (d !== (editing.description ?? '')) body.description = d === '' ? null : d;
    if (Object.keys(body).length === 0) return setEditing(undefined);
    const done = await action.run(async () => {
      await props.save(body, editing.etag);
      return true;
    });
    if (done) setEditing(undefined);
  };
  const stale = isGradualApiError(action.error) && action.error.status === 412;
  return (
    <form onSubmit={(e) => void submit(e)} noValidate aria-label="Segment details">
      <TextField label="Name" value={name} onChange={setName} error={fields.name} />
      <Field label="Description" error={fields.description}>
        {({ id, describedBy }) => <textarea id={id} rows={2} value={description} aria-describedby={describedBy} onChange={(e) => setDescription(e.target.value)} />}
      </Field>
      {stale ? (
        <div className="note note-error" role="alert">
          Someone else changed this segment since you opened it. Cancel to see their change, then make yours again.
        </div>
      ) : (
        Object.keys(fields).length === 0 && <ErrorNote error={action.error} />
      )}
      <div className="form-actions">
        <button className="btn btn-primary" disabled={action.busy}>
          Save details
        </button>
        <button type="button" className="btn" onClick={() => setEditing(undefined)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
