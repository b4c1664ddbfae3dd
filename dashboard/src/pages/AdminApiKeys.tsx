import { useState, type FormEvent } from 'react';
import type { ApiKeyKind, MintedApiKey, TokenAction } from '@gradual/sdk';
import { api, fieldErrors } from '../api';
import { CopyButton, Empty, ErrorNote, Field, Section, TextField } from '../components/ui';
import { formatTime } from '../format';
import { useAction, useResource } from '../hooks';
import { orgResources, useLiveReload } from '../live/live';

const TTLS: [string, number | undefined][] = [
  ['never', undefined],
  ['1 day', 86400],
  ['30 days', 30 * 86400],
  ['90 days', 90 * 86400],
  ['1 year', 31536000],
];

/** `sdk` and `client` keys are bound to one environment and only read (docs/auth.md). */
const boundKind = (kind: ApiKeyKind) => kind === 'sdk' || kind === 'client';

/** Every environment of the org, labelled with its project, for the environment of an sdk or client key. */
async function orgEnvironments(slug: string): Promise<{ id: string; label: string }[]> {
  const projects = await api().listProjects({ path: { slug } });
  const lists = await Promise.all(
    projects.map(async (p) => (await api().listEnvironments({ path: { id: p.id } })).map((e) => ({ id: e.id, label: `${p.name} / ${e.name}` }))),
  );
  return lists.flat();
}

