import { describe, expect, it } from 'vitest';
import { RULES_PER_PRIMITIVE_MAX, rulesNeededFor } from './usage-variants.js';

describe('rulesNeededFor', () => {
  it('accepts the variants the evaluator serves', () => {
    for (const v of ['default', 'target-id', 'rollout-new', 'rollout-base']) expect(rulesNeededFor(v)).toBe(0);
    expect(rulesNeededFor('rule-1')).toBe(1);
    expect(rulesNeededFor('rule-42')).toBe(42);
    expect(RULES_PER_PRIMITIVE_MAX).toBe(200);
    expect(rulesNeededFor(`rule-${RULES_PER_PRIMITIVE_MAX}`)).toBe(RULES_PER_PRIMITIVE_MAX);
  });

  it.each(['', 'Default', 'default ', ' rule-1', 'rule-0', 'rule-01', 'rule-', 'rule-1a', 'rule-201', 'rule-1000', 'rule-1e2', 'rule--1', 'variant-a', 'rollout', 'rule-１'])(
    'refuses %j',
    (variant) => {
      expect(rulesNeededFor(variant)).toBeNull();
    },
  );
});
