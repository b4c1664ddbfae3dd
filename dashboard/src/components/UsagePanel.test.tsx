// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react';
import type { PrimitiveUsage } from '@gradual/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { hourlySeries, UsagePanel, variantName } from './UsagePanel';

afterEach(cleanup);

describe('usage', () => {
  it('spreads hourly counts over every hour of the window, ending with the current hour', () => {
    const end = new Date('2026-11-22T12:30:00.000Z');
    const series = hourlySeries(
      [
        { hour: '2026-11-21T13:00:00.000Z', count: 4 }, // the window's first hour
        { hour: '2026-11-22T10:00:00.000Z', count: 7 },
        { hour: '2026-11-22T12:00:00.000Z', count: 2 },
        { hour: '2026-11-20T12:00:00.000Z', count: 99 }, // before the window
      ],
      1,
      end,
    );
    expect(series).toHaveLength(24);
    expect(series[0]).toBe(4);
    expect(series[21]).toBe(7);
    expect(series[23]).toBe(2);
    expect(series.reduce((a, b) => a + b, 0)).toBe(13);
  });

  it('names variants as the evaluation names its branches', () => {
    expect(['default', 'rule-2', 'target-id', 'rollout-new', 'rollout-base', 'custom'].map(variantName)).toEqual([
      'Base value',
      'Rule 2',
      'Target ID',
      'Rollout (admitted)',
      'Base value (not admitted by the rollout)',
      'custom',
    ]);
  });

  it('shows each environment’s last evaluation, counts per variant and never-evaluated ones', async () => {
    const usage: PrimitiveUsage = {
      kind: 'flag',
      key: 'new-checkout',
      days: 7,
      environments: [
        {
          envId: '00000000-0000-4000-8000-0000000000e1',
          envKey: 'production',
          lastEvaluatedAt: new Date().toISOString(),
          total: 1500,
          variants: [
            { variant: 'rollout-new', count: 1200 },
            { variant: 'rollout-base', count: 300 },
          ],
          hourly: [{ hour: new Date().toISOString(), count: 1500 }],
        },
        { envId: '00000000-0000-4000-8000-0000000000e2', envKey: 'staging', lastEvaluatedAt: null, total: 0, variants: [], hourly: [] },
      ],
    };
    render(<UsagePanel ops={{ usage: () => Promise.resolve(usage) }} />);
    const table = await screen.findByTestId('usage-table');
    expect(table.textContent).toContain('Rollout (admitted): 1,200');
    expect(table.textContent).toContain('never');
    expect(screen.getByRole('img', { name: '1,500 evaluations in production over 7 days, by hour' })).toBeTruthy();
  });
});
