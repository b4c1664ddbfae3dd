/**
 * The live client's one periodic reporter: counts gathered in memory over a window, closed every
 * `intervalMs` (and on flush and close), turned into one report by `collect` and sent from a
 * timer, never from inside an evaluation, with a timeout of its own. Usage counts (usage.ts) and
 * guard arms (guards.ts) are its windows.
 *
 * A report that fails is logged and dropped, not retried: a lost answer to a report the server
 * did count would otherwise be counted twice, and both are statistics.
 */
import type { Client as FetchClient } from '../generated/client/index.js';
import { GradualApiError } from '../errors.js';
import type { TimerHandle, TimerSet } from './timers.js';
import { abortable, httpError, noResponse } from './transport.js';

/** Sends one report to the environment; rejects with a `GradualApiError`. */
export type ReportSender<R> = (envId: string, report: R, signal: AbortSignal) => Promise<void>;

/** What a generated SDK function's promise resolves to, as far as a sender reads it. */
interface Sent {
  response?: Response | undefined;
  error?: unknown;
}

/**
 * A sender over one generated SDK function (`reportUsage`, `reportGuardMetrics`) on the live
 * client's fetch client: a missing response or a non-2xx answer becomes a `GradualApiError`.
 */
export function reportSender<R>(what: string, http: FetchClient, post: (http: FetchClient, envId: string, report: R, signal: AbortSignal) => Promise<Sent>): ReportSender<R> {
  return async (envId, report, signal) => {
    let result: Sent;
    try {
      result = await abortable(post(http, envId, report, signal), signal);
    } catch (err) {
      throw err instanceof GradualApiError ? err : noResponse(what, err);
    }
    const response = result.response;
    if (!response) throw noResponse(what, result.error);
    if (!response.ok) throw httpError(response, result.error);
  };
}

/** A closed window's report, or null when it counted nothing worth sending. */
export interface CollectedReport<R> {
  envId: string;
  report: R;
  /** Its entries, for the log line when it fails. */
  entries: number;
}

export interface WindowReporterOptions<R> {
  /** Names the report in log lines ("usage report"). */
  what: string;
  /** Milliseconds between reports. */
  intervalMs: number;
  /** The longest window a report may describe: an older start is moved up to this before the end. */
  windowMaxMs: number;
  /** Timeout of one report. */
  requestTimeoutMs: number;
  timers: TimerSet;
  /** Closes the window from `windowStart` to `windowEnd` (ms since the epoch) and takes what it counted. */
  collect: (windowStart: number, windowEnd: number) => CollectedReport<R> | null;
  send: ReportSender<R>;
  warn: (message: string) => void;
  /** Whether `close()` sends the window first (default true); without, it waits for no report in flight either. */
  finalReport?: boolean;
}

export class WindowReporter<R> {
  private windowStart = Date.now();
  private timer: TimerHandle | null = null;
  private readonly inflight = new Set<Promise<void>>();
  private closed = false;

  constructor(private readonly options: WindowReporterOptions<R>) {
    this.arm();
  }

  /** True once `close()` was called: the window counts nothing more. */
  get stopped(): boolean {
    return this.closed;
  }

  /** Sends the current window now; resolves when every report started so far has settled. */
  async flush(): Promise<void> {
    this.report();
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }

  /** Sends the current window, then reports nothing more. */
  async close(): Promise<void> {
    this.options.timers.clear(this.timer);
    this.timer = null;
    this.closed = true;
    if (this.options.finalReport !== false) await this.flush();
  }

  private arm(): void {
    if (this.closed) return;
    this.timer = this.options.timers.set(() => {
      this.timer = null;
      this.report();
      this.arm();
    }, this.options.intervalMs);
  }

  /** Closes the window and starts sending what it counted. */
  private report(): void {
    const { timers, requestTimeoutMs, what } = this.options;
    const now = Date.now();
    const windowStart = Math.max(this.windowStart, now - this.options.windowMaxMs);
    this.windowStart = now;
    const collected = this.options.collect(windowStart, now);
    if (collected === null) return;
    const controller = new AbortController();
    const timeout = timers.set(() => controller.abort(new Error(`timed out after ${requestTimeoutMs} ms`)), requestTimeoutMs);
    const sending: Promise<void> = this.options
      .send(collected.envId, collected.report, controller.signal)
      .catch((err: unknown) => {
        const message = err instanceof Error ? err.message : String(err);
        this.options.warn(`gradual: ${what} failed, ${collected.entries} entries dropped: ${message}`);
      })
      .finally(() => {
        timers.clear(timeout);
        this.inflight.delete(sending);
      });
    this.inflight.add(sending);
  }
}
