import { createHmac, randomInt } from 'node:crypto';
import { request as httpRequest, type Agent } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Logger } from 'pino';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/database.js';
import { WebhookDeliveryEntity, type WebhookDelivery } from '../../db/entities/index.js';
import { BoundRows, rawQuery } from '../common/sql.js';
import { deliveryAgents, type WebhookNetworkPolicy } from './url-policy.js';
import { WEBHOOK_SECRET_PREFIX } from './webhooks.service.js';
import { transaction } from '../../db/transaction.js';

/**
 * Delay before each retry: after the 1st failed attempt 5 s, then 30 s, 2 min, 10 min, 30 min,
 * 1 h and 6 h; the 8th failure is final (`failed`), about 7 h 43 min after the first attempt.
 * Each delay gets up to 20 % more at random (never less), so that receivers that failed together
 * are not retried together.
 */
export const RETRY_DELAYS_SECONDS = [5, 30, 120, 600, 1800, 3600, 21_600] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;
/** Deliveries older than this are deleted (the log's retention). */
export const DELIVERY_RETENTION_DAYS = 30;
/** Deliveries claimed per batch. */
export const WORKER_BATCH = 50;
/** Batches delivered at once (deliveries of one subscription always go one after another, in order). */
const PARALLEL_SUBSCRIPTIONS = 8;
/** How much of an error answer's body lastError keeps. */
const ERROR_BODY_CHARS = 300;

export interface WebhookWorkerDeps {
  db: Database;
  /** The service clock: when deliveries are due, leases, the log's times. */
  clock: Clock;
  logger: Logger;
  settings: WebhookNetworkPolicy & { timeoutMs: number };
  /**
   * The `webhook-timestamp` header's clock. Receivers check it against their own clocks (Standard
   * Webhooks allows five minutes), so it is the real time of sending, not the service clock.
   */
  wallClock?: () => Date;
}

/** A claimed delivery and its subscription's signing secret. */
interface Claimed extends WebhookDelivery {
  secret: string;
}

/** `v1,<base64 HMAC-SHA256>` of `id.timestamp.body` with the secret's key (Standard Webhooks). */
export function signature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** When the attempt after `attempts` failed ones is due, or null when none is left. */
export function nextAttemptAfter(attempts: number, now: Date, jitter: (maxMs: number) => number = (max) => (max > 0 ? randomInt(max + 1) : 0)): Date | null {
  const delay = RETRY_DELAYS_SECONDS[attempts - 1];
  if (delay === undefined) return null;
  const ms = delay * 1000;
  return new Date(now.getTime() + ms + jitter(Math.floor(ms / 5)));
}

interface AttemptResult {
  status: number | null;
  error: string | null;
}

/** One POST: no redirects followed, cut after `timeoutMs`; an error answer's start is kept for the log. */
function post(url: string, body: string, headers: Record<string, string>, agents: { http: Agent; https: Agent }, timeoutMs: number): Promise<AttemptResult> {
  return new Promise((resolve) => {
    const target = new URL(url);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    let settled = false;
    const done = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const req = send(
      target,
      {
        method: 'POST',
        agent: target.protocol === 'https:' ? agents.https : agents.http,
        headers: {
          ...headers,
          'content-length': String(Buffer.byteLength(body)),
        },
      },
      (res) => {
        const status = res.statusCode ?? 0;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (text.length < ERROR_BODY_CHARS) text += chunk;
        });
        res.on('error', (err) => done({ status, error: err.message }));
        res.on('end', () => {
          if (status >= 200 && status < 300) return done({ status, error: null });
          const location = status >= 300 && status < 400 && res.headers.location ? ` (redirect to ${res.headers.location}, not followed)` : '';
          done({
            status,
            error: `HTTP ${status}${location}${text ? `: ${text.slice(0, ERROR_BODY_CHARS)}` : ''}`,
          });
        });
      }
    );
    const timer = setTimeout(() => {
      req.destroy(new Error(`no complete answer within ${timeoutMs} ms`));
    }, timeoutMs);
    req.on('error', (err) => done({ status: null, error: err.message }));
    req.end(body);
  });
}

/**
 * The delivery worker: claims due deliveries (`FOR UPDATE SKIP LOCKED` and a lease, so several
 * instances deliver each one once; a lease left by a crashed instance expires and the delivery is
 * claimed again), sends them signed, and records the outcome. Never runs inside a request.
 */
