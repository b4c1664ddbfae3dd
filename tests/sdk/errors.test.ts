/**
 * `GradualApiError` from the typed client: the HTTP response is kept when there is one, and a
 * request that never got an answer (network error) keeps fetch's own error as `cause`; an answer
 * without an envelope gets its status's code; the class is recognized across copies of the SDK;
 * the client's options compile under `exactOptionalPropertyTypes`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { createClient, GradualApiError, isGradualApiError } from '@gradual/sdk';
import type * as Errors from '../../sdk/src/errors.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** A client whose every request is answered by `answer`. */
const answering = (answer: () => Response) => createClient({ baseUrl: 'http://gradual.test', token: 'svc_x', fetch: () => Promise.resolve(answer()) });

const envelope = { code: 'token_rate_limit', message: 'slow down', requestId: 'req-123', details: { retryAfterSeconds: 7 } };

describe('GradualApiError', () => {
  it('carries the response of a non-2xx answer', async () => {
    let sent: Response | undefined;
    const client = createClient({
      baseUrl: 'http://gradual.test',
      token: 'svc_x',
      fetch: () => {
        sent = new Response(JSON.stringify(envelope), { status: 429, headers: { 'content-type': 'application/json', 'retry-after': '7', 'x-request-id': 'req-123' } });
        return Promise.resolve(sent);
      },
    });
    const err = await client.getSession().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GradualApiError);
    const api = err as GradualApiError;
    expect(api.status).toBe(429);
    expect(api.code).toBe('token_rate_limit');
    expect(api.retryAfterSeconds).toBe(7);
    expect(api.response).toBe(sent);
    expect(api.response?.status).toBe(429);
    expect(api.response?.headers.get('x-request-id')).toBe('req-123');
    expect(api.cause).toBeUndefined();
  });

  it('keeps the error a custom fetch threw as cause', async () => {
    const boom = new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED') });
    const client = createClient({
      baseUrl: 'http://gradual.test',
      fetch: () => Promise.reject(boom),
    });
    const err = await client.getSession().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GradualApiError);
    const api = err as GradualApiError;
    expect(api.status).toBe(0);
    expect(api.code).toBe('service_unavailable');
    expect(api.response).toBeUndefined();
    expect(api.cause).toBe(boom);
    expect(api.message).toContain('fetch failed');
  });

  it('keeps a real network error (connection refused) as cause', async () => {
    // A port that was just free: nothing listens on it.
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const client = createClient({ baseUrl: `http://127.0.0.1:${port}` });
    const err = await client.getSession().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GradualApiError);
    const api = err as GradualApiError;
    expect(api.status).toBe(0);
    expect(api.response).toBeUndefined();
    expect(api.cause).toBeInstanceOf(TypeError);
    expect(String((api.cause as TypeError).cause)).toMatch(/ECONNREFUSED/);
  });

  it('takes the code from the status when the answer has no error envelope', async () => {
    const cases: Array<[number, string]> = [
      [400, 'invalid_request'],
      [401, 'unauthorized'],
      [403, 'forbidden'],
      [404, 'not_found'],
      [409, 'invalid_request'],
      [412, 'precondition_failed'],
      [429, 'token_rate_limit'],
      [500, 'internal'],
      [502, 'internal'],
      [503, 'service_unavailable'],
    ];
    for (const [status, code] of cases) {
      // Bodyless, as a proxy or load balancer answers.
      const bodyless = await answering(() => new Response(null, { status })).getSession().catch((e: unknown) => e);
      expect(bodyless, `bodyless ${status}`).toMatchObject({ status, code, message: `HTTP ${status}` });
      // JSON of another shape, and HTML: not an envelope either.
      const foreign = await answering(() => Response.json({ code: 17, error: 'denied' }, { status })).getSession().catch((e: unknown) => e);
      expect(foreign, `foreign JSON ${status}`).toMatchObject({ status, code });
      const html = await answering(() => new Response('<html>Bad gateway</html>', { status, headers: { 'content-type': 'text/html' } })).getSession().catch((e: unknown) => e);
      expect(html, `HTML ${status}`).toMatchObject({ status, code });
    }
    // The envelope's own code wins over the status's.
    const enveloped = await answering(() => Response.json({ code: 'insufficient_role', message: 'owners only', requestId: 'r-1' }, { status: 403 }))
      .getSession()
      .catch((e: unknown) => e);
    expect(enveloped).toMatchObject({ status: 403, code: 'insufficient_role', message: 'owners only', requestId: 'r-1' });
  });

  it('reads the X-RateLimit headers into rateLimit', async () => {
    const headers = { 'content-type': 'application/json', 'retry-after': '4', 'x-ratelimit-limit': '600', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '55' };
    const err = await answering(() => new Response(JSON.stringify(envelope), { status: 429, headers })).getSession().catch((e: unknown) => e);
    expect(err).toMatchObject({ retryAfterSeconds: 4, rateLimit: { limit: 600, remaining: 0, resetSeconds: 55 } });
    const partial = await answering(() => new Response(JSON.stringify(envelope), { status: 429, headers: { 'x-ratelimit-limit': '600' } })).getSession().catch((e: unknown) => e);
    expect(partial).toMatchObject({ rateLimit: undefined, retryAfterSeconds: undefined });
  });

  it('is recognized across two separately loaded copies of the SDK (ESM and CommonJS builds)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gradual-sdk-copies-'));
    try {
      const entry = join(root, 'sdk/src/errors.ts');
      await build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', outfile: join(dir, 'errors.mjs'), logLevel: 'silent' });
      await build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'cjs', outfile: join(dir, 'errors.cjs'), logLevel: 'silent' });
      type ErrorsModule = typeof Errors;
      const esm: ErrorsModule = await import(pathToFileURL(join(dir, 'errors.mjs')).href);
      const cjs: ErrorsModule = createRequire(import.meta.url)(join(dir, 'errors.cjs'));
      expect(esm.GradualApiError).not.toBe(cjs.GradualApiError);
      expect(esm.GradualApiError).not.toBe(GradualApiError);

      const fromEsm = new esm.GradualApiError(404, { code: 'not_found', message: 'gone' });
      const fromCjs = new cjs.GradualApiError(401, undefined);
      for (const err of [fromEsm, fromCjs]) {
        expect(err instanceof esm.GradualApiError).toBe(true);
        expect(err instanceof cjs.GradualApiError).toBe(true);
        expect(err instanceof GradualApiError).toBe(true);
        expect(err instanceof Error).toBe(true);
        expect(esm.isGradualApiError(err) && cjs.isGradualApiError(err) && isGradualApiError(err)).toBe(true);
      }
      expect(fromCjs.code).toBe('unauthorized');
      // Look-alikes are not: the brand is a symbol property, not a shape.
      const lookalike = Object.assign(new Error('x'), { name: 'GradualApiError', status: 404, code: 'not_found' });
      for (const notOne of [lookalike, new Error('x'), { status: 404, code: 'not_found' }, null, 'GradualApiError']) {
        expect(notOne instanceof GradualApiError || isGradualApiError(notOne) || cjs.isGradualApiError(notOne)).toBe(false);
      }
      // A subclass keeps ordinary instanceof semantics.
      class Narrower extends GradualApiError {}
      expect(new Narrower(404, undefined) instanceof GradualApiError).toBe(true);
      expect(new Narrower(404, undefined) instanceof Narrower).toBe(true);
      expect(fromEsm instanceof Narrower).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('takes ClientOptions from process.env under exactOptionalPropertyTypes', () => {
    const dir = mkdtempSync(join(root, 'tests/.tmp-exact-'));
    try {
      const file = join(dir, 'consumer.ts');
      writeFileSync(
        file,
        [
          "import { createClient, type ClientOptions } from '@gradual/sdk';",
          "export const client = createClient({ baseUrl: process.env.GRADUAL_URL ?? 'http://localhost:8080', token: process.env.GRADUAL_TOKEN });",
          'export const options: ClientOptions = { baseUrl: "x", sessionToken: process.env.GRADUAL_SESSION, fetch: undefined, headers: undefined };',
        ].join('\n'),
      );
      const program = ts.createProgram([file], {
        strict: true,
        exactOptionalPropertyTypes: true,
        noEmit: true,
        skipLibCheck: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        customConditions: ['@gradual/source'],
        lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
        types: ['node'],
        typeRoots: [join(root, 'node_modules/@types')],
      });
      // Only the consumer's own lines: the SDK's sources are compiled with the repository's settings.
      const source = program.getSourceFile(file)!;
      const problems = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      expect(problems).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
