import { describe, expect, it } from 'vitest';
import { withTargetingKey } from './targeting-key.js';

describe('withTargetingKey', () => {
  it.each([
    ['stands in for a missing bucket field', { plan: 'pro' }, 'userId', 'u-1', { plan: 'pro', userId: 'u-1' }],
    ['stands in for a null bucket field', { userId: null }, 'userId', 'u-1', { userId: 'u-1' }],
    ['never replaces a bucket field the context has', { userId: 'u-2' }, 'userId', 'u-1', { userId: 'u-2' }],
    ['keeps a falsy bucket field the context has', { userId: 0 }, 'userId', 'u-1', { userId: 0 }],
    ['changes nothing without a targeting key', { plan: 'pro' }, 'userId', undefined, { plan: 'pro' }],
    ['changes nothing without a rollout (no bucket field)', { plan: 'pro' }, undefined, 'u-1', { plan: 'pro' }],
  ] as const)('%s', (_name, context, field, targetingKey, expected) => {
    const input: Record<string, unknown> = { ...context };
    expect(withTargetingKey(input, field, targetingKey)).toEqual(expected);
    expect(input).toEqual(context); // the caller's context is never modified
  });
});
