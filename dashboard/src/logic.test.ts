import type { Rollout } from '@gradual/sdk';
import { describe, expect, it } from 'vitest';
import { diffValues } from './components/Diff';
import { blackoutSpans } from './components/RampChart';
import { showsRollbackBanner } from './components/RollbackBanner';
import { parseTargetIds } from './components/TargetIds';
import { parseJsonInput } from './format';

const HOUR = 3_600_000;

describe('diffValues', () => {
  it('lists changed, added and removed leaves by dotted path', () => {
    expect(diffValues({ a: 1, b: { c: [1, 2] }, gone: true }, { a: 2, b: { c: [1, 3, 4] }, added: 'x' })).toEqual([
      { path: 'a', kind: 'changed', before: 1, after: 2 },
      { path: 'b.c.1', kind: 'changed', before: 2, after: 3 },
      { path: 'b.c.2', kind: 'added', after: 4 },
      { path: 'gone', kind: 'removed', before: true },
      { path: 'added', kind: 'added', after: 'x' },
    ]);
  });
  it('lists a created or deleted resource by its fields', () => {
    expect(diffValues(undefined, { a: 1 })).toEqual([{ path: 'a', kind: 'added', after: 1 }]);
    expect(diffValues({ a: 1 }, null)).toEqual([{ path: 'a', kind: 'removed', before: 1 }]);
    expect(diffValues({ a: 1 }, { a: 1 })).toEqual([]);
  });
});

describe('parseTargetIds', () => {
  it('reads lines or the first CSV column, drops a header, blanks, quotes and duplicates', () => {
    expect(parseTargetIds('userId,plan\n"u-1",pro\nu-2,free\n\nu-1,pro\n', 'userId')).toEqual(['u-1', 'u-2']);
    expect(parseTargetIds('a b\nc\r\nd')).toEqual(['a', 'b', 'c', 'd']);
  });
});

describe('parseJsonInput', () => {
  it('parses JSON and takes bare words as strings', () => {
    expect(parseJsonInput('{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseJsonInput('blue')).toEqual({ ok: true, value: 'blue' });
    expect(parseJsonInput('{oops')).toMatchObject({ ok: false });
  });
});

const rollout = (over: Partial<Rollout>): Rollout =>
  ({
    status: 'active',
    percent: 10,
    planRampStepsSnapshot: [
      { percent: 1, holdForSeconds: 3600 },
      { percent: 10, holdForSeconds: 86400 },
      { percent: 100, holdForSeconds: 0 },
    ],
    rampStepIdx: 1,
    cadence: 'auto',
    planBlackoutDaysOfWeek: [],
    planBlackoutTimezone: 'UTC',
    nextStepAt: '2026-11-19T12:00:00.000Z',
    lastAutoRollback: null,
    lastGuardStop: null,
    ...over,
  }) as Rollout;

describe('the ramp chart', () => {
  it('shades blackout days in their time zone', () => {
    const from = Date.parse('2026-11-18T00:00:00Z');
    const spans = blackoutSpans([4], 'UTC', from, from + 4 * 24 * HOUR);
    expect(spans).toEqual([[Date.parse('2026-11-19T00:00:00Z'), Date.parse('2026-11-20T00:00:00Z')]]);
  });
});

describe('the automatic-rollback banner', () => {
  const fired = (firedAt: string) => rollout({ lastAutoRollback: { firedAt, secretId: 'x', secretName: 'grafana', parsedMonitorUrl: null } });
  it('shows for an hour after the fire', () => {
    const now = new Date('2026-11-18T12:00:00Z');
    expect(showsRollbackBanner(fired('2026-11-18T11:00:30Z'), now)).toBe(true);
    expect(showsRollbackBanner(fired('2026-11-18T10:59:59Z'), now)).toBe(false);
    expect(showsRollbackBanner(rollout({}), now)).toBe(false);
  });
});
