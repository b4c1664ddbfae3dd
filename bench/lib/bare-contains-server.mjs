/**
 * The baseline of the `contains` benchmark: a bare `node:http` server in its own process that
 * answers `GET …/rollout/target-ids/contains/{id}` from an in-memory Set holding the same IDs as
 * the real server's list, with the same JSON body. No routing library, no auth, no database:
 * the least any server on this machine can do per request.
 *
 *   node bench/lib/bare-contains-server.mjs <count>    IDs user-0000001 … user-<count>
 *
 * Prints the port on stdout once listening.
 */
import { createServer } from 'node:http';

const count = Number(process.argv[2]);
const ids = new Set();
for (let n = 1; n <= count; n++) ids.add(`user-${String(n).padStart(7, '0')}`);

const route = /^\/api\/v1\/envs\/[^/]+\/(?:flags|configs)\/[^/]+\/rollout\/target-ids\/contains\/([^/?]+)$/;
const server = createServer((req, res) => {
  const match = route.exec(req.url ?? '');
  if (req.method !== 'GET' || !match) {
    res.writeHead(404).end();
    return;
  }
  const body = JSON.stringify({ contains: ids.has(decodeURIComponent(match[1])) });
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) }).end(body);
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
