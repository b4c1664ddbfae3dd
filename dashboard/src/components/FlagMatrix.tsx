import { useId, useState } from 'react';
import type { Config, ConfigState, Environment, Flag, FlagState, Rollout } from '@gradual/sdk';
import { isLiveStatus } from '@gradual/sdk/evaluation';
import { api } from '../api';
import { formatJson, formatPercent, formatTime } from '../format';
import { useAction, useReloadOn, useResource } from '../hooks';
import { useLiveReload } from '../live/live';
import { Link, seg } from '../router';
import { Empty, ErrorNote, Loading, StatusBadge } from './ui';

type Kind = 'flag' | 'config';
type State = FlagState | ConfigState;

interface Row {
  kind: Kind;
  key: string;
  name: string;
  detail: string;
  defaultValue: unknown;
  clientVisible: boolean;
  tags: string[];
  archivedAt: string | null;
}

/** Each environment's flag and config states, keyed "kind:key" (one listing call per kind and environment). */
type EnvStates = Map<string, State>;

async function loadStates(envIds: readonly string[]): Promise<Map<string, EnvStates>> {
  const perEnv = await Promise.all(
    envIds.map(async (envId) => {
      const [flags, configs] = await Promise.all([api().listFlagStates({ path: { envId } }), api().listConfigStates({ path: { envId } })]);
      const states: EnvStates = new Map();
      for (const f of flags) states.set(`flag:${f.key}`, f);
      for (const c of configs) states.set(`config:${c.key}`, c);
      return [envId, states] as const;
    }),
  );
  return new Map(perEnv);
}

/** The latest of the state's own change and its rollout's. */
function lastChange(state: State): string {
  const rolloutAt = state.rollout?.updatedAt;
  return rolloutAt && rolloutAt > state.updatedAt ? rolloutAt : state.updatedAt;
}

/** Path of one flag or config in one environment. */
export function primitivePath(slug: string, projectId: string, envId: string, kind: Kind, key: string): string {
  return `/o/${slug}/p/${seg(projectId)}/e/${seg(envId)}/${kind}s/${seg(key)}`;
}

/**
 * Flags and configs × environments: in each cell the value, the rollout (status and percent) and
 * the last change, linking to that flag or config in that environment.
 */
export function FlagMatrix(props: {
  slug: string;
  projectId: string;
  envs: Environment[];
  flags: Flag[];
  configs: Config[];
  onDefinitionChanged?: (kind: Kind) => void;
  /** A tag was picked on a row: filter by it. */
  onTag?: (tag: string) => void;
}) {
  const { slug, projectId, envs, flags, configs, onDefinitionChanged, onTag } = props;
  // The environments' ids as one string: the same environments in a new array are not new deps.
  const envIds = envs.map((e) => e.id).join(',');
  const states = useResource(() => loadStates(envIds ? envIds.split(',') : []), [envIds]);
  // Reload when a definition is added: its states appear in every environment.
  useReloadOn([...flags.map((f) => f.id), ...configs.map((c) => c.id)].join(','), states.reload);
  // Values, rules and rollouts: the page that passes the definitions follows their own writes.
  useLiveReload({ orgSlug: slug }, states.reload, { change: (e) => envs.some((env) => env.id === e.envId), orgChange: () => false });

  const rows: Row[] = [
    ...flags.map((f) => ({ kind: 'flag' as const, key: f.key, name: f.name, detail: `${f.valueType} flag`, defaultValue: f.defaultValue, clientVisible: f.clientVisible, tags: f.tags, archivedAt: f.archivedAt })),
    ...configs.map((c) => ({ kind: 'config' as const, key: c.key, name: c.name, detail: 'config', defaultValue: c.defaultValue, clientVisible: c.clientVisible, tags: c.tags, archivedAt: c.archivedAt })),
  ].sort((a, b) => a.key.localeCompare(b.key) || a.kind.localeCompare(b.kind));

  if (rows.length === 0) return <Empty>No flags or configs yet.</Empty>;

  return (
    <>
      <ErrorNote error={states.error} />
      {states.loading && !states.data && envs.length > 0 && <Loading label="Loading each environment…" />}
      <div className="table-wrap">
        <table className="flag-matrix" data-testid="flag-matrix">
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Default value</th>
              {envs.map((e) => (
                <th scope="col" key={e.id}>
                  <Link to={`/o/${slug}/p/${seg(projectId)}/e/${seg(e.id)}`}>{e.name}</Link>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <MatrixRow key={`${r.kind}:${r.key}`} row={r} slug={slug} projectId={projectId} envs={envs} states={states.data} onChanged={onDefinitionChanged} onTag={onTag} />
            ))}
          </tbody>
        </table>
      </div>
      {envs.length === 0 && <p className="muted small">Values, rules and rollouts are per environment: create an environment to set them.</p>}
    </>
  );
}

