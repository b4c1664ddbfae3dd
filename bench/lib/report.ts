import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { BackendKind } from './backends.js';
import { summarize, type Ratio, type Summary } from './stats.js';

/** What a number is: milliseconds (the default), nanoseconds, a rate per second, a plain factor (×), a percentage or kibibytes. */
export type Unit = 'ms' | 'ns' | '/s' | 'x' | '%' | 'KiB';

export interface Series {
  label: string;
  /** Raw samples in `unit` (milliseconds unless said otherwise), in measurement order. */
  samples: number[];
  summary: Summary;
  /** Show p99 in the table (only meaningful with many samples). */
  showP99: boolean;
  /** Absent: ms. */
  unit?: Unit;
}

export interface Goal {
  description: string;
  /** The measured value compared with the limit (in `unit`, ms unless said otherwise). */
  actual: number;
  limit: number;
  pass: boolean;
  /** Absent: ms. */
  unit?: Unit;
  /** `atLeast`: the goal is met when actual ≥ limit (e.g. a speed-up). Absent: at most. */
  direction?: 'atMost' | 'atLeast';
}

export interface BenchResult {
  id: string;
  title: string;
  /** `none`: an in-process benchmark that needs no database (run once, whatever the backends). */
  backend: BackendKind | 'none';
  backendLabel: string;
  series: Series[];
  ratios: Array<{ label: string } & Ratio>;
  goals: Goal[];
  /** Setup facts, checks and anything a reader needs to trust the numbers. */
  notes: string[];
  /** Extra numbers (profiles, counts) kept in the JSON. */
  details?: Record<string, unknown>;
  wallMs: number;
}

export function series(label: string, samples: number[], showP99 = false, unit: Unit = 'ms'): Series {
  return { label, samples, summary: summarize(samples), showP99, ...(unit !== 'ms' ? { unit } : {}) };
}

export function goal(description: string, actual: number, limit: number, unit: Unit = 'ms', direction: 'atMost' | 'atLeast' = 'atMost'): Goal {
  return {
    description,
    actual,
    limit,
    pass: direction === 'atLeast' ? actual >= limit : actual <= limit,
    ...(unit !== 'ms' ? { unit } : {}),
    ...(direction !== 'atMost' ? { direction } : {}),
  };
}

export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return '–';
  if (ms >= 1000) return `${(ms / 1000).toFixed(3)} s`;
  if (ms >= 100) return `${ms.toFixed(1)} ms`;
  if (ms >= 10) return `${ms.toFixed(2)} ms`;
  return `${ms.toFixed(3)} ms`;
}

const fmtRatio = (r: number) => (r >= 100 ? r.toFixed(0) : r >= 10 ? r.toFixed(1) : r.toFixed(2));

/** A value in its unit, for tables. */
export function fmtValue(v: number, unit: Unit = 'ms'): string {
  if (!Number.isFinite(v)) return '–';
  switch (unit) {
    case 'ms':
      return fmtMs(v);
    case 'ns':
      return v >= 10_000 ? `${(v / 1000).toFixed(2)} µs` : v >= 100 ? `${v.toFixed(0)} ns` : `${v.toFixed(1)} ns`;
    case '/s':
      return `${v >= 100 ? v.toFixed(0) : v.toFixed(1)}/s`;
    case '%':
      return `${v.toFixed(1)} %`;
    case 'x':
      return `×${fmtRatio(v)}`;
    case 'KiB':
      return `${v >= 100 ? v.toFixed(0) : v.toFixed(1)} KiB`;
  }
}

const goalSign = (g: Goal) => (g.direction === 'atLeast' ? '≥' : '≤');

function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(headers), widths.map((w) => '─'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export function render(r: BenchResult): string {
  const out: string[] = [];
  out.push(`\n■ ${r.title} — ${r.backendLabel}  (${(r.wallMs / 1000).toFixed(1)} s wall)`);
  const p99 = r.series.some((s) => s.showP99);
  out.push(
    table(
      ['', 'n', 'median', ...(p99 ? ['p99'] : []), 'min', 'max'],
      r.series.map((s) => [
        s.label,
        String(s.summary.n),
        fmtValue(s.summary.median, s.unit),
        ...(p99 ? [s.showP99 ? fmtValue(s.summary.p99, s.unit) : ''] : []),
        fmtValue(s.summary.min, s.unit),
        fmtValue(s.summary.max, s.unit),
      ]),
    ),
  );
  for (const x of r.ratios) out.push(`  ratio ${x.label}: ×${fmtRatio(x.value)}  (spread ×${fmtRatio(x.lo)}–×${fmtRatio(x.hi)} ${x.spreadFrom})`);
  for (const g of r.goals) out.push(`  ${g.pass ? 'PASS' : 'FAIL'}  ${g.description}: ${fmtValue(g.actual, g.unit)} (goal ${goalSign(g)} ${fmtValue(g.limit, g.unit)})`);
  for (const n of r.notes) out.push(`  · ${n}`);
  return out.join('\n');
}

export function summaryTable(results: BenchResult[]): string {
  return table(
    ['goal', 'backend', 'measured', 'limit', 'result'],
    results.flatMap((r) => r.goals.map((g) => [`${r.id}: ${g.description}`, r.backend, fmtValue(g.actual, g.unit), `${goalSign(g)} ${fmtValue(g.limit, g.unit)}`, g.pass ? 'PASS' : 'FAIL'])),
  );
}

export async function writeJson(path: string, data: unknown): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, JSON.stringify(data, null, 2) + '\n');
}
