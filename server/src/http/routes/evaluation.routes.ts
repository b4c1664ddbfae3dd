import { Readable } from 'node:stream';
import { initServer } from '@ts-rest/express';
import { contract } from '@gradual/contract';
import { admit } from '../admission.js';
import type { AppDeps } from '../../deps.js';
import { authorize } from '../../features/access/authorize.js';
import { findEnvironment } from '../../features/common/lookup.js';
import { DomainError } from '../../domain/errors.js';
import { currentRuleset, evaluateContext } from '../../features/evaluation/evaluation.service.js';
import { ifNoneMatchHits } from '../../features/evaluation/ruleset.cache.js';

const s = initServer();

export const evaluationRoutes = (deps: AppDeps) =>
  s.router(contract.evaluation, {
    getRuleset: async ({ req, res, params }) => {
      const entry = await currentRuleset(req.em, await admit(req, res, deps), deps, params.envId);
      const gzip = req.acceptsEncodings('gzip', 'identity') === 'gzip';
      // The same headers as the fast path's 304 (http/fast-paths.ts).
      res.setHeader('Vary', 'Accept-Encoding');
      res.setHeader('Cache-Control', 'no-cache');
      res.setHeader('ETag', gzip ? entry.gzipEtag : entry.etag);
      const ifNoneMatch = req.headers['if-none-match'];
      if (ifNoneMatch && ifNoneMatchHits(ifNoneMatch, entry)) {
        return { status: 304, body: undefined };
      }
      const bytes = gzip ? entry.gzip : entry.json;
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.setHeader('Content-Length', String(bytes.length));
      if (gzip) res.setHeader('Content-Encoding', 'gzip');
      // A stream body makes ts-rest send these exact bytes (cached JSON or its gzip).
      return { status: 200, body: Readable.from([bytes]) };
    },
    streamRuleset: async ({ req, res, params }) => {
      if (deps.streams.closing) {
        // Shutting down: a reconnecting client must go to another instance (or retry here later).
        throw new DomainError('service_unavailable', 'This instance is shutting down.', { retryAfterSeconds: 1, closeConnection: true });
      }
      const caller = await admit(req, res, deps);
      const env = await findEnvironment(req.em, params.envId);
      await authorize(req.em, caller, env.orgId, { action: 'read', envId: env.id });
      res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
      res.setHeader('Cache-Control', 'no-cache, no-transform');
      res.setHeader('Connection', 'keep-alive');
      res.setHeader('X-Accel-Buffering', 'no');
      const stream = deps.streams.openStream(env.id, env.version, (close) => {
        req.on('close', close);
        res.on('close', close);
      });
      return { status: 200, body: stream };
    },
    evaluate: async ({ req, res, params, body }) => ({
      status: 200,
      body: (await evaluateContext(req.em, await admit(req, res, deps), deps, params.envId, body)).answer,
    }),
  });
