import { useCallback, useEffect, useRef, useState } from 'react';

export interface Resource<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  /** Loads again (keeps the current data on screen meanwhile). */
  reload: () => Promise<void>;
  /** Replaces the data with a mutation's answer, without a round trip. */
  setData: (next: T | ((prev: T | undefined) => T)) => void;
}

/**
 * Loads `load()` when the component mounts and whenever `deps` change. Only the latest load's
 * answer is kept: one that arrives after the deps moved on (a newer load started) is dropped.
 */
export function useResource<T>(load: () => Promise<T>, deps: readonly unknown[]): Resource<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true,
  });
  const generation = useRef(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  const run = useCallback(async () => {
    const mine = ++generation.current;
    setState((s) => ({ ...s, loading: true }));
    try {
      const data = await loadRef.current();
      if (mine === generation.current) setState({ data, error: undefined, loading: false });
    } catch (error) {
      if (mine === generation.current) setState((s) => ({ data: s.data, error, loading: false }));
    }
  }, []);

  useEffect(() => {
    setState({ data: undefined, error: undefined, loading: true });
    void run();
    // `deps` is the caller's list (checked at the call site, where `load` is written).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);

  const setData = useCallback((next: T | ((prev: T | undefined) => T)) => {
    setState((s) => ({
      ...s,
      error: undefined,
      data: typeof next === 'function' ? (next as (p: T | undefined) => T)(s.data) : next,
    }));
  }, []);

  return { ...state, reload: run, setData };
}

/** Runs an action, tracking busy state and its error. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const run = useCallback(async <R,>(fn: () => Promise<R>): Promise<R | undefined> => {
    setBusy(true);
    setError(undefined);
    try {
      return await fn();
    } catch (err) {
      setError(err);
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, setError, run };
}

/** The current time, refreshed every `ms` (countdowns, "an hour after" banners). */
export function useNow(ms = 30_000): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const t = setInterval(() => setNow(new Date()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}
