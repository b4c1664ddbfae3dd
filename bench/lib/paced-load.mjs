/**
 * Open-loop load at a steady rate, in its own small process (the bench harness's heap is large,
 * and a GC pause there would show up as the server's tail): request i is due at t0 + i/rate
 * whatever the earlier answers did, over a keep-alive pool of `connections` sockets, and its
 * latency counts from when it was due, so a stall shows in the tail instead of slowing the load
 * down. (autocannon's own rate option sends each second's quota in a burst, which measures its
 * queue, not the server's.) One second of the same load goes first as a warm-up, not counted.
 *
 *   node bench/lib/paced-load.mjs < job.json
 *
 * job.json: { url, requests: [{ method, path, headers, body? }], ok: [status…], rate, seconds,
 * connections }. Requests go out in turn. Prints one JSON line: { latencies (ms, in send order),
 * statuses, errors, slowest: [[due s, ms]…], warmupRequests }.
 */
import { Agent, request } from 'node:http';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const job = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const { url, requests, ok, rate, seconds, connections } = job;

const agent = new Agent({ keepAlive: true, maxSockets: connections });

/** One paced run; latencies in send order. */
async function run(runSeconds) {
  const total = Math.max(1, Math.round(rate * runSeconds));
  const latencies = new Array(total);
  const statuses = {};
  let errors = 0;
  let answered = 0;
  const t0 = performance.now();
  let sent = 0;
  await new Promise((resolve) => {
    const settle = () => {
      if (++answered === total) resolve();
    };
    const tick = () => {
      const now = performance.now();
      while (sent < total && t0 + (sent * 1000) / rate <= now) {
        const i = sent++;
        const due = t0 + (i * 1000) / rate;
        const r = requests[i % requests.length];
        const req = request(new URL(r.path, url), { method: r.method, headers: r.headers, agent }, (res) => {
          res.resume();
          res.on('end', () => {
            latencies[i] = performance.now() - due;
            statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
            if (!ok.includes(res.statusCode)) errors++;
            settle();
          });
        });
        req.on('error', () => {
          latencies[i] = performance.now() - due;
          errors++;
          settle();
        });
        req.end(r.body);
      }
      if (sent < total) setTimeout(tick, 1);
    };
    tick();
  });
  return { latencies, statuses, errors };
}

// A young process is slow for its first fraction of a second (JIT, lazily loaded internals, the
// socket pool filling): a second of the same load first, not counted.
const warmup = await run(Math.min(1, seconds));
const { latencies, statuses, errors } = await run(seconds);
agent.destroy();
const slowest = latencies
  .map((ms, i) => [Number((i / rate).toFixed(3)), Number(ms.toFixed(2))])
  .sort((a, b) => b[1] - a[1])
  .slice(0, 10);
process.stdout.write(`${JSON.stringify({ latencies, statuses, errors, slowest, warmupRequests: warmup.latencies.length })}\n`);
