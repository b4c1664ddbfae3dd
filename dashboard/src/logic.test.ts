import type { Rollout } from '@gradual/sdk';
import { describe, expect, it } from 'vitest';
import { diffValues } from './components/Diff';
import { blackoutSpans, placeSteps, weekdayIn } from './components/RampChart';
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
  it('treats a created or deleted resource as one row', () => {
    expect(diffValues(undefined, { a: 1 })).toEqual([{ path: '(value)', kind: 'added', after: { a: 1 } }]);
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
    ...over,
  }) as Rollout;

describe('the ramp chart', () => {
  it('places the current step a hold before nextStepAt, earlier steps backwards, later ones forwards', () => {
    const steps = placeSteps(rollout({}), Date.parse('2026-11-18T15:00:00Z'));
    expect(steps.map((s) => new Date(s.start).toISOString())).toEqual([
      '2026-11-18T11:00:00.000Z',
      '2026-11-18T12:00:00.000Z',
      '2026-11-19T12:00:00.000Z',
    ]);
  });

  it('defers a step due on a blackout day to 00:00 of the next allowed local day', () => {
    // 2026-11-19 is a Thursday (4); in Amsterdam (UTC+1) Friday starts at 23:00 UTC.
    const steps = placeSteps(rollout({ planBlackoutDaysOfWeek: [4], planBlackoutTimezone: 'Europe/Amsterdam' }), Date.parse('2026-11-18T15:00:00Z'));
    expect(new Date(steps[2]!.start).toISOString()).toBe('2026-11-19T23:00:00.000Z');
    expect(weekdayIn('Europe/Amsterdam', Date.parse('2026-11-19T23:00:00Z'))).toBe(5);
  });

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
