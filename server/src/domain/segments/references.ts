/**
 * Segment references: which segment keys a list of rules names (`in_segment` /
 * `not_in_segment` conditions, whose values are segment keys), and the project's reference graph
 * (segment key → keys its rules name): cycles, what a set of keys reaches, what reaches a key.
 */

/** The parts of a flag's, config's or segment's rule that references are found in. */
export interface RuleConditions {
  conditions: ReadonlyArray<{
    operator: string;
    values: ReadonlyArray<string | number>;
  }>;
}

export const SEGMENT_OPERATORS: ReadonlySet<string> = new Set(['in_segment', 'not_in_segment']);

/** One segment key named by a rule, with the request field that names it (`rules.0.conditions.1.values.0`). */
export interface SegmentRef {
  key: string;
  field: string;
}

/** Every segment reference in `rules`, in order, with its field under `prefix`. */
export function segmentRefsOf(rules: readonly RuleConditions[], prefix = 'rules'): SegmentRef[] {
  const refs: SegmentRef[] = [];
  rules.forEach((rule, i) =>
    rule.conditions.forEach((condition, j) => {
      if (!SEGMENT_OPERATORS.has(condition.operator)) return;
      condition.values.forEach((value, k) =>
        refs.push({
          key: String(value),
          field: `${prefix}.${i}.conditions.${j}.values.${k}`,
        }),
      );
    }),
  );
  return refs;
}

/** The distinct segment keys `rules` reference, sorted. */
export const segmentKeysOf = (rules: readonly RuleConditions[]): string[] => [...new Set(segmentRefsOf(rules).map((r) => r.key))].sort();

/** The project's segments as a graph: each key and the keys its rules reference. */
export type SegmentGraph = ReadonlyMap<string, readonly string[]>;

/**
 * A cycle through `start` (`[start, …, start]`), or null. `start`'s references are taken from
 * the graph, so a caller checking a write puts the written references there first.
 */
export function findCycle(graph: SegmentGraph, start: string): string[] | null {
  const visited = new Set<string>();
  const path: string[] = [start];
  const visit = (key: string): string[] | null => {
    for (const next of graph.get(key) ?? []) {
      if (next === start) return [...path, start];
      if (visited.has(next)) continue;
      visited.add(next);
      path.push(next);
      const found = visit(next);
      if (found) return found;
      path.pop();
    }
    return null;
  };
  return visit(start);
}

/** `keys` and every segment they reference, directly or through other segments (keys not in the graph are left out). */
export function reachableSegments(graph: SegmentGraph, keys: Iterable<string>): Set<string> {
  const seen = new Set<string>();
  const stack = [...keys];
  while (stack.length) {
    const key = stack.pop()!;
    if (seen.has(key) || !graph.has(key)) continue;
    seen.add(key);
    stack.push(...graph.get(key)!);
  }
  return seen;
}

/** `key` and every segment that references it, directly or through other segments. */
export function segmentsReaching(graph: SegmentGraph, key: string): Set<string> {
  const referrers = new Map<string, string[]>();
  for (const [from, refs] of graph) for (const to of refs) referrers.set(to, [...(referrers.get(to) ?? []), from]);
  const seen = new Set<string>([key]);
  const stack = [key];
  while (stack.length) {
    for (const from of referrers.get(stack.pop()!) ?? []) {
      if (seen.has(from)) continue;
      seen.add(from);
      stack.push(from);
    }
  }
  return seen;
}

/**
 * The longest chain of references that passes through `key` in an acyclic graph, from the
 * outermost segment to the innermost (`['outer', …, key, …, 'inner']`); `[key]` when nothing
 * references it and it references nothing. Its length is the nesting depth a write of `key`
 * makes. References to keys not in the graph are left out.
 */
export function longestChainThrough(graph: SegmentGraph, key: string): string[] {
  const referrers = new Map<string, string[]>();
  for (const [from, refs] of graph) for (const to of new Set(refs)) referrers.set(to, [...(referrers.get(to) ?? []), from]);
  const below = longestPath(key, (k) => (graph.get(k) ?? []).filter((next) => graph.has(next)));
  const above = longestPath(key, (k) => referrers.get(k) ?? []).reverse();
  return [...above.slice(0, -1), ...below];
}

/** The longest path from `start` through `next` in an acyclic graph, `start` first (memoized per key). */
function longestPath(start: string, next: (key: string) => readonly string[]): string[] {
  const known = new Map<string, string[]>();
  const walk = (k: string): string[] => {
    const done = known.get(k);
    if (done) return done;
    let longest: string[] = [];
    for (const n of next(k)) {
      const chain = walk(n);
      if (chain.length > longest.length) longest = chain;
    }
    const chain = [k, ...longest];
    known.set(k, chain);
    return chain;
  };
  return walk(start);
}
