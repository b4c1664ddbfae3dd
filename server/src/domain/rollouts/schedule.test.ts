import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { isBlackout, isValidTimeZone, localDate, localDayStart, nextNonBlackoutStart } from './schedule.js';

/**
 * An oracle independent of schedule.ts: the local date string and weekday of an
 * instant, straight from Intl with a different locale and options.
 */
const oracleFormats = new Map<string, [Intl.DateTimeFormat, Intl.DateTimeFormat]>();
function oracle(ms: number, timezone: string): { date: string; weekday: number } {
  let f = oracleFormats.get(timezone);
  if (!f) {
    f = [
      new Intl.DateTimeFormat('en-CA', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit' }),
      new Intl.DateTimeFormat('en-US', { timeZone: timezone, weekday: 'short' }),
    ];
    oracleFormats.set(timezone, f);
  }
  const weekday = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(f[1].format(ms));
  return { date: f[0].format(ms), weekday };
}

const iso = (d: Date) => d.toISOString();
const luxonMidnight = (date: string, zone: string) => DateTime.fromISO(date, { zone }).startOf('day').toUTC().toISO();

describe('isBlackout', () => {
  it('uses the local date in the zone', () => {
    // Friday 23:59 EDT / Saturday 00:00 EDT.
    expect(isBlackout(new Date('2026-10-31T03:59:59Z'), [6], 'America/New_York')).toBe(false);
    expect(isBlackout(new Date('2026-10-31T04:00:00Z'), [6], 'America/New_York')).toBe(true);
    // Across the fall-back: Saturday ends at 04:00Z (EDT), Sunday ends at 05:00Z (EST).
    expect(isBlackout(new Date('2026-11-01T03:59:59Z'), [0], 'America/New_York')).toBe(false);
    expect(isBlackout(new Date('2026-11-01T04:00:00Z'), [0], 'America/New_York')).toBe(true);
    expect(isBlackout(new Date('2026-11-02T04:59:59Z'), [0], 'America/New_York')).toBe(true);
    expect(isBlackout(new Date('2026-11-02T05:00:00Z'), [0], 'America/New_York')).toBe(false);
    // Lord Howe (+10:30 standard): Saturday starts at Friday 13:30Z.
    expect(isBlackout(new Date('2026-07-03T13:29:59Z'), [6], 'Australia/Lord_Howe')).toBe(false);
    expect(isBlackout(new Date('2026-07-03T13:30:00Z'), [6], 'Australia/Lord_Howe')).toBe(true);
    expect(isBlackout(new Date('2026-07-03T13:30:00Z'), [], 'Australia/Lord_Howe')).toBe(false);
  });

  it('property: agrees with the Intl weekday oracle', () => {
    const zones = ['UTC', 'America/New_York', 'Europe/Berlin', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'Pacific/Kiritimati', 'Pacific/Pago_Pago'];
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2040, 0, 1) }),
        fc.constantFrom(...zones),
        fc.uniqueArray(fc.integer({ min: 0, max: 6 })),
        (ms, zone, days) => {
          expect(isBlackout(new Date(ms), days, zone)).toBe(days.includes(oracle(ms, zone).weekday));
          const ld = localDate(new Date(ms), zone);
          expect(`${ld.year}-${String(ld.month).padStart(2, '0')}-${String(ld.day).padStart(2, '0')}`).toBe(oracle(ms, zone).date);
        },
      ),
    );
  });
});

describe('isValidTimeZone', () => {
  it('accepts IANA names, refuses the rest', () => {
    expect(isValidTimeZone('America/Santiago')).toBe(true);
    expect(isValidTimeZone('UTC')).toBe(true);
    expect(isValidTimeZone('Not/AZone')).toBe(false);
    expect(isValidTimeZone('+05:30')).toBe(false);
    expect(isValidTimeZone('')).toBe(false);
  });
});

