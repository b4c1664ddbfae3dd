import { useState, type FormEvent } from 'react';
import { api, fieldErrors } from '../api';
import { Empty, ErrorNote, Field, Loading, PageHeader, TextField } from '../components/ui';
import { formatTime } from '../format';
import { useAction, useResource } from '../hooks';
import { projectResources, useLiveReload } from '../live/live';
import { Link, navigate, seg } from '../router';
import { Crumbs } from '../Shell';
import { slugify } from './Claim';

/** A project's segments: named audiences its flags' and configs' rules refer to with "in segment". */
export function SegmentsPage({ slug, projectId }: { slug: string; projectId: string }) {
  const project = useResource(() => api().getProject({ path: { id: projectId } }), [projectId]);
  const segments = useResource(() => api().listSegments({ path: { id: projectId } }), [projectId]);
  useLiveReload({ orgSlug: slug }, segments.reload, projectResources(projectId, ['segment']));
  const [creating, setCreating] = useState(false);
  const base = `/o/${slug}/p/${seg(projectId)}`;

  return (
    <>
      <Crumbs items={[['Projects', `/o/${slug}`], [project.data?.name ?? '…', base], ['Segments']]} />
      <PageHeader
        title="Segments"
        sub={
          <>
            Named audiences: included IDs, excluded IDs and rules. A flag's or config's rule uses one with <em>is in segment</em>; IDs are matched on{' '}
            <code>{project.data?.targetIdField ?? '…'}</code> unless the condition names another attribute.
          </>
        }
        actions={
          <button className="btn btn-primary" onClick={() => setCreating((c) => !c)} aria-expanded={creating}>
            New segment
          </button>
        }
      />
      {creating && (
        <CreateSegment
          projectId={projectId}
          onDone={(key) => {
            setCreating(false);
            if (key) navigate(`${base}/segments/${seg(key)}`);
          }}
        />
      )}
      <ErrorNote error={segments.error} />
      {segments.loading && !segments.data && <Loading />}
      {segments.data?.length === 0 && <Empty>No segments yet. Create one to target a group of users (beta testers, staff, a region) from any flag.</Empty>}
      {segments.data && segments.data.length > 0 && (
        <div className="table-wrap card">
          <table className="segments" data-testid="segments">
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Name</th>
                <th scope="col">Included</th>
                <th scope="col">Excluded</th>
                <th scope="col">Rules</th>
                <th scope="col">Changed</th>
              </tr>
            </thead>
            <tbody>
              {segments.data.map((s) => (
                <tr key={s.id}>
                  <td>
                    <Link to={`${base}/segments/${seg(s.key)}`}>
                      <code>{s.key}</code>
                    </Link>
                  </td>
                  <td>
                    {s.name}
                    {s.description && <div className="small muted">{s.description}</div>}
                  </td>
                  <td>{s.includedCount.toLocaleString()}</td>
                  <td>{s.excludedCount.toLocaleString()}</td>
                  <td>{s.rules.length}</td>
                  <td className="small">{formatTime(s.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

function CreateSegment({ projectId, onDone }: { projectId: string; onDone: (key?: string) => void }) {
  const [name, setName] = useState('');
  const [key, setKey] = useState('');
  const [touched, setTouched] = useState(false);
  const [description, setDescription] = useState('');
  const action = useAction();
  const fields = fieldErrors(action.error);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const body = { key, name, ...(description.trim() ? { description: description.trim() } : {}) };
    const created = await action.run(() => api().createSegment({ path: { id: projectId }, body }));
    if (created) onDone(created.key);
  };
  return (
    <form className="form-grid inset card" onSubmit={(e) => void submit(e)} noValidate aria-label="New segment">
      <TextField
        label="Name"
        value={name}
        onChange={(v) => {
          setName(v);
          if (!touched) setKey(slugify(v));
        }}
        error={fields.name}
        placeholder="Beta testers"
        autoFocus
      />
      <TextField
        label="Key"
        value={key}
        onChange={(v) => {
          setTouched(true);
          setKey(v);
        }}
        error={fields.key}
        placeholder="beta-testers"
      />
      <Field label="Description (optional)" error={fields.description}>
        {({ id, describedBy }) => <textarea id={id} rows={2} value={description} aria-describedby={describedBy} onChange={(e) => setDescription(e.target.value)} />}
      </Field>
      {Object.keys(fields).length === 0 && <ErrorNote error={action.error} />}
      <div className="form-actions">
        <button className="btn btn-primary" disabled={action.busy}>
          Create segment
        </button>
        <button type="button" className="btn" onClick={() => onDone()}>
          Cancel
        </button>
      </div>
    </form>
  );
}
