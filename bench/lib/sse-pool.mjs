/**
 * One process of the `fan-out` benchmark's client pool: holds many server-sent-event streams
 * open, to the server under test and to its bare baseline, on plain sockets (no node:http client:
 * its parser and objects cost more per connection and per event than the whole job needs), and
 * reports when each stream receives the event carrying a new version. Several of these run side by
 * side so the clients are not what the benchmark measures.
 *
 * Each stream: `GET <path>` with the given headers as prepared bytes, status 200 required, then
 * the body is scanned, not parsed: the last `id: <n>` line seen is the stream's version (the
 * ruleset stream writes `event: ruleset\nid: <n>\ndata: {"version":<n>}`, the baseline the same
 * bytes). A short tail of each read is kept, so a line split across two reads still matches.
 *
 *   child_process.fork('bench/lib/sse-pool.mjs'), then messages (each answered):
 *   { op: 'open', target, url, path, headers, count, concurrency }
 *       opens `count` more streams to `target` (a name), each done at its first version
 *       → { op: 'opened', target, streams, minVersion, maxVersion }
 *   { op: 'arm', target, after, id }
 *       → { op: 'armed', id } at once, then { op: 'done', id, target, times, minVersion, maxVersion,
 *         missing } when every stream of `target` has an event with a version above `after`:
 *         `times` the receive time of each (ms, performance.timeOrigin + performance.now(), the
 *         clock the parent reads too), or after `timeoutMs` with `missing` streams still waiting
 *   { op: 'state', target } → { op: 'state', target, streams, closed, minVersion, maxVersion }
 *   { op: 'close' }         ends every stream and exits
 * Errors (a refused stream, a stream that ended) → { op: 'error', message }.
 */
import { connect } from 'node:net';

/** @typedef {{ socket: import('node:net').Socket, version: number, closed: boolean }} Stream */
/** @type {Map<string, Stream[]>} */
const targets = new Map();
/** @type {Map<string, { after: number, id: number, times: number[], timer: NodeJS.Timeout }>} */
const armed = new Map();
const ID_LINE = /\nid: (\d+)\n/g;
/** Set by `close`: streams ending from then on are not errors. */
let closing = false;
const now = () => performance.timeOrigin + performance.now();
const reply = (message) => process.send?.(message);

function versions(streams) {
  let min = Infinity;
  let max = -Infinity;
  for (const s of streams) {
    if (s.version < min) min = s.version;
    if (s.version > max) max = s.version;
  }
  return { minVersion: min, maxVersion: max };
}

function finish(target) {
  const arm = armed.get(target);
  if (!arm) return;
  clearTimeout(arm.timer);
  armed.delete(target);
  const streams = targets.get(target) ?? [];
  reply({ op: 'done', id: arm.id, target, times: arm.times, missing: streams.length - arm.times.length, ...versions(streams) });
}

/** A new version on one stream: counted once per armed change, the first time the stream passes it. */
function seen(target, stream, version) {
  const before = stream.version;
  if (version <= before) return;
  stream.version = version;
  const arm = armed.get(target);
  if (!arm || before > arm.after || version <= arm.after) return;
  arm.times.push(now());
  if (arm.times.length === targets.get(target).length) finish(target);
}

/** Opens one stream; resolves once it has its first version. */
function openStream(target, url, path, headers) {
  const u = new URL(url);
  const head = `GET ${path} HTTP/1.1\r\n${Object.entries({ host: u.host, accept: 'text/event-stream', ...headers })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
  return new Promise((resolve, reject) => {
    const socket = connect({ host: u.hostname, port: Number(u.port) });
    socket.setNoDelay(true);
    /** @type {Stream} */
    const stream = { socket, version: -1, closed: false };
    let pending = '';
    let inBody = false;
    let ready = false;
    socket.on('connect', () => socket.write(head, 'latin1'));
    socket.on('data', (chunk) => {
      let text = pending + chunk.toString('latin1');
      if (!inBody) {
        const end = text.indexOf('\r\n\r\n');
        if (end < 0) {
          pending = text;
          return;
        }
        if (!text.startsWith('HTTP/1.1 200')) {
          socket.destroy();
          reject(new Error(`${target}: stream refused: ${text.slice(0, 600)}`));
          return;
        }
        inBody = true;
        text = text.slice(end + 3); // keep the "\n" before the body, so a first line matches ID_LINE
      }
      let max = -1;
      for (const m of text.matchAll(ID_LINE)) max = Math.max(max, Number(m[1]));
      pending = text.slice(-24);
      if (max >= 0) seen(target, stream, max);
      if (!ready && stream.version >= 0) {
        ready = true;
        resolve(stream);
      }
    });
    socket.on('error', (err) => {
      if (!ready) reject(err);
    });
    socket.on('close', () => {
      stream.closed = true;
      if (!ready) reject(new Error(`${target}: stream closed before its first event`));
      else if (!closing) reply({ op: 'error', message: `${target}: a stream ended (version ${stream.version})` });
    });
  });
}

async function open({ target, url, path, headers, count, concurrency }) {
  const streams = targets.get(target) ?? [];
  targets.set(target, streams);
  let left = count;
  const worker = async () => {
    while (left > 0) {
      left--;
      streams.push(await openStream(target, url, path, headers));
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  reply({ op: 'opened', target, streams: streams.length, ...versions(streams) });
}

process.on('message', (msg) => {
  switch (msg.op) {
    case 'open':
      open(msg).catch((err) => reply({ op: 'error', message: err.message }));
      break;
    case 'arm': {
      const timer = setTimeout(() => finish(msg.target), msg.timeoutMs ?? 30_000);
      armed.set(msg.target, { after: msg.after, id: msg.id, times: [], timer });
      reply({ op: 'armed', id: msg.id });
      break;
    }
    case 'state': {
      const streams = targets.get(msg.target) ?? [];
      reply({ op: 'state', target: msg.target, streams: streams.length, closed: streams.filter((s) => s.closed).length, ...versions(streams) });
      break;
    }
    case 'close':
      closing = true;
      for (const streams of targets.values()) for (const s of streams) s.socket.destroy();
      process.exit(0);
  }
});
process.on('disconnect', () => process.exit(0));
