import type { AddressInfo } from 'node:net';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { DatabaseUnavailableError } from '../db/statement-pool.js';
import { errorHandler } from './errors.js';

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
