/** Small, exact statistics over raw samples (milliseconds). No sampling, no interpolation surprises. */

export interface Summary {
  n: number;
  median: number;
  p99: number;
  min: number;
  max: number;
  mean: number;
}

/** Nearest-rank percentile (p in 0..100) of `sorted` (ascending). */
export function percentile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export function median(values: readonly number[]): number {
  if (!values.length) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function summarize(samples: readonly number[]): Summary {
  const s = [...samples].sort((a, b) => a - b);
  return {
    n: s.length,
    median: median(s),
    p99: percentile(s, 99),
    min: s[0] ?? Number.NaN,
    max: s[s.length - 1] ?? Number.NaN,
    mean: s.reduce((a, b) => a + b, 0) / (s.length || 1),
  };
}

/** A ratio with its spread: `value` is the headline, lo–hi how far repeated measurements strayed. */
export interface Ratio {
  value: number;
  lo: number;
  hi: number;
  /** How lo/hi were obtained, for the reader. */
  spreadFrom: string;
}

export function ratioOf(value: number, parts: readonly number[], spreadFrom: string): Ratio {
  return { value, lo: Math.min(...parts), hi: Math.max(...parts), spreadFrom };
}

/** Deterministic PRNG (mulberry32): the same request sequence for the server and its baseline. */
export { prng } from '../../tests/support/random.js';

export const elapsed = (start: number) => performance.now() - start;

/** Collects garbage between phases when node runs with --expose-gc (npm run bench does). */
export function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}
