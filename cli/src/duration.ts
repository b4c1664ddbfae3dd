import { CliError } from './errors.js';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `500ms`, `30s`, `10m`, `1h30m`, or a bare number of seconds, in milliseconds. */
export function parseDuration(text: string, option: string): number {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1000;
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== trimmed) {
    throw new CliError('invalid_option', `${option}: "${text}" is not a duration (e.g. 90s, 10m, 1h30m, 500ms)`);
  }
  return parts.reduce((sum, p) => sum + Number(p[1]) * (UNITS[p[2] ?? 's'] ?? 1000), 0);
}
