import type { Rule, Segment } from '@gradual/sdk';
import { evaluatePrimitive } from '@gradual/sdk/evaluation';
import { describe, expect, it } from 'vitest';
import { segmentsForContext } from './segment-membership';

function segment(key: string, rules: Segment['rules'], includedCount: number, excludedCount: number): Segment {
  return {
    id: `00000000-0000-4000-8000-0000000000${key.length.toString().padStart(2, '0')}`,
    projectId: '00000000-0000-4000-8000-000000000001',
    key,
    name: key,
    description: null,
    rules,
    includedCount,
    excludedCount,
    createdAt: '2026-11-20T10:00:00.000Z',
    updatedAt: '2026-11-20T10:00:00.000Z',
  };
}

const SEGMENTS = [
  segment('beta', [{ conditions: [{ attribute: 'userId', operator: 'in_segment', values: ['staff'] }] }], 2, 1),
  segment('staff', [{ conditions: [{ attribute: 'email', operator: 'ends_with', values: ['@acme.test'] }] }], 1, 0),
  segment('unused', [], 5, 5),
];
const LISTS: Record<string, { included: string[]; excluded: string[] }> = {
  beta: { included: ['user-1', 'user-2'], excluded: ['user-3'] },
  staff: { included: ['user-7'], excluded: [] },
  unused: { included: ['user-1'], excluded: [] },
};
const RULES: Rule[] = [{ conditions: [{ attribute: 'userId', operator: 'in_segment', values: ['beta', 'gone'] }], value: true }];

async function run(ctx: Record<string, unknown>) {
  const asked: string[] = [];
  const segments = await segmentsForContext(RULES, ctx, SEGMENTS, (key, list, id) => {
    asked.push(`${key}.${list}:${id}`);
    return Promise.resolve(LISTS[key]![list].includes(id));
  });
  const result = evaluatePrimitive({ kind: 'flag', key: 'f', value: false, rules: RULES, rollout: null }, ctx, segments);
  return { segments, asked: asked.sort(), value: result.value };
}

describe('segments for one context', () => {
  it('follows segment references transitively and asks only about the context’s value, on non-empty lists', async () => {
    const { segments, asked, value } = await run({ userId: 'user-7' });
    expect(segments.map((s) => s.key).sort()).toEqual(['beta', 'staff']);
    expect(asked).toEqual(['beta.excluded:user-7', 'beta.included:user-7', 'staff.included:user-7']);
    expect(segments.find((s) => s.key === 'staff')).toMatchObject({ included: ['user-7'], excluded: [] });
    expect(value).toBe(true); // in staff, so in beta through its rule
  });

  it('decides as an evaluator holding the whole lists would', async () => {
    expect((await run({ userId: 'user-1' })).value).toBe(true); // included
    expect((await run({ userId: 'user-9' })).value).toBe(false); // nowhere
    expect((await run({ userId: 'user-9', email: 'x@acme.test' })).value).toBe(true); // staff by rule
    expect((await run({ userId: 'user-3', email: 'x@acme.test' })).value).toBe(false); // excluded from beta's rules
  });

  it('asks nothing when the context lacks the attribute', async () => {
    const { asked, value } = await run({ email: 'x@example.com' });
    expect(asked).toEqual([]);
    expect(value).toBe(false);
  });
});
