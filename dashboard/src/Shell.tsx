import type { ReactNode } from 'react';
import { Link, navigate, useLocation } from './router';
import { canAdmin, useSession } from './session';
import { LiveIndicator } from './live/LiveIndicator';

/** The signed-in frame: brand, org switcher, the org's sections, the user and sign out. */
export function Shell({ slug, children }: { slug: string; children: ReactNode }) {
  const { session, signOut } = useSession();
  const { path } = useLocation();
  const orgs = session?.organizations ?? [];
  const membership = orgs.find((o) => o.slug === slug);
  const base = `/o/${slug}`;
  const section = path.startsWith(`${base}/audit`) ? 'audit' : path.startsWith(`${base}/admin`) ? 'admin' : 'projects';

  const out = async () => {
    await signOut();
    navigate('/signin', { replace: true });
  };

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link to={base} className="brand" aria-label="Gradual, projects">
          Gradual
        </Link>
        <label className="org-switcher">
          <span className="visually-hidden">Organization</span>
          <select
            value={slug}
            onChange={(e) => navigate(`/o/${e.target.value}`)}
            aria-label="Organization"
            disabled={orgs.length < 2 && Boolean(membership)}
          >
            {!membership && <option value={slug}>{slug}</option>}
            {orgs.map((o) => (
              <option key={o.slug} value={o.slug}>
                {o.name}
              </option>
            ))}
          </select>
        </label>
        <nav className="mainnav" aria-label="Sections">
          <Link to={base} aria-current={section === 'projects' ? 'page' : undefined}>
            Projects
          </Link>
          <Link to={`${base}/audit`} aria-current={section === 'audit' ? 'page' : undefined}>
            Audit log
          </Link>
          <Link to={`${base}/admin`} aria-current={section === 'admin' ? 'page' : undefined}>
            {canAdmin(membership) ? 'Admin' : 'Members'}
          </Link>
        </nav>
        <LiveIndicator />
        <div className="user">
          <span className="user-name" title={session?.user.email}>
            {session?.user.displayName}
            {membership && <span className="role"> · {membership.role}</span>}
          </span>
          <button type="button" className="btn btn-small" onClick={() => void out()}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" className="content" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}

/** Breadcrumbs: [label, path?][]. The last item is the current page. */
export function Crumbs({ items }: { items: [ReactNode, string?][] }) {
  return (
    <nav className="crumbs" aria-label="Breadcrumbs">
      <ol>
        {items.map(([label, to], i) => (
          <li key={i}>{to && i < items.length - 1 ? <Link to={to}>{label}</Link> : <span aria-current="page">{label}</span>}</li>
        ))}
      </ol>
    </nav>
  );
}