describe('nextNonBlackoutStart across DST changes', () => {
  const cases: Array<{ zone: string; at: string; days: number[]; expected: string; why: string; luxonAgrees?: boolean }> = [
    // America/New_York: spring forward 2026-03-08 02:00 EST → 03:00 EDT; fall back 2026-11-01 02:00 EDT → 01:00 EST.
    { zone: 'America/New_York', at: '2026-03-07T17:00:00Z', days: [6], expected: '2026-03-08T05:00:00.000Z', why: 'Sunday 00:00 EST (change is at 02:00)' },
    { zone: 'America/New_York', at: '2026-03-07T17:00:00Z', days: [0, 6], expected: '2026-03-09T04:00:00.000Z', why: 'Monday 00:00 EDT' },
    { zone: 'America/New_York', at: '2026-10-31T16:00:00Z', days: [6], expected: '2026-11-01T04:00:00.000Z', why: 'Sunday 00:00 EDT' },
    { zone: 'America/New_York', at: '2026-10-31T16:00:00Z', days: [0, 6], expected: '2026-11-02T05:00:00.000Z', why: 'Monday 00:00 EST' },
    { zone: 'America/New_York', at: '2026-11-01T05:30:00Z', days: [0, 6], expected: '2026-11-02T05:00:00.000Z', why: 'from inside the repeated hour' },
    { zone: 'America/New_York', at: '2026-11-01T06:30:00Z', days: [0, 6], expected: '2026-11-02T05:00:00.000Z', why: 'from the second 01:30' },
    // Europe/Berlin: 2026-03-29 02:00 CET → 03:00 CEST; 2026-10-25 03:00 CEST → 02:00 CET.
    { zone: 'Europe/Berlin', at: '2026-03-28T12:00:00Z', days: [6], expected: '2026-03-28T23:00:00.000Z', why: 'Sunday 00:00 CET' },
    { zone: 'Europe/Berlin', at: '2026-03-28T12:00:00Z', days: [0, 6], expected: '2026-03-29T22:00:00.000Z', why: 'Monday 00:00 CEST' },
    { zone: 'Europe/Berlin', at: '2026-10-24T12:00:00Z', days: [0, 6], expected: '2026-10-25T23:00:00.000Z', why: 'Monday 00:00 CET' },
    { zone: 'Europe/Berlin', at: '2026-10-24T21:59:59Z', days: [], expected: '2026-10-24T22:00:00.000Z', why: 'Sunday 00:00 CEST, 1 s later' },
    // Australia/Lord_Howe: 30-minute DST. 2026-04-05 02:00 (+11) → 01:30 (+10:30); 2026-10-04 02:00 (+10:30) → 02:30 (+11).
    { zone: 'Australia/Lord_Howe', at: '2026-04-04T00:00:00Z', days: [0, 6], expected: '2026-04-05T13:30:00.000Z', why: 'Monday 00:00 +10:30' },
    { zone: 'Australia/Lord_Howe', at: '2026-04-04T00:00:00Z', days: [6], expected: '2026-04-04T13:00:00.000Z', why: 'Sunday 00:00 +11' },
    { zone: 'Australia/Lord_Howe', at: '2026-10-03T00:00:00Z', days: [6], expected: '2026-10-03T13:30:00.000Z', why: 'Sunday 00:00 +10:30' },
    { zone: 'Australia/Lord_Howe', at: '2026-10-03T00:00:00Z', days: [0, 6], expected: '2026-10-04T13:00:00.000Z', why: 'Monday 00:00 +11' },
    // America/Santiago: 2026-09-06 00:00 (-04) does not exist, clocks jump to 01:00 (-03).
    { zone: 'America/Santiago', at: '2026-09-05T12:00:00Z', days: [], expected: '2026-09-06T04:00:00.000Z', why: 'Sunday starts at 01:00 -03' },
    { zone: 'America/Santiago', at: '2026-09-05T12:00:00Z', days: [1], expected: '2026-09-06T04:00:00.000Z', why: 'Sunday is not blacked out' },
    // Santiago fall back: Saturday 2026-04-04 24:00 (-03) → 23:00 (-04); Sunday starts at 04:00Z.
    { zone: 'America/Santiago', at: '2026-04-04T12:00:00Z', days: [], expected: '2026-04-05T04:00:00.000Z', why: 'Sunday 00:00 -04' },
    // America/Havana: 2026-03-08 midnight skipped (→ 01:00 CDT).
    { zone: 'America/Havana', at: '2026-03-07T12:00:00Z', days: [], expected: '2026-03-08T05:00:00.000Z', why: 'Sunday starts at 01:00 -04' },
    // America/Havana: 2026-11-01 01:00 CDT → 00:00 CST, so midnight happens twice; the day starts at the first one.
    // luxon resolves the ambiguous 00:00 to the later offset, hence luxonAgrees: false.
    { zone: 'America/Havana', at: '2026-10-31T12:00:00Z', days: [], expected: '2026-11-01T04:00:00.000Z', why: 'first of two midnights', luxonAgrees: false },
    // Asia/Beirut: 2026-10-25 00:00 (+03) → Saturday 23:00 (+02); Sunday starts at 00:00 +02.
    { zone: 'Asia/Beirut', at: '2026-10-24T12:00:00Z', days: [], expected: '2026-10-24T22:00:00.000Z', why: 'midnight reached after the repeated hour' },
  ];

  for (const c of cases) {
    it(`${c.zone} from ${c.at} blackout [${c.days.join(',')}] → ${c.expected} (${c.why})`, () => {
      const result = nextNonBlackoutStart(new Date(c.at), c.days, c.zone);
      expect(iso(result)).toBe(c.expected);
      const local = DateTime.fromJSDate(result, { zone: c.zone });
      if (c.luxonAgrees !== false) expect(luxonMidnight(local.toISODate()!, c.zone)).toBe(c.expected);
      // Definitional: the instant before belongs to another local day.
      expect(oracle(result.getTime() - 1, c.zone).date).not.toBe(oracle(result.getTime(), c.zone).date);
      expect(iso(localDayStart(new Date(result.getTime() + 3_600_000), c.zone))).toBe(c.expected);
    });
  }

  it('skips a local day that does not exist (Pacific/Apia jumped over 2011-12-30)', () => {
    // 2011-12-29 23:59:59 (-10) was followed by 2011-12-31 00:00 (+14) = 2011-12-30T10:00Z.
    expect(iso(nextNonBlackoutStart(new Date('2011-12-29T12:00:00Z'), [], 'Pacific/Apia'))).toBe('2011-12-30T10:00:00.000Z');
    expect(localDate(new Date('2011-12-30T10:00:00Z'), 'Pacific/Apia')).toMatchObject({ day: 31, weekday: 6 });
    // With Saturday (the 31st) blacked out: Sunday 2012-01-01 00:00 +14.
    expect(iso(nextNonBlackoutStart(new Date('2011-12-29T12:00:00Z'), [6], 'Pacific/Apia'))).toBe('2011-12-31T10:00:00.000Z');
  });

  it('refuses an all-blackout week', () => {
    expect(() => nextNonBlackoutStart(new Date(), [0, 1, 2, 3, 4, 5, 6], 'UTC')).toThrow();
  });
});

