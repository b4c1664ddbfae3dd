import client from 'prom-client';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LatencyHistogram } from './latency-histogram.js';

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const LABELS = ['method', 'route', 'status'] as const;

/** The same observations into prom-client's own Histogram and ours, each in a registry of its own. */
function bothExpositions(observations: Array<{ labels: [string, string, string]; seconds: number }>) {
  const theirs = new client.Registry();
  const ours = new client.Registry();
  const reference = new client.Histogram({ name: 'h_seconds', help: 'Latency.', labelNames: LABELS, buckets: BUCKETS, registers: [theirs] });
  const histogram = new LatencyHistogram({ name: 'h_seconds', help: 'Latency.', labelNames: LABELS, buckets: BUCKETS, registers: [ours] });
  for (const { labels, seconds } of observations) {
    reference.labels(...labels).observe(seconds);
    histogram.labels(...labels).observe(seconds);
  }
  return { theirs, ours };
}

describe('LatencyHistogram renders what prom-client’s Histogram renders', () => {
  it('for any observations over a few label sets: text and JSON expositions alike', async () => {
    const labelSet = fc.constantFrom<[string, string, string]>(['GET', '/a', '304'], ['POST', '/b/:id', '200'], ['GET', 'unmatched', '404']);
    // Bucket bounds themselves, values between them, zero and beyond the last bound.
    const seconds = fc.oneof(fc.constantFrom(0, ...BUCKETS, 3, 100), fc.double({ min: 0, max: 5, noNaN: true }));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ labels: labelSet, seconds }), { maxLength: 60 }), async (observations) => {
        const { theirs, ours } = bothExpositions(observations);
        expect(await ours.metrics()).toBe(await theirs.metrics());
        expect(await ours.getMetricsAsJSON()).toEqual(await theirs.getMetricsAsJSON());
      }),
      { numRuns: 200 },
    );
  });

  it('observe(labels, value) and startTimer() land in the bound series; reset() empties it', async () => {
    const registry = new client.Registry();
    const histogram = new LatencyHistogram({ name: 'h_seconds', help: 'Latency.', labelNames: LABELS, buckets: BUCKETS, registers: [registry] });
    histogram.observe({ method: 'GET', route: '/a', status: '200' }, 0.003);
    histogram.startTimer()({ method: 'GET', route: '/a', status: '200' });
    const series = histogram.labels('GET', '/a', '200');
    expect(series.count).toBe(2);
    expect(series.counts[2]).toBe(1); // 0.003 s: in (0.0025, 0.005]
    expect(await registry.metrics()).toMatch(/^h_seconds_count\{method="GET",route="\/a",status="200"\} 2$/m);
    histogram.reset();
    expect(await registry.metrics()).not.toMatch(/h_seconds_count/);
  });
});
