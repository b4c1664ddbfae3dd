import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { systemClock } from '../../clock.js';
import type { Database } from '../../db/database.js';
import { UsageAggregator } from './usage-aggregator.js';
import { insightStatus, startOfHour } from './usage.service.js';

const DAY = 24 * 3600_000;

describe('insightStatus', () => {
  const now = new Date('2026-11-26T12:00:00Z');
  const ago = (days: number) => new Date(now.getTime() - days * DAY);
  const status = (p: Partial<Parameters<typeof insightStatus>[0]>, stale = 7, ready = 30) =>
    insightStatus({ createdAt: ago(100), lastChangedAt: ago(100), uniform: false, lastEvaluatedAt: ago(1), evaluations: 5, ...p }, now, stale, ready);

  it.each([
    ['never evaluated, created 3 days ago', { createdAt: ago(3), lastChangedAt: ago(3), lastEvaluatedAt: null, evaluations: 0 }, 'new'],
    ['never evaluated, created 3 days ago, uniform', { createdAt: ago(3), lastChangedAt: ago(3), lastEvaluatedAt: null, evaluations: 0, uniform: true }, 'new'],
    ['never evaluated, created 8 days ago', { createdAt: ago(8), lastChangedAt: ago(8), lastEvaluatedAt: null, evaluations: 0 }, 'not_evaluated'],
    ['evaluated 10 days ago, none since', { lastEvaluatedAt: ago(10), evaluations: 0 }, 'not_evaluated'],
    ['evaluated yesterday', {}, 'in_use'],
    ['evaluated yesterday, uniform, unchanged 30 days', { uniform: true, lastChangedAt: ago(30) }, 'ready_to_remove'],
    ['evaluated yesterday, uniform, changed 29 days ago', { uniform: true, lastChangedAt: ago(29) }, 'in_use'],
    ['not evaluated, uniform, unchanged 40 days', { uniform: true, lastChangedAt: ago(40), lastEvaluatedAt: ago(20), evaluations: 0 }, 'ready_to_remove'],
    ['not evaluated, rules somewhere, unchanged 40 days', { lastChangedAt: ago(40), lastEvaluatedAt: ago(20), evaluations: 0 }, 'not_evaluated'],
  ] as const)('%s: %s', (_, p, expected) => {
    expect(status(p)).toBe(expected);
  });

  it('takes the thresholds as given', () => {
    expect(status({ createdAt: ago(8), lastChangedAt: ago(8), lastEvaluatedAt: null, evaluations: 0 }, 10)).toBe('new');
    expect(status({ uniform: true, lastChangedAt: ago(5) }, 7, 5)).toBe('ready_to_remove');
  });
});

describe('startOfHour', () => {
  it('truncates to the UTC hour', () => {
    expect(startOfHour(new Date('2026-11-26T12:59:59.999Z')).toISOString()).toBe('2026-11-26T12:00:00.000Z');
    expect(startOfHour(new Date('2026-11-26T13:00:00.000Z')).toISOString()).toBe('2026-11-26T13:00:00.000Z');
  });
});

describe('UsageAggregator: counting', () => {
  const unusedDb = {} as Database;
  const aggregator = (max: number) => new UsageAggregator({ db: unusedDb, clock: systemClock, logger: pino({ level: 'silent' }) }, max);

  it('adds repeated counts to one entry per environment, kind, key and variant', () => {
    const usage = aggregator(100);
    usage.count('e1', 'flag', 'a', 'default');
    usage.count('e1', 'flag', 'a', 'default', 4);
    usage.count('e1', 'config', 'a', 'default');
    usage.count('e1', 'flag', 'a', 'rule-1');
    usage.count('e2', 'flag', 'a', 'default');
    usage.countResults('e2', { a: { kind: 'flag', branch: 'default' }, b: { kind: 'config', branch: 'rollout-new' } });
    expect(usage.size).toBe(5);
  });

  it('holds at most its cap of distinct entries; counts of entries it holds still add up', () => {
    const usage = aggregator(3);
    for (let i = 0; i < 10; i++) usage.count('e1', 'flag', `k${i}`, 'default');
    usage.count('e9', 'flag', 'k0', 'default');
    expect(usage.size).toBe(3);
    usage.count('e1', 'flag', 'k0', 'default');
    usage.count('e1', 'flag', 'k0', 'rule-1');
    expect(usage.size).toBe(3);
  });
});