describe('nextNonBlackoutStart properties', () => {
  const zones = [
    'UTC',
    'America/New_York',
    'Europe/Berlin',
    'Australia/Lord_Howe',
    'America/Santiago',
    'America/Havana',
    'Asia/Beirut',
    'Asia/Kathmandu',
    'Pacific/Chatham',
    'Pacific/Kiritimati',
    'Pacific/Pago_Pago',
    'America/St_Johns',
  ];
  const daysArb = fc.uniqueArray(fc.integer({ min: 0, max: 6 }), { maxLength: 6 });
  const atArb = fc.oneof(
    fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2035, 0, 1) }),
    // Biased towards 2026's DST weeks so transitions are actually crossed.
    fc.constantFrom('2026-03-05', '2026-03-26', '2026-04-02', '2026-09-03', '2026-10-01', '2026-10-22', '2026-10-29').chain((d) =>
      fc.integer({ min: Date.parse(`${d}T00:00:00Z`), max: Date.parse(`${d}T00:00:00Z`) + 7 * 86_400_000 }),
    ),
  );

  it('is after `at`, a local day start, not a blackout day, and skips no allowed day', () => {
    fc.assert(
      fc.property(atArb, daysArb, fc.constantFrom(...zones), (atMs, days, zone) => {
        const result = nextNonBlackoutStart(new Date(atMs), days, zone).getTime();
        expect(result).toBeGreaterThan(atMs);
        // A local day start: the instant just before is on another local date…
        expect(oracle(result - 1, zone).date).not.toBe(oracle(result, zone).date);
        // …and the result is on an allowed weekday.
        expect(days).not.toContain(oracle(result, zone).weekday);
        // No allowed local day starts strictly between `at`'s local day and the result:
        // every sample in between (every 30 min; local days last ≥ 22.5 h) is on `at`'s
        // local date or on a blacked-out weekday.
        const atDate = oracle(atMs, zone).date;
        for (let t = atMs; t < result; t += 1_800_000) {
          const o = oracle(t, zone);
          expect(o.date === atDate || days.includes(o.weekday)).toBe(true);
        }
        expect(oracle(result - 1, zone).date === atDate || days.includes(oracle(result - 1, zone).weekday)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('matches luxon start-of-day wherever local midnight is unambiguous', () => {
    fc.assert(
      fc.property(atArb, daysArb, fc.constantFrom(...zones.filter((z) => z !== 'America/Havana')), (atMs, days, zone) => {
        const result = nextNonBlackoutStart(new Date(atMs), days, zone);
        const local = DateTime.fromJSDate(result, { zone });
        expect(luxonMidnight(local.toISODate()!, zone)).toBe(iso(result));
      }),
      { numRuns: 300 },
    );
  });
});
