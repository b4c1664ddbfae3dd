import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { BackendKind } from './backends.js';
import { summarize, type Ratio, type Summary } from './stats.js';

export interface Series {
  label: string;
  /** Raw samples in milliseconds, in measurement order. */
  samples: number[];
  summary: Summary;
  /** Show p99 in the table (only meaningful with many samples). */
  showP99: boolean;
}

export interface Goal {
  description: string;
  /** The measured value compared with the limit (in `unit`, milliseconds by default). */
  actual: number;
  limit: number;
  /** 'ms' (default), 'x' (a ratio), '%' or 'req/s'. */
  unit?: GoalUnit;
  /** The goal is a floor (actual ≥ limit) rather than a ceiling. */
  atLeast?: boolean;
  pass: boolean;
}

export type GoalUnit = 'ms' | 'x' | '%' | 'req/s';

export interface BenchResult {
  id: string;
  title: string;
  backend: BackendKind;
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

export function series(label: string, samples: number[], showP99 = false): Series {
  return { label, samples, summary: summarize(samples), showP99 };
}

export function goal(description: string, actual: number, limit: number, opts: { unit?: GoalUnit; atLeast?: boolean } = {}): Goal {
  return { description, actual, limit, ...opts, pass: opts.atLeast ? actual >= limit : actual <= limit };
}

function fmtGoalValue(g: Goal, v: number): string {
  if (g.unit === 'x') return `×${v.toFixed(2)}`;
  if (g.unit === 'req/s') return `${v.toFixed(0)} req/s`;
  if (g.unit === '%') return `${v.toFixed(1)} %`;
  return fmtMs(v);
}

export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return '–';
  if (ms >= 1000) return `${(ms / 1000).toFixed(3)} s`;
  if (ms >= 100) return `${ms.toFixed(1)} ms`;
  if (ms >= 10) return `${ms.toFixed(2)} ms`;
  return `${ms.toFixed(3)} ms`;
}

const fmtRatio = (r: number) => (r >= 100 ? r.toFixed(0) : r >= 10 ? r.toFixed(1) : r.toFixed(2));

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
        fmtMs(s.summary.median),
        ...(p99 ? [s.showP99 ? fmtMs(s.summary.p99) : ''] : []),
        fmtMs(s.summary.min),
        fmtMs(s.summary.max),
      ]),
    ),
  );
  for (const x of r.ratios) out.push(`  ratio ${x.label}: ×${fmtRatio(x.value)}  (spread ×${fmtRatio(x.lo)}–×${fmtRatio(x.hi)} ${x.spreadFrom})`);
  for (const g of r.goals) out.push(`  ${g.pass ? 'PASS' : 'FAIL'}  ${g.description}: ${fmtGoalValue(g, g.actual)} (goal ${g.atLeast ? '≥' : '≤'} ${fmtGoalValue(g, g.limit)})`);
  for (const n of r.notes) out.push(`  · ${n}`);
  return out.join('\n');
}

export function summaryTable(results: BenchResult[]): string {
  return table(
    ['goal', 'backend', 'measured', 'limit', 'result'],
    results.flatMap((r) => r.goals.map((g) => [`${r.id}: ${g.description}`, r.backend, fmtGoalValue(g, g.actual), `${g.atLeast ? '≥ ' : ''}${fmtGoalValue(g, g.limit)}`, g.pass ? 'PASS' : 'FAIL'])),
  );
}

export async function writeJson(path: string, data: unknown): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, JSON.stringify(data, null, 2) + '\n');
}
