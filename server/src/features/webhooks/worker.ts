import { createHmac, randomInt } from 'node:crypto';
import { request as httpRequest, type Agent } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Logger } from 'pino';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/database.js';
import { WebhookDeliveryEntity, type WebhookDelivery } from '../../db/entities/index.js';
import { BoundRows, rawQuery } from '../common/sql.js';
import { deliveryAgents, type WebhookNetworkPolicy } from './url-policy.js';
import { dropOverCap, dropPendingOfDisabled } from './deliveries.store.js';
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
/**
 * Attempts in flight at once on one instance, across subscriptions. A subscription never has more
 * than one attempt in flight on all instances together (its deliveries go out in order).
 */
export const WORKER_CONCURRENCY = 16;
/**
 * Attempts in flight at once for one organization, on all instances together (about: two instances
 * claiming at the same moment may each take the last place), so that one organization's slow
 * receivers leave most of every instance's places to the others.
 */
export const ORG_IN_FLIGHT_MAX = 4;
/** A claim's lease outlives its attempt (cut at WEBHOOK_TIMEOUT_MS) by this much, room for recording it. */
export const LEASE_MARGIN_MS = 30_000;
/** How often (service time) the worker drops deliveries over the pending cap and those of disabled subscriptions. */
export const SWEEP_INTERVAL_MS = 10_000;
/** How much of an error answer's body lastError keeps. */
const ERROR_BODY_CHARS = 300;

export interface WebhookWorkerDeps {
  db: Database;
  /** The service clock: when deliveries are due, leases, the log's times. */
  clock: Clock;
  logger: Logger;
  settings: WebhookNetworkPolicy & { timeoutMs: number; maxPendingPerSubscription: number };
  /**
   * The `webhook-timestamp` header's clock. Receivers check it against their own clocks (Standard
   * Webhooks allows five minutes), so it is the real time of sending, not the service clock.
   */
  wallClock?: () => Date;
}

/** A claimed delivery, its lease, and where it goes: its subscription's URL and signing secret as they are now. */
interface Claimed {
  delivery: WebhookDelivery;
  url: string;
  secret: string;
  lease: Date;
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
    // The attempt ends at the timeout, whatever the socket does next.
    const timer = setTimeout(() => {
      const message = `no complete answer within ${timeoutMs} ms`;
      done({ status: null, error: message });
      req.destroy(new Error(message));
    }, timeoutMs);
    req.on('error', (err) => done({ status: null, error: err.message }));
    req.end(body);
  });
}

/**
 * The delivery worker: per-subscription lanes, fair across subscriptions and organizations.
 *
 * - A claim takes the due head of each idle subscription's queue (oldest due first), locking the
 *   subscription rows `FOR NO KEY UPDATE SKIP LOCKED`, so several instances share the work and a
 *   subscription has at most one attempt in flight on all of them: its deliveries go out in order,
 *   and a slow receiver holds one place, never another subscription's delivery.
 * - Each claim leases its one delivery for the attempt's timeout plus LEASE_MARGIN_MS, and the
 *   attempt is cut at the timeout: a lease outlives its attempt, so no other instance sends the
 *   delivery meanwhile. A lease left by a crashed instance expires and the delivery is claimed again.
 * - Up to WORKER_CONCURRENCY attempts run at once on an instance, ORG_IN_FLIGHT_MAX per
 *   organization; a place freed is claimed again at once, without waiting for the others.
 * - Each attempt reads the subscription as it is: its current URL and secret; a disabled
 *   subscription sends only test events.
 *
 * Never runs inside a request.
 */
export class WebhookWorker {
  private timer: NodeJS.Timeout | null = null;
  /** The drain in progress: it ends when nothing is in flight and nothing more is due. */
  private loop: Promise<void> | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  private stopping = false;
  /** Set by wake(): something finished or time moved, so the drain claims again before it waits or ends. */
  private woken = false;
  private wakeUp: (() => void) | null = null;
  private readonly agents: { http: Agent; https: Agent };
  private lastCleanup = Number.NEGATIVE_INFINITY;
  private lastSweep = Number.NEGATIVE_INFINITY;

