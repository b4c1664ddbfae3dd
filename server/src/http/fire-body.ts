import express, { type RequestHandler } from 'express';
import { MAX_FIRE_BODY_BYTES } from '../features/rollback/fire.service.js';
import { lingeringClose } from './lingering-close.js';

declare global {
  namespace Express {
    interface Request {
      /** The rollback webhook's raw body (it is fingerprinted, then parsed leniently). */
      fireBody?: { bytes: Buffer; tooLarge: boolean };
    }
  }
}

const FIRE_PATH = /^\/api\/v1\/webhooks\/rollback\//;
const raw = express.raw({ type: () => true, limit: MAX_FIRE_BODY_BYTES });

/**
 * Reads rollback webhook bodies as raw bytes, up to 16 KiB. A declared
 * Content-Length over the limit is refused without reading the body (whatever
 * answers, the connection then closes lingeringly: lingering-close.ts); a
 * chunked body stops being read at the limit. Either way the fire still gets
 * a record (outcome error_invalid_request), so this marks instead of failing.
 */
export function fireBodyReader(): RequestHandler {
  return (req, res, next) => {
    if (req.method !== 'POST' || !FIRE_PATH.test(req.path)) return next();
    const skip = (tooLarge: boolean, bytes: Buffer = Buffer.alloc(0)) => {
      req.fireBody = { bytes, tooLarge };
      // Later body parsers skip a request marked as parsed; the contract sees no body.
      (req as { _body?: boolean })._body = true;
      req.body = undefined;
      next();
    };
    if (Number(req.headers['content-length'] ?? 0) > MAX_FIRE_BODY_BYTES) {
      lingeringClose(req, res);
      return skip(true);
    }
    raw(req, res, (err?: { type?: string }) => {
      if (err?.type === 'entity.too.large') return skip(true);
      if (err) return next(err);
      skip(false, Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));
    });
  };
}
