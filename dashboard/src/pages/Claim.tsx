import { useState, type FormEvent } from 'react';
import { isGradualApiError } from '@gradual/sdk';
import { api, errorMessage, fieldErrors } from '../api';
import { TextField } from '../components/ui';
import { useAction } from '../hooks';
import { Link, navigate } from '../router';
import { useSession } from '../session';

/** Suggests an org slug from its name: "Acme Corp" → "acme-corp". */
export function slugify(name: string): string {
  return name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48);
}

/** The first owner claims a fresh self-hosted instance; it signs them in at once. */
export function ClaimPage() {
  const { setSession } = useSession();
  const [form, setForm] = useState({ email: '', displayName: '', orgName: '', orgSlug: '' });
  const [slugTouched, setSlugTouched] = useState(false);
  const action = useAction();
  const fields = fieldErrors(action.error);
  const claimed = isGradualApiError(action.error) && action.error.code === 'already_claimed';

  const set = (k: keyof typeof form) => (v: string) =>
    setForm((f) => ({ ...f, [k]: v, ...(k === 'orgName' && !slugTouched ? { orgSlug: slugify(v) } : {}) }));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const session = await action.run(() => api().claimInstall({ body: { ...form, email: form.email.trim() } }));
    if (session) {
      setSession(session);
      navigate(`/o/${session.organizations[0]!.slug}`, { replace: true });
    }
  };

  return (
    <main className="auth-page">
      <div className="auth-card">
        <div className="brand brand-large">Gradual</div>
        <h1>Set up this instance</h1>
        <p className="muted">You become the owner of the first organization and are signed in right away.</p>
        {claimed ? (
          <div className="note note-info" role="alert">
            This instance has already been claimed. <Link to="/signin">Sign in</Link> instead, or ask its owner for an invitation.
          </div>
        ) : (
          action.error && Object.keys(fields).length === 0 ? (
            <div className="note note-error" role="alert">
              {errorMessage(action.error)}
            </div>
          ) : null
        )}
        <form onSubmit={(e) => void submit(e)} noValidate>
          <TextField label="Your email" type="email" value={form.email} onChange={set('email')} error={fields.email} required autoFocus />
          <TextField label="Your name" value={form.displayName} onChange={set('displayName')} error={fields.displayName} required />
          <TextField label="Organization name" value={form.orgName} onChange={set('orgName')} error={fields.orgName} required />
          <TextField
            label="Organization slug"
            value={form.orgSlug}
            onChange={(v) => {
              setSlugTouched(true);
              set('orgSlug')(v);
            }}
            error={fields.orgSlug}
            hint="Lower-case letters, digits and dashes; it appears in API paths."
            required
          />
          <button className="btn btn-primary btn-block" disabled={action.busy}>
            {action.busy ? 'Setting up…' : 'Claim and sign in'}
          </button>
        </form>
      </div>
    </main>
  );
}