  constructor(private readonly deps: WebhookWorkerDeps) {
    this.agents = deliveryAgents(deps.settings);
  }

  /** An attempt's lease: its timeout and room for recording it. */
  private get leaseMs() {
    return this.deps.settings.timeoutMs + LEASE_MARGIN_MS;
  }

  /**
   * Claims the due heads of up to `limit` idle subscriptions (ORG_IN_FLIGHT_MAX per organization,
   * counting what is in flight everywhere), each leased until its attempt's end plus the margin.
   */
  private async claim(limit: number): Promise<Claimed[]> {
    const em = this.deps.db.em();
    const rows = BoundRows.of<WebhookDelivery>(em, WebhookDeliveryEntity.meta.className);
    return transaction(em, async (tx) => {
      const now = this.deps.clock.now();
      const at = now.toISOString();
      const lease = new Date(now.getTime() + this.leaseMs);
      // The head of each queue whose subscription has nothing in flight (a queue's other deliveries
      // wait behind it), at most as many per organization as it has places left, oldest due first.
      const { rows: heads } = await rawQuery<{ id: string }>(
        tx,
        `with busy as (
           select s.org_id, count(*) as n
             from webhook_deliveries d join webhook_subscriptions s on s.id = d.subscription_id
            where d.status = 'pending' and d.locked_until is not null and d.locked_until > ?::timestamptz
            group by s.org_id),
         heads as (
           select s.id as subscription_id, s.org_id, h.id, h.next_attempt_at
             from webhook_subscriptions s
             cross join lateral (
               select d.id, d.next_attempt_at from webhook_deliveries d
                where d.subscription_id = s.id and d.status = 'pending' and d.next_attempt_at <= ?::timestamptz
                  and (s.enabled or d.event_type = 'webhook.test')
                order by d.next_attempt_at, d.id limit 1) h
            where not exists (
               select 1 from webhook_deliveries b
                where b.subscription_id = s.id and b.status = 'pending' and b.locked_until is not null and b.locked_until > ?::timestamptz)),
         ranked as (
           select h.*, row_number() over (partition by h.org_id order by h.next_attempt_at, h.id) as rank from heads h)
         select r.id
           from webhook_subscriptions s
           join ranked r on r.subscription_id = s.id
           left join busy b on b.org_id = r.org_id
          where r.rank + coalesce(b.n, 0) <= ?
          order by r.next_attempt_at, r.id
          limit ?
          for no key update of s skip locked`,
        [at, at, at, ORG_IN_FLIGHT_MAX, limit]
      );
      if (!heads.length) return [];
      // The conditions again: a delivery another instance claimed or finished meanwhile is not taken.
      const { rows: claimed } = await rawQuery<Record<string, unknown> & { target_url: string; secret: string }>(
        tx,
        `update webhook_deliveries x set locked_until = ?::timestamptz
           from webhook_subscriptions s
          where x.id = any(?::text[]) and s.id = x.subscription_id and x.status = 'pending'
            and (x.locked_until is null or x.locked_until <= ?::timestamptz)
         returning ${rows.selectList}, s.url as target_url, s.secret`,
        [lease.toISOString(), heads.map((h) => h.id), at]
      );
      return claimed.map((row) => ({ delivery: rows.fromRow(row), url: row.target_url, secret: row.secret, lease }));
    });
  }

