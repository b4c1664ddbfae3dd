/**
 * Every timer the live client starts goes through one TimerSet, so `close()`
 * can clear them all at once and leave no pending handle behind. Timers are
 * not unref'd: like an open socket, a running client keeps a Node process
 * alive until it is closed. The globals are looked up at each call, so fake
 * timers installed after the client was created still apply.
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
}
