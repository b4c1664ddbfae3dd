/**
 * The ceiling for the server load benchmark: a bare `node:http` server in its own process that
 * answers each benchmarked request with the bytes the real server sent for it, straight from
 * memory (no routing library, no auth, no database). Same status, headers and body; GETs with
 * a matching If-None-Match get the same 304, with the headers the real server's 304 carried.
 *
 *   node bench/lib/bare-server.mjs <responses.json>
 *
 * responses.json: { "<METHOD> <path>": { status, headers, bodyBase64, notModifiedHeaders?, etags? } };
 * `etags` lists more ETags answered with 304 (an answer whose ETag differs per API key).
 * Prints the port on stdout once listening.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const routes = new Map(
  Object.entries(JSON.parse(readFileSync(process.argv[2], 'utf8'))).map(([k, v]) => [k, { ...v, body: Buffer.from(v.bodyBase64, 'base64') }]),
);

const server = createServer((req, res) => {
  const route = routes.get(`${req.method} ${req.url}`);
  // Read (and drop) the request body before answering, as the real server must.
  req.resume();
  req.on('end', () => {
    if (!route) {
      res.writeHead(404).end();
      return;
    }
    const etag = route.headers.etag;
    const ifNoneMatch = req.headers['if-none-match'];
    if (ifNoneMatch && (ifNoneMatch === etag || route.etags?.includes(ifNoneMatch))) {
      res.writeHead(304, route.notModifiedHeaders ?? { etag }).end();
      return;
    }
    res.writeHead(route.status, route.headers).end(route.body);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
