import { useState, type FormEvent } from 'react';
import type { Config, Flag, FlagValueType } from '@gradual/sdk';
import { api, fieldErrors } from '../api';
import { TypedDelete } from '../components/Danger';
import { FlagMatrix } from '../components/FlagMatrix';
import { Empty, ErrorNote, Field, Loading, PageHeader, Section, TextField } from '../components/ui';
import { parseJsonInput } from '../format';
import { useAction, useResource } from '../hooks';
import { touches, useLiveReload } from '../live/live';
import { Link, navigate, seg, setQuery, useLocation } from '../router';
import { Crumbs } from '../Shell';
import { slugify } from './Claim';

/** The definitions listing's query: archived ones shown or not, one tag only or all. */
function listQuery(showArchived: boolean, tag: string) {
  return { archived: showArchived ? ('include' as const) : ('exclude' as const), ...(tag ? { tag } : {}) };
}

/** A project: its environments, its flags and configs across every environment, and its plans. */
export function ProjectPage({ slug, projectId }: { slug: string; projectId: string }) {
  const project = useResource(() => api().getProject({ path: { id: projectId } }), [projectId]);
  const envs = useResource(() => api().listEnvironments({ path: { id: projectId } }), [projectId]);
  const { search } = useLocation();
  const showArchived = search.get('archived') === 'show';
  const tag = search.get('tag') ?? '';
  const flags = useResource(() => api().listFlags({ path: { id: projectId }, query: listQuery(showArchived, tag) }), [projectId, showArchived, tag]);
  const configs = useResource(() => api().listConfigs({ path: { id: projectId }, query: listQuery(showArchived, tag) }), [projectId, showArchived, tag]);
  const tags = [...new Set([...(flags.data ?? []), ...(configs.data ?? [])].flatMap((d) => d.tags)), ...(tag ? [tag] : [])].sort();
  const [creating, setCreating] = useState<'env' | 'flag' | 'config'>();
  const base = `/o/${slug}/p/${seg(projectId)}`;
  // Definitions and environments made, edited or archived elsewhere (the matrix follows the states itself).
  useLiveReload({ orgSlug: slug }, () => Promise.all([project.reload(), envs.reload(), flags.reload(), configs.reload()]), {
    change: (e) => touches(e, 'environment') || (envs.data?.some((env) => env.id === e.envId) === true && touches(e, 'flag', 'config')),
    // Its definitions and its environments created or deleted; not its environments' secrets or proposals.
    orgChange: (e) => e.projectId === projectId && (e.envId === null || touches(e, 'environment')),
  });

  if (project.error) return <ErrorNote error={project.error} />;
  if (!project.data) return <Loading />;
  const p = project.data;
  const toggle = (what: 'env' | 'flag' | 'config') => setCreating((c) => (c === what ? undefined : what));

  return (
    <>
      <Crumbs items={[['Projects', `/o/${slug}`], [p.name]]} />
      <PageHeader
        title={p.name}
        sub={
          <>
            <code>{p.key}</code> · bucketing on <code>{p.targetIdField}</code>
          </>
        }
        actions={
          <nav className="row wrap" aria-label="Project sections">
            <Link className="btn" to={`${base}/segments`}>
              Segments
            </Link>
            <Link className="btn" to={`${base}/insights`}>
              Stale flags
            </Link>
            <Link className="btn" to={`${base}/webhooks`}>
              Webhooks
            </Link>
            <Link className="btn" to={`${base}/plans`}>
              Rollout plans
            </Link>
          </nav>
        }
      />
      <Section
        title="Environments"
        actions={
          <button className="btn btn-small" onClick={() => toggle('env')} aria-expanded={creating === 'env'}>
            New environment
          </button>
        }
      >
        {creating === 'env' && (
          <CreateEnvironment
            projectId={projectId}
            onDone={(id) => {
              setCreating(undefined);
              if (id) navigate(`${base}/e/${seg(id)}`);
            }}
          />
        )}
        <ErrorNote error={envs.error} />
        {envs.data?.length === 0 && <Empty>No environments yet. Create one (for example production) to set values and start rollouts.</Empty>}
        <ul className="tiles">
          {envs.data?.map((e) => (
            <li key={e.id}>
              <Link to={`${base}/e/${seg(e.id)}`} className="tile">
                <strong>{e.name}</strong>
                <code>{e.key}</code>
                <span className="muted small">version {e.version}</span>
              </Link>
            </li>
          ))}
        </ul>
      </Section>
      <Section
        title="Flags and configs"
        actions={
          <div className="row">
            <button className="btn btn-small" onClick={() => toggle('flag')} aria-expanded={creating === 'flag'}>
              New flag
            </button>
            <button className="btn btn-small" onClick={() => toggle('config')} aria-expanded={creating === 'config'}>
              New config
            </button>
          </div>
        }
      >
        {(creating === 'flag' || creating === 'config') && (
          <CreatePrimitive
            kind={creating}
            projectId={projectId}
            onDone={(created) => {
              setCreating(undefined);
              if (created) void (created === 'flag' ? flags.reload() : configs.reload());
            }}
          />
        )}
        <div className="toolbar">
          <label>
            <input type="checkbox" checked={showArchived} onChange={(e) => setQuery({ archived: e.target.checked ? 'show' : undefined })} /> Show archived
          </label>
          <label>
            <span className="visually-hidden">Filter by tag</span>
            <select value={tag} onChange={(e) => setQuery({ tag: e.target.value })} aria-label="Filter by tag">
              <option value="">All tags</option>
              {[...new Set(tags)].map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
          </label>
        </div>
        <ErrorNote error={flags.error ?? configs.error ?? envs.error} />
        {flags.data && configs.data && envs.data ? (
          <FlagMatrix
            slug={slug}
            projectId={projectId}
            envs={envs.data}
            flags={flags.data}
            configs={configs.data}
            onDefinitionChanged={(kind) => void (kind === 'flag' ? flags.reload() : configs.reload())}
            onTag={(t) => setQuery({ tag: t })}
          />
        ) : (
          !(flags.error ?? configs.error ?? envs.error) && <Loading />
        )}
      </Section>
      <Section title="Danger zone" id="project-danger-h">
        <TypedDelete
          noun="project"
          confirmKey={p.key}
          consequences="Deletes the project with its environments, flags, configs, segments, rollouts, plans, webhook subscriptions and usage; API keys bound to its environments alone are revoked. The audit log keeps its history."
          remove={(confirm) => api().deleteProject({ path: { id: projectId }, body: { confirm } })}
          onDeleted={() => navigate(`/o/${slug}`)}
        />
      </Section>
    </>
  );
}

function CreateEnvironment({ projectId, onDone }: { projectId: string; onDone: (id?: string) => void }) {
  const [name, setName] = useState('');
  const [key, setKey] = useState('');
  const [touched, setTouched] = useState(false);
  const action = useAction();
  const fields = fieldErrors(action.error);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const env = await action.run(() => api().createEnvironment({ path: { id: projectId }, body: { key, name } }));
    if (env) onDone(env.id);
  };
  return (
    <form className="form-grid inset" onSubmit={(e) => void submit(e)} noValidate>
      <TextField
        label="Name"
        value={name}
        onChange={(v) => {
          setName(v);
          if (!touched) setKey(slugify(v));
        }}
        error={fields.name}
        placeholder="Production"
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
        placeholder="production"
      />
      {Object.keys(fields).length === 0 && <ErrorNote error={action.error} />}
      <div className="form-actions">
        <button className="btn btn-primary" disabled={action.busy}>
          Create environment
        </button>
        <button type="button" className="btn" onClick={() => onDone()}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function CreatePrimitive({ kind, projectId, onDone }: { kind: 'flag' | 'config'; projectId: string; onDone: (created?: 'flag' | 'config') => void }) {
  const [key, setKey] = useState('');
  const [name, setName] = useState('');
  const [valueType, setValueType] = useState<FlagValueType>('boolean');
  const [defaultText, setDefaultText] = useState(kind === 'flag' ? 'false' : '{}');
  const [localError, setLocalError] = useState<string>();
  const action = useAction();
  const fields = fieldErrors(action.error);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const parsed = parseJsonInput(defaultText);
    if (!parsed.ok) return setLocalError(parsed.error);
    setLocalError(undefined);
    const body = { key, name, defaultValue: parsed.value };
    const created = await action.run((): Promise<Flag | Config> =>
      kind === 'flag' ? api().createFlag({ path: { id: projectId }, body: { ...body, valueType } }) : api().createConfig({ path: { id: projectId }, body }),
    );
    if (created) onDone(kind);
  };
  return (
    <form className="form-grid inset" onSubmit={(e) => void submit(e)} noValidate aria-label={`New ${kind}`}>
      <TextField label="Key" value={key} onChange={setKey} error={fields.key} placeholder={kind === 'flag' ? 'new-checkout' : 'checkout.limits'} autoFocus />
      <TextField label="Name" value={name} onChange={setName} error={fields.name} />
      {kind === 'flag' && (
        <Field label="Value type" error={fields.valueType}>
          {({ id }) => (
            <select
              id={id}
              value={valueType}
              onChange={(e) => {
                const t = e.target.value as FlagValueType;
                setValueType(t);
                setDefaultText(t === 'boolean' ? 'false' : t === 'number' ? '0' : '"off"');
              }}
            >
              <option value="boolean">boolean</option>
              <option value="string">string</option>
              <option value="number">number</option>
            </select>
          )}
        </Field>
      )}
      <TextField
        label="Default value (JSON)"
        value={defaultText}
        onChange={setDefaultText}
        error={localError ?? fields.defaultValue}
        className="mono"
      />
      {Object.keys(fields).length === 0 && <ErrorNote error={action.error} />}
      <div className="form-actions">
        <button className="btn btn-primary" disabled={action.busy}>
          Create {kind}
        </button>
        <button type="button" className="btn" onClick={() => onDone()}>
          Cancel
        </button>
      </div>
    </form>
  );
}
