/**
 * Optional CPU profile of a measured section (BENCH_PROFILE=1) through the inspector: self
 * time per function and per source area (our code vs MikroORM vs pg vs GC/idle), so a slow
 * section can be attributed without an external profiler.
 */
import { Session } from 'node:inspector/promises';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface CpuSummary {
  totalMs: number;
  byArea: Array<{ area: string; ms: number }>;
  /** Self time. */
  byFunction: Array<{ fn: string; ms: number }>;
  /** Inclusive time (self + callees, each stack counted once per function) of our code and MikroORM's entry points. */
  inclusive: Array<{ fn: string; ms: number }>;
}

function area(url: string, fn: string): string {
  if (!url) return fn === '(idle)' ? '(idle: waiting on I/O)' : fn === '(garbage collector)' ? '(garbage collector)' : `(${fn || 'native'})`;
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?:dist\/)?([^/]+\/)?/.exec(url);
  if (nm) return nm[1] === '@mikro-orm/core' || nm[1] === '@mikro-orm/knex' ? `${nm[1]}/${(nm[2] ?? '').replace(/\/$/, '') || '.'}` : nm[1]!;
  const own = /\/work\/[^/]+\/(.*)$/.exec(url)?.[1] ?? url;
  if (own.startsWith('node:') || !own.includes('/')) return 'node internals';
  return own.replace(/^file:\/\//, '');
}

export async function profileCpu<T>(fn: () => Promise<T>): Promise<{ value: T; cpu: CpuSummary }> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 500 });
  await session.post('Profiler.start');
  let value: T;
  let profile: Profile;
  try {
    value = await fn();
  } finally {
    profile = ((await session.post('Profiler.stop')) as unknown as { profile: Profile }).profile;
    session.disconnect();
  }
  return { value: value!, cpu: summarizeProfile(profile) };
}

/** Self time by area and function, inclusive time of our code, from a V8 CPU profile (e.g. a `--cpu-prof` file). */
export function summarizeProfile(profile: Profile): CpuSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const label = (n: ProfileNode) => {
    const { url, functionName, lineNumber } = n.callFrame;
    return `${functionName || '(anonymous)'} ${url ? `${area(url, functionName)}:${lineNumber + 1}` : ''}`.trim();
  };
  const areas = new Map<string, number>();
  const fns = new Map<string, number>();
  const incl = new Map<string, number>();
  let total = 0;
  for (const [id, ms] of self) {
    const n = byId.get(id)!;
    total += ms;
    const a = area(n.callFrame.url, n.callFrame.functionName);
    areas.set(a, (areas.get(a) ?? 0) + ms);
    fns.set(label(n), (fns.get(label(n)) ?? 0) + ms);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const node = byId.get(cur)!;
      if (!/server\/src\/|@mikro-orm|fast-json-patch|\buuid\b/.test(node.callFrame.url)) continue;
      const key = label(node);
      if (seen.has(key)) continue;
      seen.add(key);
      incl.set(key, (incl.get(key) ?? 0) + ms);
    }
  }
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]);
  return {
    totalMs: total,
    byArea: sorted(areas).map(([area, ms]) => ({ area, ms })),
    byFunction: sorted(fns)
      .slice(0, 40)
      .map(([fn, ms]) => ({ fn, ms })),
    inclusive: sorted(incl)
      .slice(0, 60)
      .map(([fn, ms]) => ({ fn, ms })),
  };
}

export function renderCpu(c: CpuSummary, top = 12): string[] {
  const pct = (ms: number) => `${((100 * ms) / c.totalMs).toFixed(0).padStart(3)}%`;
  return [
    `cpu profile of the main thread (self time, ${(c.totalMs / 1000).toFixed(2)} s sampled):`,
    ...c.byArea.slice(0, top).map((a) => `  ${pct(a.ms)} ${(a.ms / 1000).toFixed(2).padStart(6)} s  ${a.area}`),
    'hottest functions (self time):',
    ...c.byFunction.slice(0, top).map((f) => `  ${pct(f.ms)} ${(f.ms / 1000).toFixed(2).padStart(6)} s  ${f.fn}`),
    'inclusive time (our code and MikroORM; async continuations count under the resumed function, GC is not attributed):',
    ...c.inclusive.slice(0, top * 2).map((f) => `  ${pct(f.ms)} ${(f.ms / 1000).toFixed(2).padStart(6)} s  ${f.fn}`),
  ];
}