export class WebhookWorker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  private readonly agents: { http: Agent; https: Agent };
  private lastCleanup = 0;

  constructor(private readonly deps: WebhookWorkerDeps) {
    this.agents = deliveryAgents(deps.settings);
  }

  /** A lease long enough for one attempt, with room for the write after it. */
  private get leaseMs() {
    return this.deps.settings.timeoutMs + 30_000;
  }

  /** Claims up to `limit` due deliveries and leases them to this worker until `until`. */
  private async claim(now: Date, until: Date, limit: number): Promise<Claimed[]> {
    const em = this.deps.db.em();
    const rows = BoundRows.of<WebhookDelivery>(em, WebhookDeliveryEntity.meta.className);
    return transaction(em, async (tx) => {
      const { rows: claimed } = await rawQuery<Record<string, unknown> & { secret: string }>(
        tx,
        `with due as (
           select id from webhook_deliveries
            where status = 'pending' and next_attempt_at <= ?::timestamptz and (locked_until is null or locked_until < ?::timestamptz)
            order by next_attempt_at, id limit ? for update skip locked)
         update webhook_deliveries x set locked_until = ?::timestamptz
           from due, webhook_subscriptions s
          where x.id = due.id and s.id = x.subscription_id
         returning ${rows.selectList}, s.secret`,
        [now.toISOString(), now.toISOString(), limit, until.toISOString()]
      );
      return claimed.map((row) => ({ ...rows.fromRow(row), secret: row.secret }));
    });
  }

  /** Records one attempt, unless the lease was lost meanwhile (another worker owns the delivery then). */
  private async record(d: Claimed, lease: Date, result: AttemptResult, at: Date): Promise<void> {
    const attempts = d.attempts + 1;
    const ok = result.error === null;
    const next = ok ? null : nextAttemptAfter(attempts, at);
    const status = ok ? 'succeeded' : next ? 'pending' : 'failed';
    await rawQuery(
      this.deps.db.em(),
      `update webhook_deliveries set status = ?, attempts = ?, next_attempt_at = ?::timestamptz, locked_until = null,
              last_attempt_at = ?::timestamptz, response_status = ?, last_error = ?
        where id = ? and locked_until = ?::timestamptz`,
      [status, attempts, next?.toISOString() ?? null, at.toISOString(), result.status, result.error, d.id, lease.toISOString()]
    );
    if (!ok)
      this.deps.logger.info(
        {
          deliveryId: d.id,
          subscriptionId: d.subscriptionId,
          attempts,
          status,
          responseStatus: result.status,
        },
        'webhook delivery attempt failed'
      );
  }

  private async deliver(d: Claimed, lease: Date): Promise<void> {
    const body = JSON.stringify(d.payload);
    const timestamp = Math.floor((this.deps.wallClock?.() ?? new Date()).getTime() / 1000);
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'Gradual-Webhooks/1',
      'webhook-id': d.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signature(d.secret, d.id, timestamp, body),
    };
    const result = await post(d.url, body, headers, this.agents, this.deps.settings.timeoutMs);
    await this.record(d, lease, result, this.deps.clock.now());
  }

  private async cleanup(now: Date): Promise<void> {
    // Once an hour of service time is enough for a 30-day retention.
    if (now.getTime() - this.lastCleanup < 3_600_000) return;
    this.lastCleanup = now.getTime();
    const before = new Date(now.getTime() - DELIVERY_RETENTION_DAYS * 86_400_000);
    await rawQuery(this.deps.db.em(), `delete from webhook_deliveries where created_at < ?::timestamptz`, [before.toISOString()]);
  }

  /** Delivers everything due now, batch by batch; answers how many attempts were made. */
  async runOnce(): Promise<number> {
    const now = this.deps.clock.now();
    await this.cleanup(now);
    let attempts = 0;
    for (;;) {
      const lease = new Date(this.deps.clock.now().getTime() + this.leaseMs);
      const claimed = await this.claim(now, lease, WORKER_BATCH);
      if (!claimed.length) return attempts;
      attempts += claimed.length;
      const bySubscription = new Map<string, Claimed[]>();
      for (const d of claimed) bySubscription.set(d.subscriptionId, [...(bySubscription.get(d.subscriptionId) ?? []), d]);
      const queues = [...bySubscription.values()];
      const lanes = Array.from({ length: Math.min(PARALLEL_SUBSCRIPTIONS, queues.length) }, async () => {
        for (let queue = queues.shift(); queue; queue = queues.shift()) {
          for (const d of queue) await this.deliver(d, lease);
        }
      });
      await Promise.all(lanes);
      if (claimed.length < WORKER_BATCH) return attempts;
    }
  }

  /** One pass now, or the pass already in progress. */
  tick(): Promise<unknown> {
    if (this.running) return this.running;
    this.running = this.runOnce()
      .catch((err: unknown) => this.deps.logger.error({ err }, 'webhook delivery pass failed; the next one retries'))
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  start(intervalMs: number): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), intervalMs);
    this.timer.unref();
  }

  /** Stops the interval and waits for the pass in progress; its leases are released as it finishes. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
