import { useState, type FormEvent, type ReactNode } from 'react';
import type { Config, Flag } from '@gradual/sdk';
import { isGradualApiError } from '@gradual/sdk';
import { fieldErrors } from '../api';
import { formatTime } from '../format';
import { useAction, type Resource } from '../hooks';
import type { Definition, DefinitionApi, DefinitionChanges, Kind } from '../primitive-api';
import { Refusal, TypedDelete } from './Danger';
import { ErrorNote, Field, Loading, TextField } from './ui';

/** A definition's named entries (variants, metadata) as a list, or `none` in muted text. */
function Entries({ label, entries, none, show }: { label: string; entries: Record<string, unknown>; none: string; show: (value: unknown) => ReactNode }) {
  const list = Object.entries(entries);
  if (list.length === 0) return <span className="muted">{none}</span>;
  return (
    <ul className="plain" aria-label={label}>
      {list.map(([name, value]) => (
        <li key={name}>
          <code>{name}</code>
          {show(value)}
        </li>
      ))}
    </ul>
  );
}

/** Tags as typed: separated by commas or spaces, blanks and repeats dropped. */
export function parseTags(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).filter(Boolean))];
}

/** Only what changed, as `UpdatePrimitiveRequest` (an emptied description or maintainer is cleared with null). */
export function definitionChanges(before: Flag | Config, form: { name: string; description: string; tags: string; maintainer: string }): DefinitionChanges {
  const changes: DefinitionChanges = {};
  if (form.name.trim() !== before.name) changes.name = form.name.trim();
  const description = form.description.trim();
  if (description !== (before.description ?? '')) changes.description = description === '' ? null : description;
  const tags = parseTags(form.tags);
  if (tags.join(',') !== before.tags.join(',')) changes.tags = tags;
  const maintainer = form.maintainer.trim();
  if (maintainer !== (before.maintainer ?? '')) changes.maintainer = maintainer === '' ? null : maintainer;
  return changes;
}

const isStale = (err: unknown) => isGradualApiError(err) && err.status === 412;

/** A tag as a small label. */
export function TagChips({ tags }: { tags: readonly string[] }) {
  if (tags.length === 0) return null;
  return (
    <ul className="chips" aria-label="Tags">
      {tags.map((t) => (
        <li key={t} className="chip">
          {t}
        </li>
      ))}
    </ul>
  );
}

/**
 * A flag's or config's definition: name, description, tags and maintainer (edited with the ETag
 * read, so a change made meanwhile answers 412 and asks for a reload), and its lifecycle: archive
 * (refused while a rollout or proposal uses it, showing what), restore, and delete once archived.
 */
