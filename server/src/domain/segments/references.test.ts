import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { findCycle, longestChainThrough, reachableSegments, segmentKeysOf, segmentRefsOf, segmentsReaching, type SegmentGraph } from './references.js';

const graph = (edges: Record<string, string[]>): SegmentGraph => new Map(Object.entries(edges));

describe('segment references', () => {
  it('finds the keys segment conditions name, with the field of each', () => {
    const rules = [
      { conditions: [{ operator: 'in', values: ['eu'] }, { operator: 'in_segment', values: ['beta', 'staff'] }] },
      { conditions: [{ operator: 'not_in_segment', values: ['beta'] }] },
    ];
    expect(segmentRefsOf(rules)).toEqual([
      { key: 'beta', field: 'rules.0.conditions.1.values.0' },
      { key: 'staff', field: 'rules.0.conditions.1.values.1' },
      { key: 'beta', field: 'rules.1.conditions.0.values.0' },
    ]);
    expect(segmentKeysOf(rules)).toEqual(['beta', 'staff']);
  });

  it.each([
    ['no references', { a: [] }, 'a', null],
    ['a self reference', { a: ['a'] }, 'a', ['a', 'a']],
    ['a two-cycle', { a: ['b'], b: ['a'] }, 'a', ['a', 'b', 'a']],
    ['a three-cycle', { a: ['b'], b: ['c'], c: ['a'] }, 'a', ['a', 'b', 'c', 'a']],
    ['a cycle elsewhere, not through start', { a: ['b'], b: ['c'], c: ['b'] }, 'a', null],
    ['a diamond without a cycle', { a: ['b', 'c'], b: ['d'], c: ['d'], d: [] }, 'a', null],
    ['a reference to a missing segment', { a: ['gone'] }, 'a', null],
  ])('cycles through the start: %s', (_name, edges, start, cycle) => {
    expect(findCycle(graph(edges), start)).toEqual(cycle);
  });

  it('follows references forwards (what a flag reaches) and backwards (what an edit reaches)', () => {
    const g = graph({ a: ['b'], b: ['c'], c: [], d: ['c'], e: [] });
    expect([...reachableSegments(g, ['a'])].sort()).toEqual(['a', 'b', 'c']);
    expect([...reachableSegments(g, ['gone', 'e'])]).toEqual(['e']);
    expect([...segmentsReaching(g, 'c')].sort()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('a cycle it reports is a real path of the graph that starts and ends at the start', () => {
    const keys = ['a', 'b', 'c', 'd', 'e'];
    const edges = fc.dictionary(fc.constantFrom(...keys), fc.uniqueArray(fc.constantFrom(...keys), { maxLength: 3 }));
    fc.assert(
      fc.property(edges, fc.constantFrom(...keys), (e, start) => {
        const g = graph(e);
        const cycle = findCycle(g, start);
        if (cycle === null) {
          // No cycle through start: nothing start reaches references start.
          for (const k of reachableSegments(g, g.get(start) ?? [])) expect(g.get(k) ?? []).not.toContain(start);
          return;
        }
        expect(cycle[0]).toBe(start);
        expect(cycle.at(-1)).toBe(start);
        for (let i = 0; i + 1 < cycle.length; i++) expect(g.get(cycle[i]!) ?? []).toContain(cycle[i + 1]);
      }),
    );
  });
});

describe('longestChainThrough', () => {
  const g = (edges: Record<string, string[]>): SegmentGraph => new Map(Object.entries(edges));
  it.each([
    ['alone', { a: [] }, 'a', ['a']],
    ['a chain through the middle', { a: ['b'], b: ['c'], c: [] }, 'b', ['a', 'b', 'c']],
    ['the longer of two branches, above and below', { a: ['c'], x: ['y'], y: ['c'], c: ['d', 'e'], d: [], e: ['f'], f: [] }, 'c', ['x', 'y', 'c', 'e', 'f']],
    ['references to missing segments left out', { a: ['gone'] }, 'a', ['a']],
  ])('%s', (_name, edges, key, chain) => {
    expect(longestChainThrough(g(edges), key)).toEqual(chain);
  });
});
