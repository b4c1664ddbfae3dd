/**
 * The ruleset stream, `GET /envs/{envId}/ruleset/stream` (the generated
 * `streamRuleset` operation read as a byte stream, so `Authorization: Bearer`
 * works where the browser's EventSource cannot send it), parsed with
 * `eventsource-parser`. Each `ruleset` event announces a version. A dropped
 * stream is reopened: after a clean end at the server's `retry:` hint, after
 * a failure with the shared backoff. A stream silent for `idleTimeoutMs` (the
 * server sends a heartbeat every 15 s) is treated as dead and reopened.
 */
import { createParser } from 'eventsource-parser';
import type { Client as FetchClient } from '../generated/client/index.js';
import { GradualApiError } from '../errors.js';
import { streamRuleset } from '../generated/sdk.gen.js';
import { retryDelay, type BackoffPolicy } from '../retry.js';
import type { TimerHandle, TimerSet } from './timers.js';
import { abortable, childController, httpError, invalidResponse, noResponse } from './transport.js';

export interface RulesetStreamOptions {
  http: FetchClient;
  envId: string;
  timers: TimerSet;
  lifetime: AbortSignal;
  idleTimeoutMs: number;
  backoff: BackoffPolicy;
  /** A `ruleset` event: the environment is at `version`. */
  onVersion: (version: number) => void;
  /** The connection ended (cleanly or not); it will be reopened. */
  onDown: () => void;
  onError: (error: GradualApiError) => void;
}

const WHAT = 'ruleset stream';

export class RulesetStream {
  private task: Promise<void> | null = null;
  private up = false;
  private retryMs: number;

  constructor(private readonly o: RulesetStreamOptions) {
    this.retryMs = o.backoff.initialMs;
  }

  /** Connected, and it has announced a version. */
  get connected(): boolean {
    return this.up;
  }

  start(): void {
    this.task ??= this.run();
  }

  /** Settles when the connection loop has ended (after `lifetime` aborts). */
  settled(): Promise<void> {
    return this.task ?? Promise.resolve();
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.o.lifetime.aborted) {
      const { delivered, error } = await this.once();
      this.up = false;
      if (this.o.lifetime.aborted) break;
      this.o.onDown();
      if (delivered) failures = 0;
      const delay = error ? retryDelay(error, failures++, this.o.backoff) : this.retryMs;
      await this.o.timers.sleep(delay);
    }
  }

  /** One connection; resolves when it ends. `delivered`: it announced at least one version. */
  private async once(): Promise<{ delivered: boolean; error?: GradualApiError }> {
    const { controller, unlink } = childController(this.o.lifetime);
    let idle: TimerHandle | null = null;
    const armIdle = () => {
      this.o.timers.clear(idle);
      idle = this.o.timers.set(() => controller.abort(new Error(`silent for ${this.o.idleTimeoutMs} ms`)), this.o.idleTimeoutMs);
    };
    let delivered = false;
    const fail = (error: GradualApiError) => {
      this.o.onError(error);
      return { delivered, error };
    };
    try {
      armIdle(); // also bounds the connect
      let result;
      try {
        result = await abortable(
          streamRuleset({
            client: this.o.http,
            path: { envId: this.o.envId },
            headers: { accept: 'text/event-stream', 'cache-control': 'no-cache' },
            parseAs: 'stream',
            signal: controller.signal,
          }),
          controller.signal,
        );
      } catch (err) {
        throw err instanceof GradualApiError ? err : noResponse(WHAT, err);
      }
      const response: Response | undefined = result.response;
      if (!response) throw noResponse(WHAT, result.error);
      if (!response.ok) return fail(httpError(response, result.error));
      if (!response.body) return fail(invalidResponse(WHAT, 'no body', response));
      const parser = createParser({
        onEvent: (event) => {
          if (event.event !== 'ruleset') return;
          let version: unknown;
          try {
            version = (JSON.parse(event.data) as { version?: unknown }).version;
          } catch {
            return;
          }
          if (typeof version !== 'number' || !Number.isInteger(version)) return;
          delivered = true;
          this.up = true;
          this.o.onVersion(version);
        },
        onRetry: (ms) => {
          this.retryMs = Math.min(Math.max(ms, 100), this.o.backoff.maxMs);
        },
      });
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      try {
        for (;;) {
          const { done, value } = await abortable(reader.read(), controller.signal);
          if (done || this.o.lifetime.aborted) break;
          armIdle();
          parser.feed(decoder.decode(value, { stream: true }));
        }
      } catch (err) {
        throw noResponse(WHAT, err);
      } finally {
        reader.cancel().catch(() => {});
      }
      if (delivered || this.o.lifetime.aborted) return { delivered };
      return fail(invalidResponse(WHAT, 'ended before announcing a version', response));
    } catch (caught) {
      if (this.o.lifetime.aborted) return { delivered };
      return fail(caught instanceof GradualApiError ? caught : noResponse(WHAT, caught));
    } finally {
      this.o.timers.clear(idle);
      controller.abort(); // releases the connection whatever happened
      unlink();
    }
  }
}
