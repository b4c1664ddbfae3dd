import type { Rule, Segment } from '@gradual/sdk';
import type { RulesetSegment } from '@gradual/sdk/evaluation';
import { isSegmentOperator } from './rule-drafts';

/** Asks the server whether `id` is on one of a segment's two lists. */
export type SegmentListCheck = (segmentKey: string, list: 'included' | 'excluded', id: string) => Promise<boolean>;

/** The attribute value a segment condition looks up, as the evaluator compares it (scalars only). */
function lookupValue(ctx: Record<string, unknown>, attribute: string): string | undefined {
  const v = ctx[attribute];
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;
}

/**
 * The segments one context's evaluation of `rules` can reach, as the ruleset would carry them but
 * with their ID lists cut down to what matters for this context: for every segment condition met
 * on the way (in `rules` and, transitively, in the segments' own rules) the context's value of its
 * attribute is asked on each named segment's included and excluded lists. The evaluator then
 * decides membership exactly as an SDK holding the whole lists would. Segments that do not exist
 * are left out (nobody is in them).
 */
export async function segmentsForContext(rules: readonly Rule[], ctx: Record<string, unknown>, segments: readonly Segment[], check: SegmentListCheck): Promise<RulesetSegment[]> {
  const byKey = new Map(segments.map((s) => [s.key, s]));
  const asked = new Map<string, Set<string>>();
  const reached = new Set<string>();
  const queue: Array<{ conditions: Rule['conditions'] }> = [...rules];
  while (queue.length > 0) {
    const rule = queue.shift()!;
    for (const c of rule.conditions) {
      if (!isSegmentOperator(c.operator)) continue;
      const value = lookupValue(ctx, c.attribute);
      for (const raw of c.values) {
        const key = String(raw);
        const segment = byKey.get(key);
        if (!segment) continue;
        if (value !== undefined) {
          const values = asked.get(key) ?? new Set<string>();
          values.add(value);
          asked.set(key, values);
        }
        if (!reached.has(key)) {
          reached.add(key);
          queue.push(...segment.rules);
        }
      }
    }
  }
  return Promise.all(
    [...reached].map(async (key) => {
      const segment = byKey.get(key)!;
      const values = [...(asked.get(key) ?? [])];
      // An empty list needs no question.
      const on = (list: 'included' | 'excluded', count: number) =>
        Promise.all(values.map(async (v) => (count > 0 && (await check(key, list, v)) ? v : undefined)));
      const [included, excluded] = await Promise.all([on('included', segment.includedCount), on('excluded', segment.excludedCount)]);
      return {
        key,
        rules: segment.rules,
        included: included.filter((v): v is string => v !== undefined),
        excluded: excluded.filter((v): v is string => v !== undefined),
      };
    }),
  );
}
