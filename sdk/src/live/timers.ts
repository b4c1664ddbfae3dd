/**
 * Every timer the live client starts goes through one TimerSet, so `close()`
 * can clear them all at once and leave no pending handle behind. Timers are
 * not unref'd: like an open socket, a running client keeps a Node process
 * alive until it is closed.
 */
export type TimerHandle = ReturnType<typeof setTimeout>;

export class TimerSet {
  private readonly pending = new Set<TimerHandle>();
  /** Resolvers of pending sleeps, called (early) by clearAll. */
  private readonly sleepers = new Set<() => void>();

  set(fn: () => void, ms: number): TimerHandle {
    const handle = setTimeout(() => {
      this.pending.delete(handle);
      fn();
    }, Math.max(0, ms));
    this.pending.add(handle);
    return handle;
  }

  clear(handle: TimerHandle | null | undefined): void {
    if (handle == null) return;
    clearTimeout(handle);
    this.pending.delete(handle);
  }

  /** Resolves after `ms`, or as soon as clearAll() runs. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.sleepers.delete(done);
        this.clear(handle);
        resolve();
      };
      const handle = this.set(done, ms);
      this.sleepers.add(done);
    });
  }

  clearAll(): void {
    for (const handle of this.pending) clearTimeout(handle);
    this.pending.clear();
    for (const wake of [...this.sleepers]) wake();
  }

  get size(): number {
    return this.pending.size;
  }
}

/**
 * Exponential backoff with "equal jitter": attempt n waits a random time in
 * [d/2, d] where d = min(maxMs, initialMs · 2ⁿ). Half the delay is guaranteed
 * (no thundering herd of immediate retries), half is spread (clients that
 * failed together do not retry together).
 */
export function backoffDelay(attempt: number, initialMs: number, maxMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(maxMs, initialMs * 2 ** Math.min(attempt, 30));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
