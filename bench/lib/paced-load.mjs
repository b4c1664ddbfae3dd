/**
 * Open-loop load at a steady rate, in its own small process (the bench harness's heap is large,
 * and a GC pause there would show up as the server's tail): request i is due at t0 + i/rate
 * whatever the earlier answers did, over `connections` keep-alive sockets, and its latency
 * counts from when it was due, so a stall shows in the tail instead of slowing the load down.
 * (autocannon's own rate option sends each second's quota in a burst, which measures its queue,
 * not the server's.) One second of the same load goes first as a warm-up, not counted.
 *
 * The requests are written as prepared bytes on plain sockets and the answers read with a
 * minimal HTTP/1.1 parser (status line, Content-Length or chunked body), because node:http's
 * client cost ~100 µs of CPU per request: at 8,000 requests/s the load generator alone took most
 * of one of this machine's two cores, and its own scheduling showed up as the server's tail.
 *
 *   node bench/lib/paced-load.mjs < job.json
 *
 * job.json: { url, requests: [{ method, path, headers, body? }], ok: [status…], rate, seconds,
 * connections }. Requests go out in turn. Prints one JSON line: { latencies (ms, in send order),
 * statuses, errors, slowest: [[due s, ms]…], warmupRequests }.
 */
import { connect } from 'node:net';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const job = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const { url, requests, ok, rate, seconds, connections } = job;
const target = new URL(url);

/** Each request as the bytes that go on the wire. */
const wire = requests.map((r) => {
  const body = r.body === undefined ? Buffer.alloc(0) : Buffer.from(r.body);
  const headers = { host: target.host, ...r.headers, ...(body.length || r.method !== 'GET' ? { 'content-length': String(body.length) } : {}) };
  const head = `${r.method} ${r.path} HTTP/1.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), body]);
});

/**
 * Where the response at the start of `buf` ends, and its status; null while incomplete.
 * Enough of HTTP/1.1 for what a server sends here: no body (1xx, 204, 304), Content-Length, or chunked.
 */
function responseEnd(buf) {
  const headEnd = buf.indexOf('\r\n\r\n');
  if (headEnd < 0) return null;
  const head = buf.toString('latin1', 0, headEnd);
  const status = Number(head.slice(9, 12));
  const bodyStart = headEnd + 4;
  if (status === 204 || status === 304 || status < 200) return { status, end: bodyStart };
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (length) {
    const end = bodyStart + Number(length[1]);
    return buf.length >= end ? { status, end } : null;
  }
  if (/\r\ntransfer-encoding:[^\r]*chunked/i.test(head)) {
    let at = bodyStart;
    for (;;) {
      const lineEnd = buf.indexOf('\r\n', at);
      if (lineEnd < 0) return null;
      const size = parseInt(buf.toString('latin1', at, lineEnd), 16);
      at = lineEnd + 2 + size + 2;
      if (buf.length < at) return null;
      if (size === 0) return { status, end: at };
    }
  }
  return { status, end: bodyStart };
}

/** A keep-alive connection answering one request at a time; reopened when the server closes it. */
function connection(onAnswer, onError, onConnect) {
  const conn = { busy: false, socket: null, buf: Buffer.alloc(0), current: null };
  const open = () => {
    conn.socket = connect({ host: target.hostname, port: Number(target.port), noDelay: true });
    conn.buf = Buffer.alloc(0);
    conn.socket.once('connect', onConnect);
    conn.socket.on('data', (data) => {
      conn.buf = conn.buf.length ? Buffer.concat([conn.buf, data]) : data;
      const done = conn.current && responseEnd(conn.buf);
      if (!done) return;
      conn.buf = conn.buf.subarray(done.end);
      const finished = conn.current;
      conn.current = null;
      conn.busy = false;
      onAnswer(finished, done.status);
    });
    conn.socket.on('error', () => {});
    conn.socket.on('close', () => {
      const lost = conn.current;
      conn.current = null;
      conn.busy = false;
      if (lost) onError(lost);
      if (!closing) open();
    });
  };
  conn.send = (request) => {
    conn.busy = true;
    conn.current = request;
    conn.socket.write(wire[request.i % wire.length]);
  };
  open();
  return conn;
}

let closing = false;
let onAnswer = () => {};
let onError = () => {};
let onConnect = () => {};
const pool = Array.from({ length: connections }, () =>
  connection(
    (request, status) => onAnswer(request, status),
    (request) => onError(request),
    () => onConnect(),
  ),
);

/** One paced run; latencies in send order. */
async function run(runSeconds) {
  const total = Math.max(1, Math.round(rate * runSeconds));
  const latencies = new Array(total);
  const statuses = {};
  let errors = 0;
  let answered = 0;
  const waiting = []; // due, but every connection busy: sent as soon as one frees up
  const t0 = performance.now();
  let sent = 0;
  await new Promise((resolve) => {
    const settle = () => {
      if (++answered === total) resolve();
      const next = waiting.shift();
      if (next) dispatch(next);
    };
    const dispatch = (request) => {
      const free = pool.find((c) => !c.busy && c.socket && !c.socket.connecting && !c.socket.destroyed);
      if (free) free.send(request);
      else waiting.push(request);
    };
    onAnswer = (request, status) => {
      latencies[request.i] = performance.now() - request.due;
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (!ok.includes(status)) errors++;
      settle();
    };
    onConnect = () => {
      // A reopened connection takes the oldest waiting request.
      const next = waiting.shift();
      if (next) dispatch(next);
    };
    onError = (request) => {
      latencies[request.i] = performance.now() - request.due;
      errors++;
      settle();
    };
    const tick = () => {
      const now = performance.now();
      while (sent < total && t0 + (sent * 1000) / rate <= now) {
        const i = sent++;
        dispatch({ i, due: t0 + (i * 1000) / rate });
      }
      if (sent < total) setTimeout(tick, 1);
    };
    tick();
  });
  return { latencies, statuses, errors };
}

// Connect first, then a young process is slow for its first fraction of a second (JIT, lazily
// loaded internals): a second of the same load first, not counted.
await Promise.all(pool.map((c) => new Promise((resolve) => (c.socket.connecting ? c.socket.once('connect', resolve) : resolve()))));
const warmup = await run(Math.min(1, seconds));
const { latencies, statuses, errors } = await run(seconds);
closing = true;
for (const c of pool) c.socket.destroy();
const slowest = latencies
  .map((ms, i) => [Number((i / rate).toFixed(3)), Number(ms.toFixed(2))])
  .sort((a, b) => b[1] - a[1])
  .slice(0, 10);
process.stdout.write(`${JSON.stringify({ latencies, statuses, errors, slowest, warmupRequests: warmup.latencies.length })}\n`);