/** The org's API keys: mint one (its token shown once), list them, revoke one. Admins only. */
export function ApiKeys({ slug }: { slug: string }) {
  const keys = useResource(() => api().listApiKeys({ path: { slug } }), [slug]);
  useLiveReload({ orgSlug: slug }, keys.reload, orgResources('api_token', 'environment'));
  const [name, setName] = useState('');
  const [kind, setKind] = useState<ApiKeyKind>('api');
  const [readOnly, setReadOnly] = useState(false);
  const [ttl, setTtl] = useState('never');
  const [requiresApproval, setRequiresApproval] = useState(false);
  const [envId, setEnvId] = useState('');
  const [origins, setOrigins] = useState('');
  const bound = boundKind(kind);
  const environments = useResource(() => (bound ? orgEnvironments(slug) : Promise.resolve([])), [slug, bound]);
  const [minted, setMinted] = useState<MintedApiKey>();
  const [confirmRevoke, setConfirmRevoke] = useState<string>();
  const mint = useAction();
  const revoke = useAction();
  const fields = fieldErrors(mint.error);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const actions: TokenAction[] = readOnly || bound ? ['read'] : ['read', 'write'];
    const ttlSeconds = TTLS.find(([l]) => l === ttl)?.[1];
    const allowedOrigins = origins.split(/[\s,]+/).filter(Boolean);
    const scope = bound
      ? { environments: envId ? [envId] : [], ...(kind === 'client' && allowedOrigins.length ? { allowedOrigins } : {}) }
      : { requiresApproval };
    const key = await mint.run(() =>
      api().createApiKey({ path: { slug }, body: { name: name.trim(), kind, actions, ...scope, ...(ttlSeconds ? { ttlSeconds } : {}) } }),
    );
    if (key) {
      setMinted(key);
      setName('');
      void keys.reload();
    }
  };
  const doRevoke = async (id: string) => {
    await revoke.run(() => api().revokeApiKey({ path: { slug, id } }));
    setConfirmRevoke(undefined);
    void keys.reload();
  };

  return (
    <Section title="API keys">
      {minted && (
        <div className="note note-success minted" role="status" data-testid="minted-key">
          <p>
            <strong>Key “{minted.name}” created.</strong> {minted.warning}
          </p>
          <div className="secret-row">
            <code className="secret">{minted.token}</code>
            <CopyButton text={minted.token} />
          </div>
          <button className="btn btn-small" onClick={() => setMinted(undefined)}>
            I have stored it
          </button>
        </div>
      )}
      <form className="form-grid" onSubmit={(e) => void submit(e)} noValidate>
        <TextField label="Name" value={name} onChange={setName} error={fields.name} placeholder="CI deploys" />
        <Field
          label="Kind"
          error={fields.kind}
          hint="Agent keys are recorded as agents in the audit log. SDK keys read one environment's flags; client keys, safe in a web page, evaluate its client-visible flags only."
        >
          {({ id, describedBy }) => (
            <select id={id} value={kind} onChange={(e) => setKind(e.target.value as ApiKeyKind)} aria-describedby={describedBy}>
              <option value="api">API</option>
              <option value="agent">Agent</option>
              <option value="sdk">SDK</option>
              <option value="client">Client</option>
            </select>
          )}
        </Field>
        {bound && (
          <Field label="Environment" error={fields.environments ?? fields['environments.0']}>
            {({ id, describedBy }) => (
              <select id={id} value={envId} onChange={(e) => setEnvId(e.target.value)} aria-describedby={describedBy}>
                <option value="">Choose an environment…</option>
                {(environments.data ?? []).map((e) => (
                  <option key={e.id} value={e.id}>
                    {e.label}
                  </option>
                ))}
              </select>
            )}
          </Field>
        )}
        {kind === 'client' && (
          <TextField
            label="Allowed origins"
            value={origins}
            onChange={setOrigins}
            error={fields.allowedOrigins ?? Object.entries(fields).find(([f]) => f.startsWith('allowedOrigins.'))?.[1]}
            placeholder="https://app.example.com"
            hint="Web pages that may evaluate with this key, separated by spaces or commas. Empty: the server's default."
          />
        )}
        <Field label="Expires" error={fields.ttlSeconds}>
          {({ id }) => (
            <select id={id} value={ttl} onChange={(e) => setTtl(e.target.value)}>
              {TTLS.map(([l]) => (
                <option key={l} value={l}>
                  {l}
                </option>
              ))}
            </select>
          )}
        </Field>
        {!bound && (
          <div className="checks">
            <label>
              <input type="checkbox" checked={readOnly} onChange={(e) => setReadOnly(e.target.checked)} /> Read only
            </label>
            <label>
              <input type="checkbox" checked={requiresApproval} onChange={(e) => setRequiresApproval(e.target.checked)} /> Rollout changes need approval
            </label>
          </div>
        )}
        {mint.error && Object.keys(fields).length === 0 ? <ErrorNote error={mint.error} /> : null}
        <div className="form-actions span-2">
          <button className="btn btn-primary" disabled={mint.busy || !name.trim() || (bound && !envId)}>
            Mint API key
          </button>
        </div>
      </form>
      <ErrorNote error={keys.error ?? revoke.error} />
      {keys.data?.length === 0 && <Empty>No API keys yet.</Empty>}
      {keys.data && keys.data.length > 0 && (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th>Name</th>
                <th>Prefix</th>
                <th>Scope</th>
                <th>Last used</th>
                <th>Expires</th>
                <th>Status</th>
                <th>
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.data.map((k) => (
                <tr key={k.id} className={k.revokedAt ? 'revoked' : undefined}>
                  <td>
                    {k.name}
                    {k.kind !== 'api' && <span className="kind">{k.kind}</span>}
                  </td>
                  <td>
                    <code>{k.tokenPrefix}…</code>
                  </td>
                  <td className="small">
                    {k.actions.join(' + ')}
                    {k.requiresApproval ? ', approval' : ''}
                    {k.environments ? `, ${k.environments.length} env` : ''}
                    {k.resources ? `, ${k.resources.join(' ')}` : ''}
                    {k.allowedOrigins ? `, ${k.allowedOrigins.join(' ')}` : ''}
                  </td>
                  <td>{formatTime(k.lastUsedAt)}</td>
                  <td>{k.expiresAt ? formatTime(k.expiresAt) : 'never'}</td>
                  <td>{k.revokedAt ? 'revoked' : 'live'}</td>
                  <td className="cell-actions">
                    {!k.revokedAt &&
                      (confirmRevoke === k.id ? (
                        <button className="btn btn-small btn-danger" onClick={() => void doRevoke(k.id)} disabled={revoke.busy}>
                          Confirm revoke
                        </button>
                      ) : (
                        <button className="btn btn-small btn-danger-outline" onClick={() => setConfirmRevoke(k.id)}>
                          Revoke
                        </button>
                      ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}
