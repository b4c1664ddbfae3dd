import type { RequestHandler } from 'express';
import { DomainError } from '../domain/errors.js';
import { sendError } from './errors.js';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Session-authenticated mutations must come from our own origin (or carry no
 * Origin at all, as non-browser clients do). Bearer requests are exempt: a
 * browser never attaches an API key by itself.
 */
export function originCheck(publicUrl: string): RequestHandler {
  const allowed = new URL(publicUrl).origin;
  return (req, res, next) => {
    if (SAFE.has(req.method) || req.headers.authorization) return next();
    const origin = req.headers.origin;
    if (!origin || origin === allowed || !req.headers.cookie) return next();
    sendError(req, res, new DomainError('forbidden', `Cross-origin request from ${origin} refused.`));
  };
}
