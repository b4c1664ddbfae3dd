import { useState, type FormEvent } from 'react';
import type { ApiKeyKind, MintedApiKey, Role, TokenAction } from '@gradual/sdk';
import { api, fieldErrors } from '../api';
import { CopyButton, Empty, ErrorNote, Field, Loading, PageHeader, Section, TextField } from '../components/ui';
import { formatTime } from '../format';
import { useAction, useResource } from '../hooks';
import { canAdmin, useOrg, useSession } from '../session';

/** API keys, members and invitations of the org. Members see the member list only. */
export function AdminPage({ slug }: { slug: string }) {
  const org = useOrg(slug);
  const admin = canAdmin(org);
  return (
    <>
      <PageHeader title={admin ? 'Admin' : 'Members'} sub={org?.name} />
      <Members slug={slug} />
      {admin && <Invitations slug={slug} />}
      {admin && <ApiKeys slug={slug} />}
    </>
  );
}

const ROLES: Role[] = ['member', 'admin', 'owner'];

function Members({ slug }: { slug: string }) {
  const { session, reload } = useSession();
  const org = useOrg(slug);
  const members = useResource(() => api().listMembers({ path: { slug } }), [slug]);
  const action = useAction();
  const admin = canAdmin(org);

  const setRole = async (userId: string, role: Role) => {
    const updated = await action.run(() => api().updateMember({ path: { slug, userId }, body: { role } }));
    if (updated) {
      members.setData((all = []) => all.map((m) => (m.userId === userId ? updated : m)));
      if (userId === session?.user.id) void reload();
    }
  };
  const remove = async (userId: string) => {
    const done = await action.run(async () => {
      await api().removeMember({ path: { slug, userId } });
      return true;
    });
    if (done) {
      if (userId === session?.user.id) return void reload();
      void members.reload();
    }
  };

  return (
    <Section title="Members">
      <ErrorNote error={members.error ?? action.error} />
      {members.loading && !members.data && <Loading />}
      {members.data && (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th>Name</th>
                <th>Email</th>
                <th>Role</th>
                <th>Since</th>
                <th>
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {members.data.map((m) => {
                const me = m.userId === session?.user.id;
                const mayEdit = admin && (org?.role === 'owner' || m.role !== 'owner');
                return (
                  <tr key={m.userId}>
                    <td>
                      {m.displayName}
                      {me && <span className="muted"> (you)</span>}
                    </td>
                    <td>{m.email}</td>
                    <td>
                      {mayEdit ? (
                        <select value={m.role} onChange={(e) => void setRole(m.userId, e.target.value as Role)} aria-label={`Role of ${m.displayName}`} disabled={action.busy}>
                          {ROLES.filter((r) => r !== 'owner' || org?.role === 'owner').map((r) => (
                            <option key={r} value={r}>
                              {r}
                            </option>
                          ))}
                          {m.role === 'owner' && org?.role !== 'owner' && <option value="owner">owner</option>}
                        </select>
                      ) : (
                        m.role
                      )}
                    </td>
                    <td>{formatTime(m.createdAt)}</td>
                    <td className="cell-actions">
                      {(mayEdit || me) && (
                        <button className="btn btn-small btn-danger-outline" disabled={action.busy} onClick={() => void remove(m.userId)}>
                          {me ? 'Leave' : 'Remove'}
                        </button>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}

function Invitations({ slug }: { slug: string }) {
  const org = useOrg(slug);
  const invitations = useResource(() => api().listInvitations({ path: { slug } }), [slug]);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [sent, setSent] = useState<string>();
  const create = useAction();
  const revoke = useAction();
  const fields = fieldErrors(create.error);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const inv = await create.run(() => api().createInvitation({ path: { slug }, body: { email: email.trim(), role } }));
    if (inv) {
      setSent(inv.email);
      setEmail('');
      void invitations.reload();
    }
  };
  const pending = invitations.data?.filter((i) => i.status === 'pending') ?? [];

  return (
    <Section title="Invitations">
      <form className="row wrap" onSubmit={(e) => void submit(e)} noValidate>
        <TextField label="Email" type="email" value={email} onChange={setEmail} error={fields.email} className="grow" />
        <Field label="Role" error={fields.role}>
          {({ id }) => (
            <select id={id} value={role} onChange={(e) => setRole(e.target.value as Role)}>
              {ROLES.filter((r) => r !== 'owner' || org?.role === 'owner').map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          )}
        </Field>
        <button className="btn btn-primary align-end" disabled={create.busy || !email.trim()}>
          Invite
        </button>
      </form>
      {create.error && Object.keys(fields).length === 0 ? <ErrorNote error={create.error} /> : null}
      {sent && (
        <div className="note note-success" role="status">
          Invitation mailed to {sent}. The link is valid for 7 days.
        </div>
      )}
      <ErrorNote error={invitations.error ?? revoke.error} />
      {invitations.data && pending.length === 0 && <Empty>No pending invitations.</Empty>}
      {pending.length > 0 && (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th>Email</th>
                <th>Role</th>
                <th>Expires</th>
                <th>
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {pending.map((i) => (
                <tr key={i.id}>
                  <td>{i.email}</td>
                  <td>{i.role}</td>
                  <td>{formatTime(i.expiresAt)}</td>
                  <td className="cell-actions">
                    <button
                      className="btn btn-small btn-danger-outline"
                      disabled={revoke.busy}
                      onClick={() => void revoke.run(() => api().revokeInvitation({ path: { slug, id: i.id } })).then(() => invitations.reload())}
                    >
                      Revoke
                    </button>
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

const TTLS: [string, number | undefined][] = [
  ['never', undefined],
  ['1 day', 86400],
  ['30 days', 30 * 86400],
  ['90 days', 90 * 86400],
  ['1 year', 31536000],
];

function ApiKeys({ slug }: { slug: string }) {
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
