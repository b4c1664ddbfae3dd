import { useState, type FormEvent } from 'react';
import { isGradualApiError } from '@gradual/sdk';
import { api, errorMessage, fieldErrors } from '../api';
import { Loading, TextField } from '../components/ui';
import { useAction, useResource } from '../hooks';
import { Link, navigate } from '../router';
import { useSession } from '../session';

const GONE: Record<string, string> = {
  not_found: 'This invitation link is not valid. Check that it was copied whole, or ask for a new invitation.',
  invitation_used: 'This invitation has already been accepted. Sign in to continue.',
  invitation_expired: 'This invitation has expired (they last 7 days). Ask the person who invited you for a new one.',
  invitation_email_locked: 'The account for this address has been deactivated. Ask an owner of the organization for help.',
};

/** /app/invite/<token>: what the mailed link opens. Preview, then accept with a display name. */
export function InvitePage({ token }: { token: string }) {
  const { setSession } = useSession();
  const preview = useResource(() => api().getInvitation({ path: { token } }), [token]);
  const [displayName, setDisplayName] = useState('');
  const action = useAction();

  const accept = async (e: FormEvent) => {
    e.preventDefault();
    const session = await action.run(() => api().acceptInvitation({ path: { token }, body: { displayName: displayName.trim() } }));
    if (session) {
      setSession(session);
      const org = session.organizations.find((o) => o.name === preview.data?.orgName) ?? session.organizations[0];
      navigate(org ? `/o/${org.slug}` : '/', { replace: true });
    }
  };

  const failure = preview.error ?? (isGradualApiError(action.error) && action.error.status === 410 ? action.error : undefined);
  return (
    <main className="auth-page">
      <div className="auth-card">
        <div className="brand brand-large">Gradual</div>
        <h1>Invitation</h1>
        {preview.loading && !preview.data && <Loading />}
        {failure ? (
          <div className="note note-error" role="alert" data-testid="invite-error">
            {isGradualApiError(failure) ? (GONE[failure.code] ?? errorMessage(failure)) : errorMessage(failure)}{' '}
            <Link to="/signin">Go to sign-in</Link>
          </div>
        ) : (
          preview.data && (
            <>
              <p data-testid="invite-preview">
                You are invited to join <strong>{preview.data.orgName}</strong> as <strong>{preview.data.role}</strong>, with the
                address <strong>{preview.data.email}</strong>.
              </p>
              <form onSubmit={(e) => void accept(e)} noValidate>
                <TextField
                  label="Your name"
                  value={displayName}
                  onChange={setDisplayName}
                  error={fieldErrors(action.error).displayName}
                  hint="How teammates see you in the audit log."
                  required
                  autoFocus
                />
                {action.error && !fieldErrors(action.error).displayName ? (
                  <div className="note note-error" role="alert">
                    {errorMessage(action.error)}
                  </div>
                ) : null}
                <button className="btn btn-primary btn-block" disabled={action.busy || !displayName.trim()}>
                  {action.busy ? 'Joining…' : `Join ${preview.data.orgName}`}
                </button>
              </form>
            </>
          )
        )}
      </div>
    </main>
  );
}
