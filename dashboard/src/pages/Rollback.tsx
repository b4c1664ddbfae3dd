import { useState, type FormEvent } from 'react';
import { API_PREFIX, type MintedRollbackWebhookSecret, type RollbackFireEvent } from '@gradual/sdk';
import { api, fieldErrors } from '../api';
import { CopyButton, Empty, ErrorNote, Loading, PageHeader, Section, TextField } from '../components/ui';
import { formatTime } from '../format';
import { useAction, useResource } from '../hooks';
import { environmentWrites, useLiveReload } from '../live/live';
import { Link, seg, useLocation } from '../router';
import { canAdmin, useOrg } from '../session';
import { Crumbs } from '../Shell';

const OUTCOMES: Record<string, string> = {
  transitioned: 'Rolled back',
  noop_already_rolled_back: 'Already rolled back',
  noop_terminal_state: 'Rollout finished',
  error_unauthorized: 'Unauthorized',
  error_not_found: 'No rollout',
  error_rate_limited: 'Rate limited',
  error_invalid_request: 'Invalid request',
};

export function fireUrl(envId: string, kind: 'flags' | 'configs', key: string): string {
  return `${window.location.origin}${API_PREFIX}/webhooks/rollback/envs/${seg(envId)}/${kind}/${seg(key)}`;
}

/** The shell command that fires the webhook; without a secret at hand it reads $GRADUAL_ROLLBACK_SECRET. */
export function fireCurl(url: string, secret?: string): string {
  const auth = secret ? `Authorization: Bearer ${secret}` : 'Authorization: Bearer $GRADUAL_ROLLBACK_SECRET';
  return `curl -X POST -H "${auth}" \\\n  '${url.replaceAll("'", '%27')}'`;
}

/** The flag or config the page was opened for: `?flag=<key>` or `?config=<key>`. */
function targetFrom(search: URLSearchParams): { kind: 'flags' | 'configs'; key: string } | undefined {
  const flag = search.get('flag');
  if (flag) return { kind: 'flags', key: flag };
  const config = search.get('config');
  if (config) return { kind: 'configs', key: config };
  return undefined;
}

