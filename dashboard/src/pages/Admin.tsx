import { useState, type FormEvent } from 'react';
import type { Role } from '@gradual/sdk';
import { api, fieldErrors } from '../api';
import { Empty, ErrorNote, Field, Loading, PageHeader, Section, TextField } from '../components/ui';
import { formatTime } from '../format';
import { useAction, useResource } from '../hooks';
import { orgResources, useLiveReload } from '../live/live';
import { canAdmin, useOrg, useSession } from '../session';
import { ApiKeys } from './AdminApiKeys';

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
  useLiveReload({ orgSlug: slug }, members.reload, orgResources('member'));
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
  useLiveReload({ orgSlug: slug }, invitations.reload, orgResources('invitation', 'member'));
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
