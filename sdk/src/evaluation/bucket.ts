/**
 * Percentage bucketing (docs/bucketing.md), identical in the SDK, the server and any
 * future SDK:
 *
 *     input    = UTF-8 bytes of  seed + ":" + id
 *     h        = MurmurHash3_x86_32(input, seed 0)   // unsigned 32-bit
 *     bucket   = (h / 4294967296) * 100              // a number in [0, 100)
 *     admitted = bucket < percent
 *
 * The arithmetic is written in exactly that order so the floating-point result
 * is bit-identical to the reference vectors (`sdk/fixtures/bucketing.json`).
 * Raising the percent only ever adds contexts: `bucket` does not depend on the
 * percent, and `b < p1` implies `b < p2` for `p1 <= p2`.
 */
import { murmur3, murmur3Prefix, murmur3WithPrefix } from './murmur3.js';

const TWO_POW_32 = 4294967296;

/** The bucket, in [0, 100), of `id` under `seed`. */
export function bucket(seed: string, id: string): number {
  return (murmur3(seed + ':' + id) / TWO_POW_32) * 100;
}

/** Whether a context in `bucketValue` is admitted at `percent` (0 admits nobody, 100 everybody). */
export function isAdmitted(bucketValue: number, percent: number): boolean {
  return bucketValue < percent;
}

/**
 * A bucket function for one seed with the `seed + ':'` prefix hashed once:
 * `createBucketer(seed)(id) === bucket(seed, id)` for every id, without
 * string concatenation on each call.
 */
export function createBucketer(seed: string): (id: string) => number {
  const prefix = murmur3Prefix(seed + ':');
  return (id: string): number => (murmur3WithPrefix(prefix, id) / TWO_POW_32) * 100;
}