/**
 * One flag or config across the environments. A cell's link is named by its environment and
 * described by the key, so the key names one cell of the row only (the first).
 */
function MatrixRow(props: {
  row: Row;
  slug: string;
  projectId: string;
  envs: Environment[];
  states: Map<string, EnvStates> | undefined;
  onChanged: ((kind: Kind) => void) | undefined;
  onTag: ((tag: string) => void) | undefined;
}) {
  const { row: r, slug, projectId, envs, states, onChanged, onTag } = props;
  const keyId = useId();
  const first = envs[0];
  return (
    <tr>
      <td>
        {first ? (
          <Link to={primitivePath(slug, projectId, first.id, r.kind, r.key)} title={`${r.key} in ${first.name}`}>
            <code id={keyId}>{r.key}</code>
          </Link>
        ) : (
          <code id={keyId}>{r.key}</code>
        )}{' '}
        <span className="kind">{r.detail}</span>
        {r.archivedAt && <span className="badge badge-cancelled">Archived</span>}
        <div className="small muted">{r.name}</div>
        {r.tags.length > 0 && (
          <ul className="chips" aria-label={`Tags of ${r.key}`}>
            {r.tags.map((t) => (
              <li key={t}>
                {onTag ? (
                  <button type="button" className="chip chip-button" onClick={() => onTag(t)} title={`Show only flags and configs tagged ${t}`}>
                    {t}
                  </button>
                ) : (
                  <span className="chip">{t}</span>
                )}
              </li>
            ))}
          </ul>
        )}
        {/* Keyed by the value shown, so a change made elsewhere replaces the checkbox's own state. */}
        <ClientVisibleToggle key={String(r.clientVisible)} row={r} projectId={projectId} onChanged={onChanged} />
      </td>
      <td>
        <code className="value">{formatJson(r.defaultValue)}</code>
      </td>
      {envs.map((e) => (
        <td key={e.id}>
          <Cell state={states?.get(e.id)?.get(`${r.kind}:${r.key}`)} to={primitivePath(slug, projectId, e.id, r.kind, r.key)} label={e.name} describedBy={keyId} />
        </td>
      ))}
    </tr>
  );
}

/** Whether client keys (`pub_…`, shipped in web pages) may evaluate the flag or config; every environment gets a new version when it changes. */
function ClientVisibleToggle({ row, projectId, onChanged }: { row: Row; projectId: string; onChanged: ((kind: Kind) => void) | undefined }) {
  const [checked, setChecked] = useState(row.clientVisible);
  const save = useAction();
  const toggle = async (next: boolean) => {
    const path = { id: projectId, key: row.key };
    const body = { clientVisible: next };
    const updated = await save.run((): Promise<Flag | Config> => (row.kind === 'flag' ? api().updateFlag({ path, body }) : api().updateConfig({ path, body })));
    if (updated) {
      setChecked(updated.clientVisible);
      onChanged?.(row.kind);
    }
  };
  return (
    <>
      <label className="small">
        <input type="checkbox" checked={checked} disabled={save.busy} onChange={(e) => void toggle(e.target.checked)} /> Client-visible
      </label>
      <ErrorNote error={save.error} />
    </>
  );
}

function Cell({ state, to, label, describedBy }: { state: State | undefined; to: string; label: string; describedBy: string }) {
  if (!state) {
    return (
      <Link to={to} aria-label={`${label}: not listed`} aria-describedby={describedBy}>
        —
      </Link>
    );
  }
  return (
    // A block, so the whole cell is the link.
    <Link to={to} className="matrix-cell" data-testid="matrix-cell" aria-describedby={describedBy} style={{ display: 'block' }}>
      <span className="visually-hidden">{label}: </span>
      <code className="value">{formatJson(state.value)}</code>
      {state.rules.length > 0 && <span className="small muted"> · {state.rules.length === 1 ? '1 rule' : `${state.rules.length} rules`}</span>}
      <RolloutLine rollout={state.rollout} />{' '}
      <span className="small muted" style={{ display: 'block' }}>
        changed {formatTime(lastChange(state))}
      </span>
    </Link>
  );
}

function RolloutLine({ rollout }: { rollout: Rollout | null }) {
  if (!rollout) return null;
  const live = isLiveStatus(rollout.status);
  return (
    <span className="glance">
      {' '}
      <StatusBadge status={rollout.status} reason={rollout.pausedReason} />
      {live && <span className="small"> {formatPercent(rollout.percent)}</span>}
    </span>
  );
}