export function DefinitionPanel(props: {
  kind: Kind;
  primitiveKey: string;
  ops: DefinitionApi;
  /** The definition and its ETag (`ops.get()`), loaded by the page that shows it. */
  def: Resource<Definition>;
  onChanged: (d: Flag | Config) => void;
  onDeleted: () => void;
}) {
  const { kind, ops, def } = props;
  // What the form was opened on, ETag included: the page reloads the definition when anyone changes
  // it, and a save over someone else's change must answer 412 rather than undo it.
  const [editing, setEditing] = useState<Definition>();
  const [form, setForm] = useState({ name: '', description: '', tags: '', maintainer: '' });
  const save = useAction();
  const lifecycle = useAction();
  const [archiveRefused, setArchiveRefused] = useState(false);

  if (def.error && !def.data) return <ErrorNote error={def.error} />;
  if (!def.data) return <Loading />;
  const { definition: d, etag } = def.data;
  const archived = d.archivedAt !== null;

  const reload = async () => {
    save.setError(undefined);
    lifecycle.setError(undefined);
    setArchiveRefused(false);
    await def.reload();
  };

  const applied = async (next: Flag | Config) => {
    // A write answers the definition but not its new ETag: read both again.
    await def.reload();
    props.onChanged(next);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!editing) return;
    const changes = definitionChanges(editing.definition, form);
    if (Object.keys(changes).length === 0) return setEditing(undefined);
    const updated = await save.run(() => ops.update(changes, editing.etag));
    if (updated) {
      setEditing(undefined);
      await applied(updated);
    }
  };

  const archive = async () => {
    const r = await lifecycle.run(() => ops.archive(etag));
    if (r) await applied(r);
    else setArchiveRefused(true);
  };
  const restore = async () => {
    const r = await lifecycle.run(() => ops.restore(etag));
    if (r) await applied(r);
  };

  const fields = fieldErrors(save.error);
  const tagError = Object.entries(fields).find(([k]) => k === 'tags' || k.startsWith('tags.'))?.[1];

  return (
    <div className="definition">
      {!editing ? (
        <>
          <dl className="facts">
            <dt>Name</dt>
            <dd>{d.name}</dd>
            <dt>Description</dt>
            <dd>{d.description ?? <span className="muted">none</span>}</dd>
            <dt>Tags</dt>
            <dd>{d.tags.length > 0 ? <TagChips tags={d.tags} /> : <span className="muted">none</span>}</dd>
            <dt>Maintainer</dt>
            <dd>{d.maintainer ?? <span className="muted">nobody named</span>}</dd>
            <dt>Variants</dt>
            <dd>
              <Entries label="Variants" entries={d.variants} none="none declared (evaluations name the branch)" show={(value) => <> = <code>{JSON.stringify(value)}</code></>} />
            </dd>
            <dt>Metadata</dt>
            <dd>
              <Entries label="Metadata" entries={d.metadata} none="none" show={(value) => <>: {String(value)}</>} />
            </dd>
            {'schema' in d && (
              <>
                <dt>Schema</dt>
                <dd>
                  {d.schema ? (
                    <details>
                      <summary>JSON Schema: every value must satisfy it</summary>
                      <pre className="json" data-testid="config-schema">
                        {JSON.stringify(d.schema, null, 2)}
                      </pre>
                    </details>
                  ) : (
                    <span className="muted">none (any JSON value)</span>
                  )}
                </dd>
              </>
            )}
            <dt>Status</dt>
            <dd>{archived ? <span className="badge badge-cancelled">Archived {formatTime(d.archivedAt)}</span> : <span className="badge badge-completed">Live</span>}</dd>
          </dl>
          <button
            className="btn btn-small"
            onClick={() => {
              setForm({ name: d.name, description: d.description ?? '', tags: d.tags.join(', '), maintainer: d.maintainer ?? '' });
              save.setError(undefined);
              setEditing(def.data);
            }}
          >
            Edit details
          </button>
        </>
      ) : (
        <form className="form-grid inset" onSubmit={(e) => void submit(e)} noValidate aria-label={`Details of the ${kind}`}>
          <TextField label="Name" value={form.name} onChange={(name) => setForm((f) => ({ ...f, name }))} error={fields.name} />
          <Field label="Description" error={fields.description}>
            {({ id, describedBy }) => (
              <textarea id={id} rows={2} value={form.description} aria-describedby={describedBy} onChange={(e) => setForm((f) => ({ ...f, description: e.target.value }))} />
            )}
          </Field>
          <TextField
            label="Tags"
            value={form.tags}
            onChange={(tags) => setForm((f) => ({ ...f, tags }))}
            error={tagError}
            hint="Comma-separated, lowercase: team:checkout, experiment"
          />
          <TextField label="Maintainer" value={form.maintainer} onChange={(maintainer) => setForm((f) => ({ ...f, maintainer }))} error={fields.maintainer} hint="A person's email or a team name." />
          {isStale(save.error) ? (
            <div className="note note-error" role="alert">
              Someone else changed this {kind} since you opened it.{' '}
              <button
                type="button"
                className="link-button"
                onClick={() => {
                  // The form closes once the fresh definition is in: opened again earlier, it
                  // would hold the old ETag and be refused once more.
                  void reload().then(() => setEditing(undefined));
                }}
              >
                Reload it
              </button>{' '}
              and make your change again.
            </div>
          ) : (
            Object.keys(fields).length === 0 && <ErrorNote error={save.error} />
          )}
          <div className="form-actions">
            <button className="btn btn-primary" disabled={save.busy}>
              Save details
            </button>
            <button type="button" className="btn" onClick={() => setEditing(undefined)}>
              Cancel
            </button>
          </div>
        </form>
      )}

      <div className="lifecycle">
        <h3>Lifecycle</h3>
        {archived ? (
          <>
            <p className="small">Archived: every environment serves its base value to everyone; its rules are kept but not applied.</p>
            <button className="btn" disabled={lifecycle.busy} onClick={() => void restore()}>
              Restore {kind}
            </button>
            <TypedDelete
              noun={kind}
              confirmKey={props.primitiveKey}
              consequences={`Deletes its values, rules, rollouts, target IDs and usage in every environment. This cannot be undone.`}
              remove={(confirm) => ops.remove(confirm, etag)}
              onDeleted={props.onDeleted}
            />
          </>
        ) : (
          <>
            <p className="small">Archiving hides it from lists and serves its base value everywhere; it can be restored, and deleted once archived.</p>
            <button className="btn btn-danger-outline" disabled={lifecycle.busy || archiveRefused} onClick={() => void archive()}>
              Archive {kind}
            </button>
            {archiveRefused && (
              <button type="button" className="btn btn-small" onClick={() => void reload()}>
                Check again
              </button>
            )}
          </>
        )}
        {isStale(lifecycle.error) ? (
          <div className="note note-error" role="alert">
            Someone else changed this {kind} meanwhile.{' '}
            <button type="button" className="link-button" onClick={() => void reload()}>
              Reload it
            </button>{' '}
            and try again.
          </div>
        ) : (
          <Refusal error={lifecycle.error} />
        )}
      </div>
    </div>
  );
}
