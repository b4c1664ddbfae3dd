import type { AddressInfo } from 'node:net';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { errorCatalog, type ErrorCode } from '@gradual/contract';
import { DatabaseUnavailableError } from '../db/statement-pool.js';
import { DomainError } from '../domain/errors.js';
import { errorHandler, httpAnswerOf } from './errors.js';

describe('httpAnswerOf', () => {
  it("answers every catalog code with the catalog's status and no header when the error states no fact", () => {
    for (const code of Object.keys(errorCatalog) as ErrorCode[]) {
      expect(httpAnswerOf(new DomainError(code, 'x')), code).toEqual({ status: errorCatalog[code], headers: [] });
    }
  });

  it.each<[string, DomainError, number, [string, string][]]>([
    ['a plan with too many steps', new DomainError('rollout_plan_invalid_ramp', 'x', { fields: { rampSteps: 'x' } }), 400, []],
    ['advancing past the final step', new DomainError('rollout_already_at_final_step', 'x'), 409, []],
    ['an empty API-key bucket', new DomainError('token_rate_limit', 'x', { retryAfterSeconds: 20 }), 429, [['Retry-After', '20']]],
    ['too many rollback fires', new DomainError('rollback_rate_limited', 'x', { retryAfterSeconds: 7 }), 429, [['Retry-After', '7']]],
    ['a ruleset not built yet', new DomainError('ruleset_not_cached', 'x', { retryAfterSeconds: 1 }), 503, [['Retry-After', '1']]],
    ['an unavailable database', new DomainError('service_unavailable', 'x', { retryAfterSeconds: 1 }), 503, [['Retry-After', '1']]],
    ['a stream refused while shutting down', new DomainError('service_unavailable', 'x', { retryAfterSeconds: 1, closeConnection: true }), 503, [['Retry-After', '1'], ['Connection', 'close']]],
    ['a body over the parser limit', new DomainError('invalid_request', 'x', { bodyRefused: 'too_large' }), 413, []],
    ['a body in an unknown encoding', new DomainError('invalid_request', 'x', { bodyRefused: 'unsupported_encoding' }), 415, []],
    ['a rollback fire body left unread', new DomainError('invalid_request', 'x', { closeConnection: true }), 400, [['Connection', 'close']]],
  ])('answers %s', (_what, err, status, headers) => {
    expect(httpAnswerOf(err)).toEqual({ status, headers });
  });
});

describe('errorHandler', () => {
  it('answers a statement the embedded statement pool could not run, and a write still in conflict after its retries, with the 503 envelope; anything unknown with 500', async () => {
    const app = express();
    app.get('/unavailable', (_req, _res, next) => next(new DatabaseUnavailableError(new Error('Query read timeout'))));
    app.get('/bug', (_req, _res, next) => next(new Error('boom')));
    app.get('/conflict', (_req, _res, next) => next(Object.assign(new Error('deadlock detected'), { code: '40P01' })));
    app.use(errorHandler);
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const unavailable = await fetch(`${base}/unavailable`);
      expect(unavailable.status).toBe(503);
      expect(unavailable.headers.get('retry-after')).toBe('1');
      expect(await unavailable.json()).toMatchObject({ code: 'service_unavailable' });
      // A write still deadlocked after its retries (db/transaction.ts) committed nothing: retry later.
      const conflict = await fetch(`${base}/conflict`);
      expect(conflict.status).toBe(503);
      expect(conflict.headers.get('retry-after')).toBe('1');
      expect(await conflict.json()).toMatchObject({ code: 'service_unavailable' });
      const bug = await fetch(`${base}/bug`);
      expect(bug.status).toBe(500);
      expect(await bug.json()).toMatchObject({ code: 'internal' });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('errorHandler on the OFREP evaluation routes', () => {
  it('answers in the protocol’s shape: PARSE_ERROR, INVALID_CONTEXT, FLAG_NOT_FOUND and a 500 with errorDetails; 401 and 429 keep the envelope', async () => {
    const app = express();
    app.use(express.json());
    const ofrep = '/api/v1/ofrep/v1/evaluate/flags';
    app.post(`${ofrep}/bug`, (_req, _res, next) => next(new Error('boom')));
    app.post(`${ofrep}/gone`, (_req, _res, next) => next(new DomainError('not_found', 'Not found.')));
    app.post(`${ofrep}/:key`, (_req, _res, next) => next(new DomainError('invalid_request', 'x', { fields: { context: 'Expected object, received string' } })));
    app.post(ofrep, (req, _res, next) =>
      next(req.headers.authorization ? new DomainError('token_rate_limit', 'Slow down.', { retryAfterSeconds: 3 }) : new DomainError('unauthorized', 'Send an API key.')),
    );
    app.post('/api/v1/envs/e/evaluate', (_req, _res, next) => next(new Error('boom')));
    app.use(errorHandler);
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const post = async (path: string, body = '{}', headers: Record<string, string> = {}) => {
      const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
      return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Record<string, unknown> };
    };
    try {
      expect(await post(`${ofrep}/my%20flag`, '{"context":')).toMatchObject({ status: 400, body: { key: 'my flag', errorCode: 'PARSE_ERROR' } });
      expect(await post(ofrep, '{"context":')).toEqual({ status: 400, retryAfter: null, body: { errorCode: 'PARSE_ERROR', errorDetails: expect.any(String) } });
      expect(await post(`${ofrep}/checkout`)).toEqual({
        status: 400,
        retryAfter: null,
        body: { key: 'checkout', errorCode: 'INVALID_CONTEXT', errorDetails: 'context: Expected object, received string' },
      });
      expect(await post(`${ofrep}/gone`)).toMatchObject({ status: 404, body: { key: 'gone', errorCode: 'FLAG_NOT_FOUND' } });
      expect(await post(`${ofrep}/bug`)).toEqual({ status: 500, retryAfter: null, body: { errorDetails: 'Internal server error.' } });
      expect(await post(ofrep)).toMatchObject({ status: 401, body: { code: 'unauthorized', message: 'Send an API key.' } });
      expect(await post(ofrep, '{}', { authorization: 'Bearer x' })).toMatchObject({ status: 429, retryAfter: '3', body: { code: 'token_rate_limit' } });
      // Other routes keep the envelope.
      expect(await post('/api/v1/envs/e/evaluate')).toMatchObject({ status: 500, body: { code: 'internal' } });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
