import { useState, type FormEvent } from 'react';
import { api, errorMessage, fieldErrors } from '../api';
import { TextField } from '../components/ui';
import { useAction } from '../hooks';
import { Link, useLocation } from '../router';

/** Every code GET /auth/link can redirect with, in words. */
export const SIGNIN_ERRORS: Record<string, { title: string; text: string }> = {
  magic_link_already_used: {
    title: 'This sign-in link was already used',
    text: 'Each link works once. Ask for a new one below.',
  },
  magic_link_used: {
    title: 'This sign-in link was already used',
    text: 'Each link works once. Ask for a new one below.',
  },
  magic_link_expired: {
    title: 'This sign-in link has expired',
    text: 'Links are valid for 15 minutes. Ask for a new one below.',
  },
  magic_link_invalid: {
    title: 'This sign-in link is not valid',
    text: 'It may have been cut short when it was copied. Ask for a new one below.',
  },
  no_invitation: {
    title: 'No account for this address',
    text: 'There is no user or pending invitation for this email address. Ask an admin of your organization to invite you.',
  },
};

export function signinErrorText(code: string): { title: string; text: string } {
  return SIGNIN_ERRORS[code] ?? { title: 'Sign-in failed', text: 'Ask for a new sign-in link below.' };
}

export function SignInPage({ claimable }: { claimable: boolean | undefined }) {
  const { search } = useLocation();
  const code = search.get('error');
  const [email, setEmail] = useState('');
  const [sentTo, setSentTo] = useState<string>();
  const action = useAction();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const done = await action.run(() => api().requestMagicLink({ body: { email: email.trim() } }));
    if (done) setSentTo(email.trim());
  };

  const problem = code ? signinErrorText(code) : undefined;
  return (
    <main className="auth-page">
      <div className="auth-card">
        <div className="brand brand-large">Gradual</div>
        <h1>Sign in</h1>
        {problem && (
          <div className="note note-error" role="alert" data-testid="signin-error">
            <strong>{problem.title}.</strong> {problem.text}
          </div>
        )}
        {claimable && (
          <div className="note note-info">
            This instance has not been claimed yet. <Link to="/claim">Set it up</Link> to become its first owner.
          </div>
        )}
        {sentTo ? (
          <div className="note note-success" role="status">
            If <strong>{sentTo}</strong> has an account or a pending invitation, a sign-in link is on its way. It works once,
            for 15 minutes. <button type="button" className="link-button" onClick={() => setSentTo(undefined)}>Use another address</button>
          </div>
        ) : (
          <form onSubmit={(e) => void submit(e)} noValidate>
            <p className="muted">We email you a link; nobody here has a password.</p>
            <TextField
              label="Email"
              type="email"
              inputMode="email"
              value={email}
              onChange={setEmail}
              required
              autoFocus
              error={fieldErrors(action.error).email ?? (action.error && !fieldErrors(action.error).email ? errorMessage(action.error) : undefined)}
            />
            <button className="btn btn-primary btn-block" disabled={action.busy || !email.trim()}>
              {action.busy ? 'Sending…' : 'Email me a sign-in link'}
            </button>
          </form>
        )}
        {claimable === undefined && (
          <p className="muted small">
            Setting up a new self-hosted instance? <Link to="/claim">Claim it</Link>.
          </p>
        )}
      </div>
    </main>
  );
}
