import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import type { Session, SessionOrganization } from '@gradual/sdk';
import { api, isUnauthorized, whenSessionEnds } from './api';

interface SessionState {
  /** undefined while loading; null when signed out. */
  session: Session | null | undefined;
  error: unknown;
  setSession: (s: Session | null) => void;
  reload: () => Promise<void>;
  signOut: () => Promise<void>;
}

const SessionContext = createContext<SessionState | undefined>(undefined);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [error, setError] = useState<unknown>();

  // State is set only once the answer is in (never synchronously), so mounting the provider
  // renders once for the loading state and once for the answer.
  const reload = useCallback(
    () =>
      api()
        .getSession()
        .then(
          (next) => {
            setSession(next);
            setError(undefined);
          },
          (err: unknown) => {
            if (!isUnauthorized(err)) setError(err);
            setSession(null);
          },
        ),
    [],
  );

  const signOut = useCallback(async () => {
    try {
      await api().logout();
    } finally {
      setSession(null);
    }
  }, []);

  useEffect(() => {
    void reload();
    // Any 401 while signed in (session expired, signed out in another tab): back to sign-in.
    whenSessionEnds(() => setSession((s) => (s ? null : s)));
    return () => whenSessionEnds(undefined);
  }, [reload]);

  return <SessionContext.Provider value={{ session, error, setSession, reload, signOut }}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside SessionProvider');
  return s;
}

/** The signed-in user's membership in an org, when they have one. */
export function useOrg(slug: string): SessionOrganization | undefined {
  const { session } = useSession();
  return session?.organizations.find((o) => o.slug === slug);
}

export function canAdmin(org: SessionOrganization | undefined): boolean {
  return org?.role === 'owner' || org?.role === 'admin';
}
