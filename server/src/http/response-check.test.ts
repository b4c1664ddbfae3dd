import type { AddressInfo } from 'node:net';
import express from 'express';
import { contract } from '@gradual/contract';
import { describe, expect, it } from 'vitest';
import { responseCheck, responseProblem } from './response-check.js';

const getOrg = contract.orgs.getOrg;
const org = { id: '3f1c1f0e-8a43-4f6e-9b1a-2c8a5d8f4b10', slug: 'acme', name: 'Acme', createdAt: '2026-11-22T12:00:00.000Z' };

describe('responseProblem: a body is what the contract says, exactly', () => {
  it.each([
    ['the declared body', 200, org, null],
    ['a member the contract does not know', 200, { ...org, plan: 'pro' }, 'the body has members the contract does not describe'],
    ['a missing member', 200, { id: org.id, slug: 'acme', createdAt: org.createdAt }, 'name: Required'],
    ['a mistyped member', 200, { ...org, createdAt: 12 }, 'createdAt: Expected string, received number'],
    ['a declared error status with the envelope', 404, { code: 'not_found', message: 'No org.', requestId: 'r1' }, null],
    ['an undeclared error status with the envelope', 429, { code: 'token_rate_limit', message: 'Slow down.', requestId: 'r1' }, null],
    ['an error status without the envelope', 500, { error: 'boom' }, 'code: Required; message: Required; requestId: Required'],
    ['an error status neither the route nor openapi.yaml lists', 409, { code: 'conflict', message: 'No.', requestId: 'r1' }, 'status 409 is not in the contract'],
    ['a body-less route has no 413', 413, { code: 'invalid_request', message: 'Too big.', requestId: 'r1' }, 'status 413 is not in the contract'],
    ['an undeclared success status', 201, org, 'status 201 is not in the contract'],
  ])('%s', (_name, status, body, problem) => {
    expect(responseProblem(getOrg, status, body)).toBe(problem);
  });

  it('the statuses openapi.yaml adds to a route: 413 and 415 with a JSON body, 429 with credentials, 403 when sign-in only', () => {
    const envelope = { code: 'invalid_request', message: 'No.', requestId: 'r1' };
    const createProject = contract.projects.createProject;
    expect(responseProblem(createProject, 413, envelope)).toBeNull();
    expect(responseProblem(createProject, 415, envelope)).toBeNull();
    expect(responseProblem(createProject, 429, envelope)).toBeNull();
    expect(responseProblem(contract.auth.claimInstall, 429, envelope)).toBe('status 429 is not in the contract');
  });

  it('no body where the contract has none', () => {
    const getRollout = contract.flagRollouts.getFlagRollout;
    expect(responseProblem(getRollout, 304, undefined)).toBeNull();
    expect(responseProblem(getRollout, 304, {})).toBe('status 304 has no body in the contract');
  });
});

describe('responseCheck', () => {
  it('lets a conforming answer through and turns a drifting one into a 500 that names the route', async () => {
    const app = express();
    app.use('/api', responseCheck());
    let answer: unknown = org;
    app.get(getOrg.path, (_req, res) => {
      res.json(answer);
    });
    const errors: string[] = [];
    app.use((err: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      errors.push(err.message);
      res.status(500).json({ code: 'internal', message: 'Internal error.', requestId: 'r1' });
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/orgs/acme`;
    try {
      expect((await fetch(url)).status).toBe(200);
      answer = { ...org, plan: 'pro' };
      const drifted = await fetch(url);
      expect(drifted.status).toBe(500);
      expect(errors).toEqual(['response of GET /api/v1/orgs/:slug breaks the contract (200): the body has members the contract does not describe']);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
