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
  it('answers a statement the embedded statement pool could not run with the 503 envelope, anything unknown with 500', async () => {
    const app = express();
    app.get('/unavailable', (_req, _res, next) => next(new DatabaseUnavailableError(new Error('Query read timeout'))));
    app.get('/bug', (_req, _res, next) => next(new Error('boom')));
    app.use(errorHandler);
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const unavailable = await fetch(`${base}/unavailable`);
      expect(unavailable.status).toBe(503);
      expect(unavailable.headers.get('retry-after')).toBe('1');
      expect(await unavailable.json()).toMatchObject({ code: 'service_unavailable' });
      const bug = await fetch(`${base}/bug`);
      expect(bug.status).toBe(500);
      expect(await bug.json()).toMatchObject({ code: 'internal' });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