  /** Records one attempt, unless the lease was lost meanwhile (the delivery was dropped or another worker owns it). */
  private async record(c: Claimed, result: AttemptResult, at: Date): Promise<void> {
    const d = c.delivery;
    const attempts = d.attempts + 1;
    const ok = result.error === null;
    const next = ok ? null : nextAttemptAfter(attempts, at);
    const status = ok ? 'succeeded' : next ? 'pending' : 'failed';
    const { rowCount } = await rawQuery(
      this.deps.db.em(),
      `update webhook_deliveries set status = ?, attempts = ?, next_attempt_at = ?::timestamptz, locked_until = null,
              last_attempt_at = ?::timestamptz, response_status = ?, last_error = ?
        where id = ? and status = 'pending' and locked_until = ?::timestamptz`,
      [status, attempts, next?.toISOString() ?? null, at.toISOString(), result.status, result.error, d.id, c.lease.toISOString()]
    );
    if (!rowCount) this.deps.logger.warn({ deliveryId: d.id, subscriptionId: d.subscriptionId }, 'webhook delivery lease lost before the attempt was recorded');
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

  private async deliver(c: Claimed): Promise<void> {
    const d = c.delivery;
    const body = JSON.stringify(d.payload);
    const timestamp = Math.floor((this.deps.wallClock?.() ?? new Date()).getTime() / 1000);
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'Gradual-Webhooks/1',
      'webhook-id': d.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signature(c.secret, d.id, timestamp, body),
    };
    const result = await post(c.url, body, headers, this.agents, this.deps.settings.timeoutMs);
    await this.record(c, result, this.deps.clock.now());
  }

  /** Starts one attempt in a free place; the drain is woken when it ends. */
  private launch(c: Claimed): void {
    const attempt: Promise<void> = this.deliver(c)
      .catch((err: unknown) => this.deps.logger.error({ err, deliveryId: c.delivery.id }, 'webhook delivery attempt could not be recorded; retried when its lease expires'))
      .finally(() => {
        this.inFlight.delete(attempt);
        this.wake();
      });
    this.inFlight.add(attempt);
  }

  /**
   * The retention (hourly) and the sweep (every SWEEP_INTERVAL_MS): the oldest deliveries beyond
   * the pending cap, and the pending deliveries of disabled subscriptions, are dropped.
   */
  private async maintain(now: Date): Promise<void> {
    const em = this.deps.db.em();
    if (now.getTime() - this.lastCleanup >= 3_600_000) {
      this.lastCleanup = now.getTime();
      const before = new Date(now.getTime() - DELIVERY_RETENTION_DAYS * 86_400_000);
      await rawQuery(em, `delete from webhook_deliveries where created_at < ?::timestamptz`, [before.toISOString()]);
    }
    if (now.getTime() - this.lastSweep >= SWEEP_INTERVAL_MS) {
      this.lastSweep = now.getTime();
      const overCap = await dropOverCap(em, now, this.deps.settings.maxPendingPerSubscription);
      const disabled = await dropPendingOfDisabled(em, now);
      if (overCap || disabled) this.deps.logger.info({ overCap, disabled }, 'webhook deliveries dropped');
    }
  }

  private wake(): void {
    this.woken = true;
    const wakeUp = this.wakeUp;
    this.wakeUp = null;
    wakeUp?.();
  }

  private nextWake(): Promise<void> {
    if (this.woken) return Promise.resolve();
    return new Promise((resolve) => {
      this.wakeUp = resolve;
    });
  }

  /** Claims into free places and waits for attempts, until nothing is in flight and nothing more is due. */
  private async drain(): Promise<void> {
    try {
      for (;;) {
        this.woken = false;
        if (!this.stopping) {
          try {
            await this.maintain(this.deps.clock.now());
            const free = WORKER_CONCURRENCY - this.inFlight.size;
            if (free > 0) for (const c of await this.claim(free)) this.launch(c);
          } catch (err) {
            this.deps.logger.error({ err }, 'webhook delivery claim failed; the next pass retries');
            if (!this.inFlight.size) return;
          }
        }
        // Ends only when nothing woke it since this round began: an attempt that ended or a tick
        // meanwhile may have made more due.
        if (!this.inFlight.size && !this.woken) return;
        if (this.inFlight.size) await this.nextWake();
      }
    } finally {
      this.loop = null;
    }
  }

  /**
   * Claims what is due now into free places; answers when nothing is in flight and nothing more
   * is due (the drain in progress, which this wakes, or a new one).
   */
  tick(): Promise<void> {
    if (this.stopping) return this.loop ?? Promise.resolve();
    this.wake();
    this.loop ??= this.drain();
    return this.loop;
  }

  start(intervalMs: number): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), intervalMs);
    this.timer.unref();
  }

  /** Stops the interval and claims no more; waits for the attempts in flight, each recorded as it ends. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.stopping = true;
    this.wake();
    await this.loop;
  }
}
