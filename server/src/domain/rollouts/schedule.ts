/**
 * Blackout-day calendar maths for auto-cadence plans, on the platform's IANA
 * time zone data (Intl). Pure: every function takes the instant it reasons about.
 *
 * A "local day" is a calendar date in the plan's zone. Its start is the first
 * instant whose local date is that day: 00:00 local time, or, where DST skips
 * midnight (America/Santiago, America/Havana in spring), the first instant after
 * the gap (01:00); where midnight happens twice (America/Havana in autumn), the
 * earlier one. No offsets are written by hand: everything is found by asking
 * Intl for the local date of an instant.
 */

const MS_PER_DAY = 86_400_000;
/** Wider than any UTC offset the tz database has ever had (LMT offsets reach about ±15:57). */
const SEARCH_MARGIN_MS = 26 * 3_600_000;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timezone: string): Intl.DateTimeFormat {
  let f = formatters.get(timezone);
  if (!f) {
    // Throws RangeError for a zone Intl does not know.
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      era: 'short',
    });
    formatters.set(timezone, f);
  }
  return f;
}

/** Days since 1970-01-01 of the proleptic Gregorian date y-m-d. */
function dayNumberOf(year: number, month: number, day: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  return Math.round(d.getTime() / MS_PER_DAY);
}

/** The local calendar date of instant `ms` in `timezone`, as days since 1970-01-01. */
function localDayNumber(ms: number, timezone: string): number {
  let year = 0;
  let month = 0;
  let day = 0;
  let bc = false;
  for (const part of formatterFor(timezone).formatToParts(ms)) {
    if (part.type === 'year') year = Number(part.value);
    else if (part.type === 'month') month = Number(part.value);
    else if (part.type === 'day') day = Number(part.value);
    else if (part.type === 'era') bc = part.value.startsWith('B');
  }
  return dayNumberOf(bc ? 1 - year : year, month, day);
}

/** 0 = Sunday … 6 = Saturday (1970-01-01 was a Thursday). */
function weekdayOfDayNumber(dayNumber: number): number {
  return (((dayNumber + 4) % 7) + 7) % 7;
}

/**
 * The first instant (ms) whose local date is at or after `dayNumber`. Binary
 * search over the ±26 h window around the UTC midnight of that date: outside
 * it every zone's local date is certainly before / at-or-after the day.
 */
function firstInstantAtOrAfterDay(dayNumber: number, timezone: string): number {
  let lo = dayNumber * MS_PER_DAY - SEARCH_MARGIN_MS; // local date < dayNumber here
  let hi = dayNumber * MS_PER_DAY + SEARCH_MARGIN_MS; // local date >= dayNumber here
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (localDayNumber(mid, timezone) >= dayNumber) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** Local calendar date of `at` in `timezone`, with its weekday (0 = Sunday). */
export function localDate(at: Date, timezone: string): { year: number; month: number; day: number; weekday: number } {
  const n = localDayNumber(at.getTime(), timezone);
  const d = new Date(n * MS_PER_DAY);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), weekday: weekdayOfDayNumber(n) };
}

/** Whether `timezone` is a zone name Intl knows (offset strings like "+01:00" are refused: not IANA names). */
export function isValidTimeZone(timezone: string): boolean {
  if (!/^[A-Za-z]/.test(timezone)) return false;
  try {
    // Not through the cache: arbitrary request input must not grow it.
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
}

/** Whether the local date of `at` in `timezone` falls on one of `days` (0 = Sunday … 6 = Saturday). */
export function isBlackout(at: Date, days: readonly number[], timezone: string): boolean {
  if (days.length === 0) return false;
  return days.includes(weekdayOfDayNumber(localDayNumber(at.getTime(), timezone)));
}

/** The first instant of the local day containing `at` (its local midnight, or the first instant after a DST gap). */
export function localDayStart(at: Date, timezone: string): Date {
  return new Date(firstInstantAtOrAfterDay(localDayNumber(at.getTime(), timezone), timezone));
}

/**
 * The start (first instant) of the first local day after the local day of
 * `at` whose weekday is not in `days`. Local days that do not exist at all
 * (Pacific/Apia skipped 2011-12-30) are skipped. Throws when every weekday is
 * a blackout day (plan validation refuses such plans).
 */
export function nextNonBlackoutStart(at: Date, days: readonly number[], timezone: string): Date {
  const blocked = new Set(days);
  if ([0, 1, 2, 3, 4, 5, 6].every((d) => blocked.has(d))) {
    throw new Error('nextNonBlackoutStart: every day of the week is a blackout day');
  }
  const atMs = at.getTime();
  const today = localDayNumber(atMs, timezone);
  for (let candidate = today + 1; candidate <= today + 14; candidate++) {
    if (blocked.has(weekdayOfDayNumber(candidate))) continue;
    const start = firstInstantAtOrAfterDay(candidate, timezone);
    // The day may not exist (the zone jumped over it); then `start` belongs to a later day.
    if (localDayNumber(start, timezone) !== candidate) continue;
    if (start > atMs) return new Date(start);
  }
  throw new Error(`nextNonBlackoutStart: no non-blackout day found after ${at.toISOString()} in ${timezone}`);
}
