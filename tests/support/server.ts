import { createClient, type GradualClient } from '@gradual/sdk';
import { pino, type Logger } from 'pino';
import { inject } from 'vitest';
import { loadConfig } from '../../server/src/config.js';
import type { DatabaseOptions } from '../../server/src/db/database.js';
import { startServer, type RunningServer } from '../../server/src/server.js';
import { createTestDatabase } from './database.js';
import { startPrismProxy, type PrismProxy } from './prism.js';

export interface TestServer {
  server: RunningServer;
  /** How to reach this server's database (PostgreSQL: the same database; embedded: a copy). */
  databaseOptions: DatabaseOptions;
  /**
   * Where tests send requests: the server, or with `GRADUAL_TEST_VIA_PRISM=1`
   * the Prism validating proxy in front of it (`server.url` stays the server;
   * see startPrismProxy). Then `close()` fails with every response that broke
   * the contract (an `sl-violations` header), whether it came to an SDK
   * client or to a raw fetch.
   */
  url: string;
  /** An SDK client with no credentials. */
  anonymous: GradualClient;
  /** An SDK client signed in with a session token. */
  asSession(sessionToken: string): GradualClient;
  /** An SDK client using an API key. */
  asToken(token: string): GradualClient;
  /** Moves the server's clock (POST /__test__/clock); each move runs one scheduler tick. */
  advanceClock(seconds: number): Promise<Date>;
  /** Pins the server's clock at an instant (and runs one scheduler tick). */
  setClock(at: string | Date): Promise<Date>;
  close(): Promise<void>;
}

export interface StartOptions {
  logger?: Logger;
  /**
   * Requests go to the server itself even with `GRADUAL_TEST_VIA_PRISM=1`: for tests of what a
   * proxy in front would change (Prism answers CORS preflights itself and adds headers) or time.
   */
  direct?: boolean;
}

/**
 * A real server on a real, fresh database, listening on a random port, with
 * the settable test clock. Tests talk to it only through the generated SDK.
 */
export async function startTestServer(env: Record<string, string> = {}, opts: StartOptions = {}): Promise<TestServer> {
  const database = await createTestDatabase();
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    SERVICE_TEST_CLOCK: '1',
    // Every JSON answer is checked against the contract: a handler that drifts fails its test with a 500.
    SERVICE_CHECK_RESPONSES: '1',
    LOG_LEVEL: 'silent',
    NODE_ENV: 'test',
    ...env,
  });
  const server = await startServer({ config, db: database.db, logger: opts.logger ?? pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }) });
  let prism: PrismProxy | undefined;
  if (process.env.GRADUAL_TEST_VIA_PRISM === '1' && !opts.direct) {
    prism = await startPrismProxy(server.url, { shared: sharedPrism() }).catch(async (err: unknown) => {
      await server.close();
      await database.cleanup();
      throw err;
    });
  }
  const client = (opts: { token?: string; sessionToken?: string }) => createClient({ baseUrl: prism?.url ?? server.url, ...opts });
  return {
    server,
    databaseOptions: database.options,
    url: prism?.url ?? server.url,
    anonymous: client({}),
    asSession: (sessionToken) => client({ sessionToken }),
    asToken: (token) => client({ token }),
    advanceClock: (seconds) => moveClock(server.url, { advanceSeconds: seconds }),
    setClock: (at) => moveClock(server.url, { now: new Date(at).toISOString() }),
    close: async () => {
      await prism?.close();
      await server.close();
      await database.cleanup();
      const violations = prism?.violations() ?? [];
      if (violations.length > 0) throw new Error(`Prism found contract violations:\n${violations.map((v) => `  - ${v}`).join('\n')}`);
    },
  };
}

/** The run's shared Prism (global-setup.ts), or undefined outside vitest: then each proxy starts its own. */
function sharedPrism(): string | undefined {
  try {
    return inject('gradualPrism');
  } catch {
    return undefined;
  }
}

async function moveClock(url: string, body: object): Promise<Date> {
  const res = await fetch(`${url}/__test__/clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`clock move failed: ${res.status} ${await res.text()}`);
  return new Date(((await res.json()) as { now: string }).now);
}

/** The svc_session token from a Set-Cookie header. */
export function sessionTokenFrom(response: Response): string {
  const cookie = response.headers.get('set-cookie') ?? '';
  const match = /svc_session=([^;]+)/.exec(cookie);
  if (!match) throw new Error(`no svc_session cookie in: ${cookie}`);
  return decodeURIComponent(match[1]!);
}

export interface ClaimedInstance {
  session: GradualClient;
  sessionToken: string;
  orgSlug: string;
  userId: string;
}

/** Claims a fresh instance as its first owner. */
export async function claim(t: TestServer, overrides: Partial<{ email: string; orgSlug: string; orgName: string }> = {}): Promise<ClaimedInstance> {
  const { data, response } = await t.anonymous.withResponse.claimInstall({
    body: {
      email: overrides.email ?? 'owner@example.com',
      displayName: 'Olive Owner',
      orgName: overrides.orgName ?? 'Acme',
      orgSlug: overrides.orgSlug ?? 'acme',
    },
  });
  const sessionToken = sessionTokenFrom(response);
  return { session: t.asSession(sessionToken), sessionToken, orgSlug: data.organizations[0]!.slug, userId: data.user.id };
}

/** Expects `promise` to reject with a GradualApiError of this status and code; returns the error. */
export async function expectApiError(promise: Promise<unknown>, status: number, code: string) {
  try {
    await promise;
  } catch (err) {
    const e = err as { status?: number; code?: string; requestId?: string; fields?: Record<string, string> };
    if (e.status !== status || e.code !== code) {
      throw new Error(`expected ${status} ${code}, got ${e.status} ${e.code}: ${(err as Error).message}`);
    }
    if (!e.requestId) throw new Error('error envelope without requestId');
    return e as { status: number; code: string; requestId: string; fields?: Record<string, string>; details?: Record<string, unknown> };
  }
  throw new Error(`expected ${status} ${code}, but the call succeeded`);
}
