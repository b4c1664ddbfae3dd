/**
 * The baseline of the `fan-out` benchmark: a bare `node:http` server-sent-events broadcaster in its
 * own process. Every GET opens a stream answered with the status and headers the real server's
 * ruleset stream carried, then the bytes it writes on connect; POST /__broadcast?version=N writes
 * one event, the bytes the real server writes for a new version, to every open stream (built once,
 * written as is to each), and answers 204 once all are written. No routing library, no auth, no
 * database, no per-stream timer: the least any server on this machine can do to tell N
 * connections about a change.
 *
 *   node bench/lib/bare-sse-server.mjs <config.json>
 *
 * config.json: { status, headers, connect, event }: `connect` and `event` are the real server's
 * bytes (latin1) with the version replaced by `{version}`. The version on connect is the last
 * broadcast one (0 before any). GET /__memory answers, after a full GC, this process's RSS and V8
 * heap in bytes and the number of open streams. Prints the port on stdout once listening.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const config = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const bytes = (template, version) => Buffer.from(template.replaceAll('{version}', String(version)), 'latin1');

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');

const streams = new Set();
let version = 0;

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://bare');
  if (req.method === 'POST' && url.pathname === '/__broadcast') {
    req.resume();
    req.on('end', () => {
      version = Number(url.searchParams.get('version'));
      const event = bytes(config.event, version);
      for (const stream of streams) stream.write(event);
      res.writeHead(204, { 'x-streams': String(streams.size) }).end();
    });
    return;
  }
  if (req.method === 'GET' && url.pathname === '/__memory') {
    gc();
    const { rss, heapUsed } = process.memoryUsage();
    const body = JSON.stringify({ rss, heapUsed, streams: streams.size });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
    return;
  }
  if (req.method !== 'GET') {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(config.status, config.headers);
  res.write(bytes(config.connect, version));
  streams.add(res);
  res.on('close', () => streams.delete(res));
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => {
  for (const stream of streams) stream.destroy();
  server.close(() => process.exit(0));
});
