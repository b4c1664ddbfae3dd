import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';

export interface Resource<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  /** Loads again (keeps the current data on screen meanwhile). */
  reload: () => Promise<void>;
  /**
   * Replaces the data with a mutation's answer, without a round trip. A load already under way
   * when it is called does not overwrite it (it may have read the state from before the mutation).
   */
  setData: (next: T | ((prev: T | undefined) => T)) => void;
}

interface ResourceState<T> {
  /** The deps the data belongs to, and a number that moves on whenever one of them changes. */
  deps: readonly unknown[];
  key: number;
  data: T | undefined;
  error: unknown;
  loading: boolean;
}

const sameDeps = (a: readonly unknown[], b: readonly unknown[]) => a.length === b.length && a.every((v, i) => Object.is(v, b[i]));

/**
 * Loads `load()` when the component mounts and whenever `deps` change (compared one by one, as
 * React compares an effect's list). Only the latest load's answer is kept: one that arrives
 * after the deps moved on (a newer load started) is dropped.
 */
export function useResource<T>(load: () => Promise<T>, deps: readonly unknown[]): Resource<T> {
  const [state, setState] = useState<ResourceState<T>>(() => ({ deps, key: 0, data: undefined, error: undefined, loading: true }));
  if (!sameDeps(state.deps, deps)) {
    // New deps: the old data is not theirs. Set while rendering, so no frame shows it with them.
    setState({ deps, key: state.key + 1, data: undefined, error: undefined, loading: true });
  }
  const { key } = state;

  // The latest `load` and deps key, for the effect below and for reload: a new closure every
  // render is not a reason to load again, only new deps are.
  const latest = useRef({ load, key });
  useLayoutEffect(() => {
    latest.current = { load, key };
  });

  const generation = useRef(0);
  // How many times setData replaced the data: a load that started before one of them may answer
  // with the state from before that mutation.
  const writes = useRef(0);
  const run = useCallback(async () => {
    const mine = ++generation.current;
    const writesBefore = writes.current;
    const { load: current, key: forKey } = latest.current;
    // An answer counts only if no newer load started, the deps are still the ones it was for, and
    // no mutation's answer replaced the data meanwhile (then it is done loading, with that data).
    const settle = (next: (s: ResourceState<T>) => ResourceState<T>) =>
      setState((s) => {
        if (mine !== generation.current || s.key !== forKey) return s;
        return writes.current === writesBefore ? next(s) : { ...s, loading: false };
      });
    setState((s) => (s.loading ? s : { ...s, loading: true }));
    try {
      const data = await current();
      settle((s) => ({ ...s, data, error: undefined, loading: false }));
    } catch (error) {
      settle((s) => ({ ...s, error, loading: false }));
    }
  }, []);

  useEffect(() => {
    void run();
  }, [key, run]);

  const setData = useCallback((next: T | ((prev: T | undefined) => T)) => {
    writes.current++;
    setState((s) => ({
      ...s,
      error: undefined,
      data: typeof next === 'function' ? (next as (p: T | undefined) => T)(s.data) : next,
    }));
  }, []);

  return { data: state.data, error: state.error, loading: state.loading, reload: run, setData };
}

/**
 * Calls `reload` (a resource's) whenever `trigger` changes after the first render (compared with
 * Object.is): for a value that says the data may be out of date without being part of what is
 * loaded (a counter moved on by a write, the time the data's source was last updated). Unlike new
 * deps, it keeps the data on screen while it loads again.
 */
export function useReloadOn(trigger: unknown, reload: () => unknown): void {
  const seen = useRef(trigger);
  useEffect(() => {
    if (Object.is(seen.current, trigger)) return;
    seen.current = trigger;
    void reload();
  }, [trigger, reload]);
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
