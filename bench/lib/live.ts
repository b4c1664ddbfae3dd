/**
 * Helpers for the benchmarks that watch a streaming live client (`propagation`,
 * `rollback-fire`) and that load the server with concurrent raw HTTP requests.
 */
import { Agent, request } from 'node:http';
import { createFlagClient, type FlagClient } from '@gradual/sdk';
import type { RulesetRollout } from '@gradual/sdk/evaluation';
import type { TestServer } from '../../tests/support/server.js';
import type { Tenant } from './instance.js';

/** A streaming live client on the tenant's first environment, ready (first ruleset held). */
export async function streamingClient(t: TestServer, tenant: Tenant, envId: string): Promise<FlagClient> {
  const key = await tenant.owner.createApiKey({ path: { slug: tenant.orgSlug }, body: { name: `stream-${envId.slice(0, 8)}`, actions: ['read'], rateLimitPerMin: 100_000 } });
  const client = createFlagClient({ baseUrl: t.url, token: key.token, envId, mode: 'stream', logger: null });
  await client.waitForReady({ timeoutMs: 10_000 });
  return client;
}

/** The rollout of `key` in the client's held ruleset (null: none or no such key). */
export function heldRollout(client: FlagClient, key: string): RulesetRollout | null {
  return client.ruleset()?.primitives.find((p) => p.key === key)?.rollout ?? null;
}

/**
 * Resolves with performance.now() at the first moment `ok()` holds: at once if it already
 * does, else at the change event that makes it hold. Rejects after `timeoutMs`.
 */
export function whenClientSees(client: FlagClient, ok: () => boolean, what: string, timeoutMs = 10_000): Promise<number> {
  if (ok()) return Promise.resolve(performance.now());
  return new Promise((resolve, reject) => {
    const off = client.on('change', () => {
      if (!ok()) return;
      const at = performance.now();
      clearTimeout(timer);
      off();
      resolve(at);
    });
    const timer = setTimeout(() => {
      off();
      reject(new Error(`the streaming client did not see ${what} within ${timeoutMs} ms (holds version ${String(client.version)}, status ${client.status})`));
    }, timeoutMs);
  });
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface RawResponse {
  status: number;
  body: string;
}

/**
 * A minimal keep-alive HTTP client over node:http (no dependency, every answer's body read
 * and returned so callers verify it). `maxSockets` bounds the connections.
 */
export function rawHttp(baseUrl: string, maxSockets: number) {
  const agent = new Agent({ keepAlive: true, maxSockets });
  const u = new URL(baseUrl);
  const send = (method: string, path: string, headers: Record<string, string> = {}, body?: string) =>
    new Promise<RawResponse>((resolve, reject) => {
      const req = request(
        { agent, host: u.hostname, port: u.port, method, path, headers: body !== undefined ? { ...headers, 'content-length': String(Buffer.byteLength(body)) } : headers },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  return { send, close: () => agent.destroy() };
}

/**
 * Runs `total` calls of `one(k)` with at most `concurrency` in flight; returns each call's
 * latency (ms, in completion order) and the wall time of the whole batch.
 */
export async function concurrently(total: number, concurrency: number, one: (k: number) => Promise<void>): Promise<{ latencies: number[]; wallMs: number }> {
  const latencies: number[] = [];
  let next = 0;
  const start = performance.now();
  const worker = async () => {
    for (;;) {
      const k = next++;
      if (k >= total) return;
      const t0 = performance.now();
      await one(k);
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  return { latencies, wallMs: performance.now() - start };
}
