import { describe, expect, it } from 'vitest';
import { fitChanges } from './pg-env-change-bus.js';

describe('fitChanges', () => {
  const change = (resourceKey: string) => ({ resourceType: 'flag', resourceKey, action: 'flag.created' });
  const bytes = (run: unknown[]) => Buffer.byteLength(JSON.stringify(run));

  it('keeps changes that fit in one run, splits the rest into runs that each fit, in order', () => {
    expect(fitChanges([change('a'), change('b')], 1000)).toEqual([[change('a'), change('b')]]);
    const many = Array.from({ length: 100 }, (_, i) => change(`flag-${i}`));
    const runs = fitChanges(many, 500);
    expect(runs.length).toBeGreaterThan(1);
    expect(runs.flat()).toEqual(many);
    for (const run of runs) expect(bytes(run)).toBeLessThanOrEqual(500);
  });

  it('announces a change too large for a notification without its key', () => {
    expect(fitChanges([change('x'.repeat(600)), change('b')], 200)).toEqual([[{ ...change('x'), resourceKey: null }, change('b')]]);
  });
});
