/**
 * One periodic job: `run` every `intervalMs` from `start()`, on demand with `runNow()`, and once
 * more on `stop()`. Runs never overlap: one asked for during a run starts after it (so a run asked
 * for always sees what was there when it was asked). A run that throws is passed to `onError` and
 * the job goes on.
 */
export class PeriodicJob {
  private timer: NodeJS.Timeout | null = null;
  private last: Promise<void> = Promise.resolve();

  constructor(
    private readonly run: () => Promise<void>,
    private readonly onError: (err: unknown) => void,
  ) {}

  runNow(): Promise<void> {
    const next = this.last.then(() => this.run()).catch(this.onError);
    this.last = next;
    return next;
  }

  start(intervalMs: number): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.runNow(), intervalMs);
    this.timer.unref();
  }

  /** Stops the interval, then runs once more (what was gathered since the last run). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.runNow();
  }
}
