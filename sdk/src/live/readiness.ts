/** The promises of `waitForReady`: settled by the first ruleset, a fatal error, a timeout, an abort, or close. */
import type { GradualApiError } from '../errors.js';
import type { TimerHandle, TimerSet } from './timers.js';

interface Waiter {
  resolve: () => void;
  reject: (err: GradualApiError) => void;
}

export class Readiness {
  private readonly waiters = new Set<Waiter>();

  constructor(private readonly timers: TimerSet) {}

  /** `onTimeout` gives the rejection after `timeoutMs`. */
  wait(timeoutMs: number | undefined, signal: AbortSignal | undefined, onTimeout: () => GradualApiError): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      let timer: TimerHandle | null = null;
      const onAbort = () => settle(() => reject(signal?.reason));
      const settle = (fn: () => void) => {
        this.waiters.delete(waiter);
        this.timers.clear(timer);
        signal?.removeEventListener('abort', onAbort);
        fn();
      };
      const waiter: Waiter = { resolve: () => settle(resolve), reject: (err) => settle(() => reject(err)) };
      this.waiters.add(waiter);
      if (timeoutMs !== undefined) timer = this.timers.set(() => waiter.reject(onTimeout()), timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  resolveAll(): void {
    for (const w of [...this.waiters]) w.resolve();
  }

  rejectAll(err: GradualApiError): void {
    for (const w of [...this.waiters]) w.reject(err);
  }
}
