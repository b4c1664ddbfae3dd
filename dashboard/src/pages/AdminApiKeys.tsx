import { useState, type FormEvent } from 'react';
import type { ApiKeyKind, MintedApiKey, TokenAction } from '@gradual/sdk';
import { api, fieldErrors } from '../api';
import { CopyButton, Empty, ErrorNote, Field, Section, TextField } from '../components/ui';
import { formatTime } from '../format';
import { useAction, useResource } from '../hooks';

const TTLS: [string, number | undefined][] = [
  ['never', undefined],
  ['1 day', 86400],
  ['30 days', 30 * 86400],
  ['90 days', 90 * 86400],
  ['1 year', 31536000],
];

/** The org's API keys: mint one (its token shown once), list them, revoke one. Admins only. */
export function ApiKeys({ slug }: { slug: string }) {
  const keys = useResource(() => api().listApiKeys({ path: { slug } }), [slug]);
  const [name, setName] = useState('');
  const [kind, setKind] = useState<ApiKeyKind>('api');
  const [readOnly, setReadOnly] = useState(false);
  const [ttl, setTtl] = useState('never');
  const [requiresApproval, setRequiresApproval] = useState(false);
  const [minted, setMinted] = useState<MintedApiKey>();
  const [confirmRevoke, setConfirmRevoke] = useState<string>();
  const mint = useAction();
  const revoke = useAction();
  const fields = fieldErrors(mint.error);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const actions: TokenAction[] = readOnly ? ['read'] : ['read', 'write'];
    const ttlSeconds = TTLS.find(([l]) => l === ttl)?.[1];
    const key = await mint.run(() =>
      api().createApiKey({ path: { slug }, body: { name: name.trim(), kind, actions, requiresApproval, ...(ttlSeconds ? { ttlSeconds } : {}) } }),
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
        <Field label="Kind" error={fields.kind} hint="Agent keys are recorded as agents in the audit log.">
          {({ id, describedBy }) => (
            <select id={id} value={kind} onChange={(e) => setKind(e.target.value as ApiKeyKind)} aria-describedby={describedBy}>
              <option value="api">API</option>
              <option value="agent">agent</option>
            </select>
          )}
        </Field>
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
        <div className="checks">
          <label>
            <input type="checkbox" checked={readOnly} onChange={(e) => setReadOnly(e.target.checked)} /> Read only
          </label>
          <label>
            <input type="checkbox" checked={requiresApproval} onChange={(e) => setRequiresApproval(e.target.checked)} /> Rollout changes need approval
          </label>
        </div>
        {mint.error && Object.keys(fields).length === 0 ? <ErrorNote error={mint.error} /> : null}
        <div className="form-actions span-2">
          <button className="btn btn-primary" disabled={mint.busy || !name.trim()}>
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
                    {k.kind === 'agent' && <span className="kind">agent</span>}
                  </td>
                  <td>
                    <code>{k.tokenPrefix}…</code>
                  </td>
                  <td className="small">
                    {k.actions.join(' + ')}
                    {k.requiresApproval ? ', approval' : ''}
                    {k.environments ? `, ${k.environments.length} env` : ''}
                    {k.resources ? `, ${k.resources.join(' ')}` : ''}
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
