/**
 * The embedded database's watchdog: PGlite runs in a thread of its own (@gradual/pglite-server),
 * and a thread stuck inside PGlite (a WASM loop, a full disk during a checkpoint) answers no
 * query again: every request would then wait for its pool's timeout, for ever. Every
 * `intervalMs` the watchdog runs a query in that thread (Database.threadPing) with a deadline;
 * after `misses` checks in a row without an answer it calls `onWedged` with the reason, once:
 * main.ts logs it and exits non-zero, so a supervisor restarts the server. A check still
 * pending counts as a miss at each interval; no second one is sent meanwhile.
 */
export interface WatchdogOptions {
  /** Resolves once the database answered; rejects when it is gone. */
  check: () => Promise<void>;
  intervalMs: number;
  /** How long one check may take. Default: intervalMs. */
  deadlineMs?: number;
  /** Misses in a row that end it. Default 3. */
  misses?: number;
  onMiss?: (miss: number, of: number, reason: string) => void;
  onWedged: (reason: string) => void;
}

export interface Watchdog {
  stop(): void;
}

export function startWatchdog(opts: WatchdogOptions): Watchdog {
  const deadlineMs = opts.deadlineMs ?? opts.intervalMs;
  const allowed = opts.misses ?? 3;
  let missed = 0;
  let stopped = false;
  /** The check in flight: null once answered, else why it failed. */
  let pending: Promise<string | null> | undefined;
  let timer: NodeJS.Timeout | undefined;

  const miss = (reason: string) => {
    missed++;
    opts.onMiss?.(missed, allowed, reason);
    if (missed < allowed) return;
    stopped = true;
    opts.onWedged(`the database did not answer ${allowed} checks in a row (${reason})`);
  };

  const tick = async () => {
    if (stopped) return;
    pending ??= opts.check().then(
      () => null,
      (err: unknown) => `failed: ${err instanceof Error ? err.message : String(err)}`,
    );
    const current = pending;
    let deadline: NodeJS.Timeout | undefined;
    const late = new Promise<string>((resolve) => {
      deadline = setTimeout(() => resolve(`no answer within ${deadlineMs} ms`), deadlineMs);
      deadline.unref();
    });
    const outcome = await Promise.race([current, late]);
    clearTimeout(deadline);
    if (stopped) return;
    if (outcome === null) {
      pending = undefined;
      missed = 0;
    } else {
      if (outcome.startsWith('failed')) pending = undefined; // a new check next time
      miss(outcome);
    }
    if (!stopped) schedule();
  };
  const schedule = () => {
    timer = setTimeout(() => void tick(), opts.intervalMs);
    timer.unref(); // never keeps the process alive
  };
  schedule();

  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
