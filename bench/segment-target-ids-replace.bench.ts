/**
 * `segment-target-ids-replace`: a 1,000,000-ID replace of a segment's included list beside the
 * same replace of a rollout's allow-list, on one server (the two share the list machinery,
 * features/common/target-lists.ts).
 *
 * The server is a production start in its own process. A flag has a rollout and rules naming a
 * segment, so the segment's replace also moves the environment to a new version. Each list is
 * filled with 1,000,000 IDs once (setup), then replaced with a different million (the whole list
 * exchanged), end to end as the client sees it (JSON upload included), alternating rollout and
 * segment so that each measured replace runs beside the deletion of the list the other one
 * replaced. The goal: the segment's replace within 1.25 × the rollout's of the same run.
 *
 * BENCH_REPLACE_IDS overrides the list size (default 1,000,000).
 */
import { claimProcess, startProduction } from '../tests/support/production.js';
import type { Backend } from './lib/backends.js';
import { applied } from './lib/instance.js';
import { goal, series, type BenchResult } from './lib/report.js';
import { elapsed } from './lib/stats.js';

const LIST = Number(process.env.BENCH_REPLACE_IDS ?? 1_000_000);
const KEY = 'big-list';

const idsOf = (prefix: string) => Array.from({ length: LIST }, (_, i) => `${prefix}-${String(i).padStart(7, '0')}`);

export async function benchSegmentTargetIdsReplace(backend: Backend, log: (msg: string) => void): Promise<BenchResult> {
  const wall = performance.now();
  const server = await startProduction({
    ...(backend.kind === 'postgres' ? { adminUrl: backend.adminUrl! } : {}),
    env: { ORG_RATE_LIMIT_PER_MIN: '100000000' },
  });
  try {
    const { owner } = await claimProcess(server, 'bulk');
    const project = await owner.createProject({ path: { slug: 'bulk' }, body: { key: 'bulk', name: 'Bulk' } });
    const envId = (await owner.createEnvironment({ path: { id: project.id }, body: { key: 'prod', name: 'Prod' } })).id;
    const segment = { id: project.id, key: 'big-segment' };
    await owner.createSegment({ path: { id: project.id }, body: { key: segment.key, name: 'Big segment' } });
    await owner.createFlag({ path: { id: project.id }, body: { key: KEY, name: 'Big list', defaultValue: false } });
    await owner.setFlagRules({ path: { envId, key: KEY }, body: { rules: [{ conditions: [{ attribute: 'userId', operator: 'in_segment', values: [segment.key] }], value: true }] } });
    await owner.putFlagRollout({ path: { envId, key: KEY }, body: { percent: 0, newValue: true } });

    const timed = async <T>(run: () => Promise<T>): Promise<{ ms: number; result: T }> => {
      const start = performance.now();
      const result = await run();
      return { ms: elapsed(start), result };
    };
    const rolloutReplace = (ids: string[]) => timed(async () => applied(await owner.replaceFlagTargetIds({ path: { envId, key: KEY }, body: { targetIds: ids } })));
    const segmentReplace = (ids: string[]) => timed(() => owner.replaceSegmentIncluded({ path: segment, body: { targetIds: ids } }));

    const setup = [await rolloutReplace(idsOf('old')), await segmentReplace(idsOf('old'))];
    const version = (await owner.getEnvironment({ path: { envId } })).version;
    // Each replace deletes the list it replaced after answering, in slices, while the next one
    // runs: alternate the two, and compare only replaces that follow the other's (the first
    // rollout replace, which follows no deletion, is left out).
    const first = await rolloutReplace(idsOf('new'));
    const segments = [await segmentReplace(idsOf('new'))];
    const rollout = await rolloutReplace(idsOf('old'));
    segments.push(await segmentReplace(idsOf('old')));
    const seg = { ms: (segments[0]!.ms + segments[1]!.ms) / 2 };
    const counts = [first.result.count, rollout.result.count, ...segments.map((s) => s.result.count), (await owner.getSegment({ path: segment })).includedCount];
    if (counts.some((c) => c !== LIST)) throw new Error(`replace counts ${JSON.stringify(counts)}; expected ${LIST}`);
    const moved = (await owner.getEnvironment({ path: { envId } })).version - version;
    if (moved !== 4) throw new Error(`the environment moved ${moved} versions for four replaces`);
    const page = await owner.listSegmentIncluded({ path: segment, query: { limit: 1 } });
    if (page.items[0] !== 'old-0000000') throw new Error(`after the replaces the segment's list starts with ${page.items[0]}`);

    const ratio = seg.ms / rollout.ms;
    log(`  rollout replace ${(rollout.ms / 1000).toFixed(2)} s, segment replace ${(seg.ms / 1000).toFixed(2)} s (×${ratio.toFixed(2)})`);
    return {
      id: 'segment-target-ids-replace',
      title: `replace ${LIST.toLocaleString('en')} target IDs of a segment vs of a rollout`,
      backend: backend.kind,
      backendLabel: backend.label,
      series: [
        series(`rollout: replace ${LIST.toLocaleString('en')} IDs (end to end)`, [rollout.ms]),
        series(`segment: replace ${LIST.toLocaleString('en')} IDs (end to end)`, segments.map((s) => s.ms)),
      ],
      ratios: [{ label: 'segment replace / rollout replace', value: ratio, lo: ratio, hi: ratio, spreadFrom: 'one run' }],
      goals: [goal('segment replace within 1.25 × the rollout replace', seg.ms, rollout.ms * 1.25)],
      notes: [
        `setup: first fills ${setup.map((s) => `${(s.ms / 1000).toFixed(1)} s`).join(' (rollout), ')} (segment); first rollout replace (no deletion beside it) ${(first.ms / 1000).toFixed(1)} s`,
      ],
      details: { rolloutMs: rollout.ms, segmentMs: seg.ms, ratio },
      wallMs: elapsed(wall),
    };
  } finally {
    await server.stop();
  }
}
