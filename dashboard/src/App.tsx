import { useEffect, type ReactNode } from 'react';
import { api } from './api';
import { ErrorNote, Loading } from './components/ui';
import { useResource } from './hooks';
import { AdminPage } from './pages/Admin';
import { AuditPage } from './pages/Audit';
import { ClaimPage } from './pages/Claim';
import { EnvironmentPage } from './pages/Environment';
import { InsightsPage } from './pages/Insights';
import { InvitePage } from './pages/Invite';
import { PlansPage } from './pages/Plans';
import { PrimitivePage } from './pages/Primitive';
import { ProjectPage } from './pages/Project';
import { ProjectsPage } from './pages/Projects';
import { RollbackPage } from './pages/Rollback';
import { SegmentPage } from './pages/Segment';
import { SegmentsPage } from './pages/Segments';
import { SignInPage } from './pages/SignIn';
import { WebhooksPage } from './pages/Webhooks';
import { Link, match, navigate, useLocation } from './router';
import { SessionProvider, useSession } from './session';
import { Shell } from './Shell';

export function App() {
  return (
    <SessionProvider>
      <Routes />
    </SessionProvider>
  );
}

/**
 * Whether this instance can still be claimed (GET /auth/install-claim, self-hosted only);
 * undefined when the server does not say (hosted topology).
 */
async function claimable(): Promise<boolean | undefined> {
  try {
    return !(await api().getClaimState()).claimed;
  } catch {
    return undefined; // hosted: nothing to claim
  }
}

function Routes() {
  const { path } = useLocation();
  const { session, error } = useSession();
  const claim = useResource(claimable, [session === null]);

  // Pages anyone can open, signed in or not.
  const invite = match('/invite/:token', path);
  if (invite) return <InvitePage token={invite.token!} />;
  if (path === '/claim') return <ClaimPage />;

  if (session === undefined) return <Loading label="Loading Gradual…" />;
  if (session === null) {
    if (path === '/signin') return <SignInPage claimable={claim.data} />;
    return <Redirect to={claim.data ? '/claim' : '/signin'} wait={claim.loading} />;
  }
  if (path === '/signin') return <Redirect to="/" />;

  if (path === '/') {
    const first = session.organizations[0];
    if (!first) return <NoOrg />;
    return <Redirect to={`/o/${first.slug}`} />;
  }

  const org = matchPrefix('/o/:slug', path);
  if (!org) return <NotFound />;
  const slug = org.slug!;
  const membership = session.organizations.find((o) => o.slug === slug);
  if (!membership) {
    return (
      <Shell slug={slug}>
        <ErrorNote error={error} />
        <div className="note note-error" role="alert">
          You are not a member of an organization called “{slug}”. <Link to="/">Go to your organizations</Link>
        </div>
      </Shell>
    );
  }
  return <Shell slug={slug}>{orgRoute(slug, path)}</Shell>;
}

function orgRoute(slug: string, path: string): ReactNode {
  const base = `/o/${slug}`;
  const rest = path.slice(base.length) || '/';
  let m: Record<string, string> | null;
  if (rest === '/') return <ProjectsPage slug={slug} />;
  if (rest === '/audit') return <AuditPage slug={slug} />;
  if (rest === '/admin') return <AdminPage slug={slug} />;
  if ((m = match('/p/:projectId', rest))) return <ProjectPage slug={slug} projectId={m.projectId!} />;
  if ((m = match('/p/:projectId/plans', rest))) return <PlansPage slug={slug} projectId={m.projectId!} />;
  if ((m = match('/p/:projectId/segments', rest))) return <SegmentsPage slug={slug} projectId={m.projectId!} />;
  if ((m = match('/p/:projectId/segments/:key', rest))) return <SegmentPage slug={slug} projectId={m.projectId!} segmentKey={m.key!} />;
  if ((m = match('/p/:projectId/insights', rest))) return <InsightsPage slug={slug} projectId={m.projectId!} />;
  if ((m = match('/p/:projectId/webhooks', rest))) return <WebhooksPage slug={slug} projectId={m.projectId!} />;
  if ((m = match('/p/:projectId/e/:envId', rest))) return <EnvironmentPage slug={slug} projectId={m.projectId!} envId={m.envId!} />;
  if ((m = match('/p/:projectId/e/:envId/rollback', rest)))
    return <RollbackPage slug={slug} projectId={m.projectId!} envId={m.envId!} />;
  if ((m = match('/p/:projectId/e/:envId/:kind/:key', rest)) && (m.kind === 'flags' || m.kind === 'configs'))
    return <PrimitivePage slug={slug} projectId={m.projectId!} envId={m.envId!} kind={m.kind === 'flags' ? 'flag' : 'config'} primitiveKey={m.key!} />;
  return <NotFound />;
}

/** "/o/:slug" or "/o/:slug/…": the slug. */
function matchPrefix(pattern: string, path: string): Record<string, string> | null {
  const depth = pattern.split('/').filter(Boolean).length;
  const head = '/' + path.split('/').filter(Boolean).slice(0, depth).join('/');
  return match(pattern, head);
}

function Redirect({ to, wait }: { to: string; wait?: boolean }) {
  useEffect(() => {
    if (!wait) navigate(to, { replace: true });
  }, [to, wait]);
  return <Loading />;
}

function NotFound() {
  return (
    <main className="auth-page">
      <div className="auth-card">
        <h1>Page not found</h1>
        <p>
          Nothing lives at this address. <Link to="/">Back to the dashboard</Link>
        </p>
      </div>
    </main>
  );
}

function NoOrg() {
  const { signOut } = useSession();
  return (
    <main className="auth-page">
      <div className="auth-card">
        <h1>No organization</h1>
        <p>You are signed in but belong to no organization. Ask an admin for an invitation.</p>
        <button className="btn" onClick={() => void signOut()}>
          Sign out
        </button>
      </div>
    </main>
  );
}
