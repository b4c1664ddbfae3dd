/**
 * `target-ids-replace`: a 1,000,000-ID replace and what another organization sees meanwhile.
 *
 * The server is a production start in its own process. Organization A has a rollout whose list
 * already holds 1,000,000 IDs (one replace at setup); organization B is a small tenant with an API
 * key. Measured:
 *
 * - another org's `GET …/flags/{key}/rollout` (a request that reads the database: the rollout is
 *   looked up on every call), sequential, at rest: its p50/p99;
 * - a second 1,000,000-ID replace in org A (a different million IDs, so the whole list is
 *   exchanged), end to end as the client sees it (JSON upload included), while the same loop of
 *   org B's GETs runs: their p50/p99/max during the replace.
 *
 * The goals: the replace within 1.5 × the figure before bulk writes were staged in slices, and
 * org B's p99 during the replace within a bound far below the replace itself. The ratio of org B's
 * p99 during the replace to its p99 at rest is reported. On the embedded database (one PostgreSQL
 * session for everything) this is the starvation case; on PostgreSQL it shows the same code with
 * several connections.
 *
 * BENCH_REPLACE_IDS overrides the list size (default 1,000,000).
 */
import { createClient, GradualApiError } from '@gradual/sdk';
import { claimProcess, startProduction } from '../tests/support/production.js';
import type { Backend } from './lib/backends.js';
import { applied } from './lib/instance.js';
import { goal, series, type BenchResult } from './lib/report.js';
import { elapsed, summarize } from './lib/stats.js';

const LIST = Number(process.env.BENCH_REPLACE_IDS ?? 1_000_000);
const KEY = 'big-list';
const AT_REST = 200;
/** The replace's end-to-end time as one transaction, before edits were written in slices (13–20 s embedded on a quiet 2-core machine; 19 s measured on PostgreSQL on a busy one). */
const BEFORE_MS: Record<Backend['kind'], number> = { embedded: 16_000, postgres: 19_000 };
const GOAL_OTHER_P99_MS = 300;

const idsOf = (prefix: string) => Array.from({ length: LIST }, (_, i) => `${prefix}-${String(i).padStart(7, '0')}`);

export async function benchTargetIdsReplace(backend: Backend, log: (msg: string) => void): Promise<BenchResult> {
  const wall = performance.now();
  const notes: string[] = [];
  const server = await startProduction({
    ...(backend.kind === 'postgres' ? { adminUrl: backend.adminUrl! } : {}),
    env: { ORG_RATE_LIMIT_PER_MIN: '100000000' },
  });
  try {
    const { owner } = await claimProcess(server, 'bulk');
    const project = await owner.createProject({ path: { slug: 'bulk' }, body: { key: 'bulk', name: 'Bulk' } });
    const envId = (await owner.createEnvironment({ path: { id: project.id }, body: { key: 'prod', name: 'Prod' } })).id;
    await owner.createFlag({ path: { id: project.id }, body: { key: KEY, name: 'Big list', defaultValue: false } });
    await owner.putFlagRollout({ path: { envId, key: KEY }, body: { percent: 0, newValue: true } });

    // Organization B: a small tenant of its own, called with its API key.
    const other = await owner.createOrg({ body: { name: 'Other', slug: 'other' } });
    const otherProject = await owner.createProject({ path: { slug: other.slug }, body: { key: 'web', name: 'Web' } });
    const otherEnv = (await owner.createEnvironment({ path: { id: otherProject.id }, body: { key: 'prod', name: 'Prod' } })).id;
    await owner.createFlag({ path: { id: otherProject.id }, body: { key: 'small', name: 'Small', defaultValue: false } });
    await owner.putFlagRollout({ path: { envId: otherEnv, key: 'small' }, body: { percent: 10, newValue: true } });
    const { token } = await owner.createApiKey({ path: { slug: other.slug }, body: { name: 'reader', rateLimitPerMin: 100_000 } });
    const otherClient = createClient({ baseUrl: server.url, token });
    let failed = 0;
    /** One GET of org B, timed; a failure (a 503 after waiting for the database) counts, with its time. */
    const otherGet = async () => {
      const start = performance.now();
      try {
        const rollout = await otherClient.getFlagRollout({ path: { envId: otherEnv, key: 'small' } });
        if (rollout.percent !== 10) throw new Error(`org B's rollout answered ${JSON.stringify(rollout)}`);
      } catch (err) {
        if (!(err instanceof GradualApiError)) throw err;
        failed++;
      }
      return elapsed(start);
    };

    const setup = performance.now();
    const first = applied(await owner.replaceFlagTargetIds({ path: { envId, key: KEY }, body: { targetIds: idsOf('old') } }));
    notes.push(`setup: ${LIST.toLocaleString('en')} IDs in one replace (${(elapsed(setup) / 1000).toFixed(1)} s), answered ${JSON.stringify(first)}`);

    for (let i = 0; i < 20; i++) await otherGet();
    const atRest: number[] = [];
    for (let i = 0; i < AT_REST; i++) atRest.push(await otherGet());

    const next = idsOf('new');
    const during: number[] = [];
    let done = false;
    const started = performance.now();
    const replace = owner.replaceFlagTargetIds({ path: { envId, key: KEY }, body: { targetIds: next } }).finally(() => (done = true));
    const loop = (async () => {
      while (!done) during.push(await otherGet());
    })();
    const replaced = applied(await replace);
    const replaceMs = elapsed(started);
    await loop;
    const count = (await owner.getFlagRollout({ path: { envId, key: KEY } })).targetIdsCount;
    if (replaced.count !== LIST || count !== LIST) throw new Error(`replace: ${JSON.stringify(replaced)}, targetIdsCount ${count}; expected ${LIST}`);
    const page = await owner.listFlagTargetIds({ path: { envId, key: KEY }, query: { limit: 2 } });
    if (page.items[0] !== next[0]) throw new Error(`after the replace the list starts with ${page.items[0]}`);

    const rest = summarize(atRest);
    const busy = summarize(during);
    const ratio = busy.p99 / rest.p99;
    log(`  replace ${(replaceMs / 1000).toFixed(2)} s; org B p50/p99 at rest ${rest.median.toFixed(1)}/${rest.p99.toFixed(1)} ms, during ${busy.median.toFixed(1)}/${busy.p99.toFixed(1)} ms (max ${busy.max.toFixed(0)} ms, ${during.length} GETs, ${failed} failed)`);
    notes.push(`org B's GETs during the replace: ${during.length} (${failed} failed), max ${busy.max.toFixed(0)} ms; p99 during / p99 at rest ×${ratio.toFixed(1)}`);
    return {
      id: 'target-ids-replace',
      title: `replace ${LIST.toLocaleString('en')} target IDs while another org reads`,
      backend: backend.kind,
      backendLabel: backend.label,
      series: [series(`replace ${LIST.toLocaleString('en')} IDs (end to end)`, [replaceMs]), series('org B GET at rest', atRest, true), series('org B GET during the replace', during, true)],
      ratios: [{ label: 'org B p99 during the replace / at rest', value: ratio, lo: ratio, hi: ratio, spreadFrom: 'one run' }],
      goals: [
        goal(`replace within 1.5 × ${(BEFORE_MS[backend.kind] / 1000).toFixed(0)} s`, replaceMs, BEFORE_MS[backend.kind] * 1.5),
        goal("another org's p99 during the replace", busy.p99, GOAL_OTHER_P99_MS),
      ],
      notes,
      details: { replaceMs, atRest: rest, during: busy, ratio, failed },
      wallMs: elapsed(wall),
    };
  } finally {
    await server.stop();
  }
}
