import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HOLD_SECONDS_MAX, HOLD_SECONDS_MIN, RAMP_STEPS_MAX, RAMP_STEPS_MIN } from './limits.js';

describe('ramp limits', () => {
  it('are the ones docs/rollouts.md states', () => {
    const docs = readFileSync(new URL('../../docs/rollouts.md', import.meta.url), 'utf8');
    const row = docs.split('\n').find((line) => line.startsWith('| `rampSteps` |'));
    expect(row).toContain(`${RAMP_STEPS_MIN}–${RAMP_STEPS_MAX} steps`);
    expect(row).toContain(`holds ${HOLD_SECONDS_MIN} s to 30 days (${HOLD_SECONDS_MAX.toLocaleString('en-US')} s)`);
    expect(HOLD_SECONDS_MAX).toBe(30 * 86_400);
    expect(docs).toContain(`The ramp limits (${RAMP_STEPS_MIN} to ${RAMP_STEPS_MAX} steps; holds of ${HOLD_SECONDS_MIN} to ${HOLD_SECONDS_MAX.toLocaleString('en-US')} s)`);
  });
});
