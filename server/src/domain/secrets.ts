import { hash, randomInt, timingSafeEqual } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `prefix` + `length` uniformly random base62 characters (crypto RNG, no modulo bias). */
export function generateToken(prefix: string, length = 32): string {
  let out = prefix;
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}

/** Secrets are stored as hex SHA-256 only. (One-shot `hash`: a third of createHash's cost, paid on every API-key request.) */
export function hashToken(token: string): string {
  return hash('sha256', token, 'hex');
}

/** Constant-time comparison of two hex digests. */
export function digestsEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}