/** Rollback webhook secrets of one environment and its fire history. */
export function RollbackPage({ slug, projectId, envId }: { slug: string; projectId: string; envId: string }) {
  const admin = canAdmin(useOrg(slug));
  const target = targetFrom(useLocation().search);
  const project = useResource(() => api().getProject({ path: { id: projectId } }), [projectId]);
  const env = useResource(() => api().getEnvironment({ path: { envId } }), [envId]);
  const secrets = useResource(() => api().listRollbackSecrets({ path: { envId } }), [envId]);
  const [secretFilter, setSecretFilter] = useState<string>();
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const fires = useResource(
    () =>
      secretFilter
        ? api().listRollbackSecretFires({ path: { envId, id: secretFilter }, query: { cursor, limit: 25 } })
        : api().listRollbackFires({ path: { envId }, query: { cursor, limit: 25 } }),
    [envId, secretFilter, cursor],
  );
  // Every write in the environment, on the organization's stream: secrets minted or revoked (they
  // keep the environment's version: `org-change` with its envId) and fires (one that rolls back
  // moves it: `change`; any other is an `org-change` too).
  useLiveReload({ orgSlug: slug }, () => Promise.all([secrets.reload(), fires.reload()]), environmentWrites(envId));
  const [minted, setMinted] = useState<MintedRollbackWebhookSecret>();
  const [name, setName] = useState('');
  const [confirmRevoke, setConfirmRevoke] = useState<string>();
  const mint = useAction();
  const revoke = useAction();
  const base = `/o/${slug}/p/${seg(projectId)}`;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const secret = await mint.run(() => api().createRollbackSecret({ path: { envId }, body: { name: name.trim() } }));
    if (secret) {
      setMinted(secret);
      setName('');
      void secrets.reload();
    }
  };
  const doRevoke = async (id: string) => {
    await revoke.run(() => api().revokeRollbackSecret({ path: { envId, id } }));
    setConfirmRevoke(undefined);
    void secrets.reload();
  };

  return (
    <>
      <Crumbs items={[['Projects', `/o/${slug}`], [project.data?.name ?? '…', base], [env.data?.name ?? '…', `${base}/e/${seg(envId)}`], ['Rollback webhooks']]} />
      <PageHeader
        title="Rollback webhooks"
        sub="Your alerting calls a flag's or config's fire URL with one of these secrets; the live rollout pauses at 0% within seconds."
      />
      {target && (
        <Section title={<>Fire URL of <code>{target.key}</code></>} id="fire-target-h">
          <div className="secret-row">
            <code className="secret" data-testid="target-fire-url">
              {fireUrl(envId, target.kind, target.key)}
            </code>
            <CopyButton text={fireUrl(envId, target.kind, target.key)} label="Copy URL" />
          </div>
          <p className="small">
            POST with <code>Authorization: Bearer &lt;secret&gt;</code> (a secret below). From a shell,{' '}
            {minted ? <>with the secret “{minted.name}”:</> : <>with the secret in <code>GRADUAL_ROLLBACK_SECRET</code>:</>}
          </p>
          <div className="secret-row">
            <pre className="json small" data-testid="target-curl">
              {fireCurl(fireUrl(envId, target.kind, target.key), minted?.token)}
            </pre>
            <CopyButton text={fireCurl(fireUrl(envId, target.kind, target.key), minted?.token)} label="Copy curl command" />
          </div>
          <p className="small">
            <Link to={`${base}/e/${seg(envId)}/${target.kind}/${seg(target.key)}`}>Back to {target.key}</Link>
          </p>
        </Section>
      )}
      <Section title="Secrets">
        {minted && (
          <div className="note note-success minted" role="status" data-testid="minted-secret">
            <p>
              <strong>Secret “{minted.name}” created.</strong> {minted.warning}
            </p>
            <div className="secret-row">
              <code className="secret" data-testid="minted-token">
                {minted.token}
              </code>
              <CopyButton text={minted.token} label="Copy secret" />
            </div>
            <p className="small">
              Fire URL (POST, <code>Authorization: Bearer &lt;secret&gt;</code>), one per flag or config:
            </p>
            <div className="secret-row">
              <code className="secret" data-testid="fire-url">
                {target ? fireUrl(envId, target.kind, target.key) : <>{fireUrl(envId, 'flags', '')}&lt;flag-key&gt;</>}
              </code>
              <CopyButton text={fireUrl(envId, target?.kind ?? 'flags', target?.key ?? 'FLAG_KEY')} label="Copy URL" />
            </div>
            <pre className="json small">{fireCurl(fireUrl(envId, target?.kind ?? 'flags', target?.key ?? 'FLAG_KEY'), minted.token)}</pre>
            <button className="btn btn-small" onClick={() => setMinted(undefined)}>
              I have stored it
            </button>
          </div>
        )}
        {admin ? (
          <form className="row wrap" onSubmit={(e) => void submit(e)} noValidate>
            <TextField label="New secret name" value={name} onChange={setName} error={fieldErrors(mint.error).name} placeholder="grafana-prod" className="grow" />
            <button className="btn btn-primary align-end" disabled={mint.busy || !name.trim()}>
              Mint secret
            </button>
          </form>
        ) : (
          <p className="muted small">Only admins and owners mint and revoke secrets.</p>
        )}
        {mint.error && !fieldErrors(mint.error).name ? <ErrorNote error={mint.error} /> : null}
        <ErrorNote error={secrets.error ?? revoke.error} />
        {secrets.loading && !secrets.data && <Loading />}
        {secrets.data?.length === 0 && <Empty>No secrets in this environment yet.</Empty>}
        {secrets.data && secrets.data.length > 0 && (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Prefix</th>
                  <th>Created</th>
                  <th>Last fired</th>
                  <th>Status</th>
                  <th>
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {secrets.data.map((s) => (
                  <tr key={s.id} className={s.revokedAt ? 'revoked' : undefined}>
                    <td>{s.name}</td>
                    <td>
                      <code>{s.tokenPrefix}…</code>
                    </td>
                    <td>{formatTime(s.createdAt)}</td>
                    <td>{formatTime(s.lastFiredAt)}</td>
                    <td>{s.revokedAt ? `revoked ${formatTime(s.revokedAt)}` : 'live'}</td>
                    <td className="cell-actions">
                      <button
                        className="btn btn-small"
                        aria-pressed={secretFilter === s.id}
                        onClick={() => {
                          setSecretFilter((f) => (f === s.id ? undefined : s.id));
                          setCursors([undefined]);
                        }}
                      >
                        {secretFilter === s.id ? 'All fires' : 'Its fires'}
                      </button>
                      {admin &&
                        !s.revokedAt &&
                        (confirmRevoke === s.id ? (
                          <button className="btn btn-small btn-danger" disabled={revoke.busy} onClick={() => void doRevoke(s.id)}>
                            Confirm revoke
                          </button>
                        ) : (
                          <button className="btn btn-small btn-danger-outline" onClick={() => setConfirmRevoke(s.id)}>
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
      <Section
        title={secretFilter ? `Fires of “${secrets.data?.find((s) => s.id === secretFilter)?.name ?? ''}”` : 'Fire history'}
        actions={
          <button className="btn btn-small" onClick={() => void fires.reload()}>
            Refresh
          </button>
        }
      >
        <ErrorNote error={fires.error} />
        {fires.data && <FireTable fires={fires.data.fires} linkTo={(f) => `${base}/e/${seg(envId)}/${f.primitiveKind}s/${seg(f.primitiveKey)}`} />}
        <div className="row">
          <button className="btn btn-small" disabled={cursors.length < 2} onClick={() => setCursors((c) => c.slice(0, -1))}>
            ← Newer
          </button>
          <button className="btn btn-small" disabled={!fires.data?.nextCursor} onClick={() => setCursors((c) => [...c, fires.data!.nextCursor])}>
            Older →
          </button>
        </div>
      </Section>
    </>
  );
}

/** Fires, newest first; `linkTo` makes each key a link to its flag or config. */
export function FireTable({ fires, linkTo }: { fires: RollbackFireEvent[]; linkTo?: (fire: RollbackFireEvent) => string }) {
  if (fires.length === 0) return <Empty>No fires yet.</Empty>;
  return (
    <div className="table-wrap">
      <table className="fires">
        <thead>
          <tr>
            <th>When</th>
            <th>Key</th>
            <th>Outcome</th>
            <th>Secret</th>
            <th>Alert</th>
            <th>From</th>
          </tr>
        </thead>
        <tbody>
          {fires.map((f) => (
            <tr key={f.id}>
              <td>{formatTime(f.firedAt)}</td>
              <td>
                {linkTo ? (
                  <Link to={linkTo(f)}>
                    <code>{f.primitiveKey}</code>
                  </Link>
                ) : (
                  <code>{f.primitiveKey}</code>
                )}{' '}
                <span className="kind">{f.primitiveKind}</span>
              </td>
              <td>
                <span className={`outcome outcome-${f.outcome.split('_')[0]}`}>{OUTCOMES[f.outcome] ?? f.outcome}</span>
              </td>
              <td>{f.secretName ?? '—'}</td>
              <td>
                {f.parsedMonitorUrl ? (
                  <a href={f.parsedMonitorUrl} target="_blank" rel="noreferrer noopener">
                    alert
                  </a>
                ) : (
                  '—'
                )}
              </td>
              <td>
                <code className="small">{f.sourceIp}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

