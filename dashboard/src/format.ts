/** Formatting helpers shared by the screens. */

export function formatJson(value: unknown): string {
  if (value === undefined) return '—';
  return typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value);
}

export function formatJsonPretty(value: unknown): string {
  return value === undefined ? '' : JSON.stringify(value, null, 2);
}

export function formatPercent(p: number | null | undefined): string {
  if (p === null || p === undefined) return '—';
  return `${Number(p.toFixed(4))}%`;
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  return dateTime.format(new Date(iso));
}

/** "in 3 h 20 min", "5 min ago". */
export function relativeTime(iso: string, now: Date = new Date()): string {
  const diff = new Date(iso).getTime() - now.getTime();
  const text = formatDuration(Math.abs(diff) / 1000);
  return diff >= 0 ? `in ${text}` : `${text} ago`;
}

/** 90 → "1 min 30 s", 86400 → "1 d". */
export function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  const units: [number, string][] = [
    [86400, 'd'],
    [3600, 'h'],
    [60, 'min'],
  ];
  const parts: string[] = [];
  let rest = s;
  for (const [size, name] of units) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)} ${name}`);
      rest %= size;
    }
    if (parts.length === 2) break;
  }
  return parts.join(' ');
}

export const DAY_NAMES = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** Parses what someone typed as a JSON value; bare words become strings. */
export function parseJsonInput(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  const t = text.trim();
  if (t === '') return { ok: false, error: 'Enter a value.' };
  try {
    return { ok: true, value: JSON.parse(t) };
  } catch {
    if (/^[\w.@:/-][\w .@:/-]*$/.test(t)) return { ok: true, value: t };
    return { ok: false, error: 'Not valid JSON.' };
  }
}
