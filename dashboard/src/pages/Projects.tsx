import { useState, type FormEvent } from 'react';
import { api, fieldErrors } from '../api';
import { Empty, ErrorNote, Loading, PageHeader, Section, TextField } from '../components/ui';
import { useAction, useResource } from '../hooks';
import { Link, navigate, seg } from '../router';
import { useOrg } from '../session';
import { slugify } from './Claim';

export function ProjectsPage({ slug }: { slug: string }) {
  const org = useOrg(slug);
  const projects = useResource(() => api().listProjects({ path: { slug } }), [slug]);
  const [creating, setCreating] = useState(false);

  return (
    <>
      <PageHeader
        title="Projects"
        sub={org?.name}
        actions={
          <button className="btn btn-primary" onClick={() => setCreating((c) => !c)} aria-expanded={creating}>
            New project
          </button>
        }
      />
      {creating && <CreateProject slug={slug} onCancel={() => setCreating(false)} />}
      <ErrorNote error={projects.error} />
      {projects.loading && !projects.data && <Loading />}
      {projects.data?.length === 0 && <Empty>No projects yet. A project holds environments, flags, configs and rollout plans.</Empty>}
      <ul className="tiles">
        {projects.data?.map((p) => (
          <li key={p.id}>
            <Link to={`/o/${slug}/p/${seg(p.id)}`} className="tile">
              <strong>{p.name}</strong>
              <code>{p.key}</code>
              <span className="muted small">target ID field: {p.targetIdField}</span>
            </Link>
          </li>
        ))}
      </ul>
    </>
  );
}

function CreateProject({ slug, onCancel }: { slug: string; onCancel: () => void }) {
  const [name, setName] = useState('');
  const [key, setKey] = useState('');
  const [keyTouched, setKeyTouched] = useState(false);
  const [targetIdField, setTargetIdField] = useState('userId');
  const action = useAction();
  const fields = fieldErrors(action.error);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const project = await action.run(() => api().createProject({ path: { slug }, body: { key, name, targetIdField } }));
    if (project) navigate(`/o/${slug}/p/${seg(project.id)}`);
  };
  return (
    <Section title="New project">
      <form className="form-grid" onSubmit={(e) => void submit(e)} noValidate>
        <TextField
          label="Name"
          value={name}
          onChange={(v) => {
            setName(v);
            if (!keyTouched) setKey(slugify(v));
          }}
          error={fields.name}
          autoFocus
        />
        <TextField
          label="Key"
          value={key}
          onChange={(v) => {
            setKeyTouched(true);
            setKey(v);
          }}
          error={fields.key}
        />
        <TextField label="Target ID field" value={targetIdField} onChange={setTargetIdField} error={fields.targetIdField} hint="The context attribute rollouts bucket on by default." />
        {action.error && Object.keys(fields).length === 0 ? <ErrorNote error={action.error} /> : null}
        <div className="form-actions">
          <button className="btn btn-primary" disabled={action.busy}>
            Create project
          </button>
          <button type="button" className="btn" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </Section>
  );
}
