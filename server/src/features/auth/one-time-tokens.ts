import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { generateToken } from '../../domain/secrets.js';

/**
 * Magic-link and invitation tokens: 43 base62 characters (~256 bits), sent
 * by mail only; the database keeps their SHA-256 (domain/secrets.ts).
 */
export const ONE_TIME_TOKEN_LENGTH = 43;
const SHAPE = /^[A-Za-z0-9]{43}$/;

export const newOneTimeToken = () => generateToken('', ONE_TIME_TOKEN_LENGTH);

/** Anything else is not one of ours: answered without touching the database. */
export const isOneTimeTokenShaped = (token: string | undefined): token is string => !!token && SHAPE.test(token);

/**
 * Runs a transaction again when it lost a race on a unique key (two first
 * sign-ins creating the same user, two signups taking the same slug): the
 * retry sees the winner's row and takes the other branch. Bounded.
 */
export async function retryOnUniqueViolation<T>(fn: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (!(err instanceof UniqueConstraintViolationException) || attempt >= attempts) throw err;
    }
  }
}
