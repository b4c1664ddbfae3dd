/** A cache loader whose answers a test releases by hand (refresh-ahead caches). */
export function manualLoader<T>() {
  const calls: Array<{ id: string; resolve: (v: T | null) => void; reject: (e: Error) => void }> = [];
  const load = (id: string) => new Promise<T | null>((resolve, reject) => calls.push({ id, resolve, reject }));
  return { calls, load };
}

/** Lets settled loader promises run their continuations. */
export const settle = () => new Promise((r) => setTimeout(r, 0));
