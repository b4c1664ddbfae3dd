/**
 * Prism (`@stoplight/prism-cli`) for the contract tests:
 *  - `startPrism(['mock', openapiPath])`: answers every operation from the spec;
 *  - `startPrismProxy(upstream)`: the validating proxy in front of a real server,
 *    reporting every response that breaks the spec.
 * Prism is started as `node …/prism-cli/dist/index.js` (not through npx, so
 * killing it kills Prism itself) on a free port, and is ready in about a second.
 */
import { spawn } from 'node:child_process';
import { Agent, createServer as createHttpServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { contract } from '@gradual/contract';
import type { AppRoute, AppRouter } from '@ts-rest/core';

const root = fileURLToPath(new URL('../../', import.meta.url));
const prismCli = `${root}node_modules/@stoplight/prism-cli/dist/index.js`;
export const openapiPath = `${root}openapi.yaml`;

export interface PrismProcess {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Prism's own log lines, colours stripped. */
  log(): readonly string[];
  close(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

// eslint-disable-next-line no-control-regex
const ansi = /\u001b\[[0-9;]*m/g;

/** Starts Prism with these CLI arguments (host and port added); resolves once it listens. */
export async function startPrism(args: string[], { timeoutMs = 30_000 } = {}): Promise<PrismProcess> {
  let lastError: unknown;
  // A port found free can be taken before Prism binds it: try a few.
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    try {
      return await spawnPrism([...args, '--host', '127.0.0.1', '--port', String(port)], port, timeoutMs);
    } catch (err) {
      lastError = err;
    }
  }
  throw lastError;
}

function spawnPrism(args: string[], port: number, timeoutMs: number): Promise<PrismProcess> {
  const child = spawn(process.execPath, [prismCli, ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
  });
  const lines: string[] = [];
  let partial = '';
  const onData = (chunk: Buffer) => {
    partial += chunk.toString('utf8');
    const parts = partial.split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) lines.push(line.replace(ansi, ''));
    // Prism logs every request: keep memory bounded on long suites.
    if (lines.length > 20_000) lines.splice(0, 10_000);
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(killer);
    }
  };

  return new Promise<PrismProcess>((resolve, reject) => {
    const fail = (why: string) => {
      clearInterval(poll);
      clearTimeout(timer);
      void close().then(() => reject(new Error(`prism ${args.join(' ')}: ${why}\n${lines.slice(-20).join('\n')}`)));
    };
    const timer = setTimeout(() => fail(`not listening after ${timeoutMs} ms`), timeoutMs);
    const poll = setInterval(() => {
      if (child.exitCode !== null) return fail(`exited with ${child.exitCode}`);
      if (!lines.some((l) => l.includes('Prism is listening on'))) return;
      clearInterval(poll);
      clearTimeout(timer);
      resolve({ url: `http://127.0.0.1:${port}`, log: () => lines, close });
    }, 50);
  });
}

export interface PrismViolation {
  location?: string[];
  severity?: string;
  code?: string | number;
  message?: string;
}

export interface PrismProxy {
  /** Where to send requests: the splitter in front of Prism. */
  url: string;
  /** Contract violations found so far, one line per response: `METHOD /path → status: [violations]`. */
  violations(): readonly string[];
  /** Requests sent straight to the server instead of through Prism, with why (see below). */
  bypassed(): ReadonlyMap<string, number>;
  close(): Promise<void>;
}

/** Prism's request-body parser refuses larger bodies. */
const PRISM_BODY_LIMIT = 10 * 1024 * 1024;

/** Paths of operations answering server-sent events (`c.otherResponse({contentType: 'text/event-stream'})`). */
const streamingPaths: RegExp[] = [];
(function walk(router: AppRouter) {
  for (const value of Object.values(router)) {
    if (typeof (value as AppRoute).method !== 'string') {
      walk(value as AppRouter);
      continue;
    }
    const route = value as AppRoute;
    const ok = (route.responses as Record<number, unknown>)[200] as { contentType?: string } | undefined;
    if (ok?.contentType === 'text/event-stream') {
      streamingPaths.push(new RegExp(`^${route.path.replace(/[.]/g, '\\.').replace(/:[A-Za-z]+/g, '[^/]+')}(?:\\?.*)?$`));
    }
  }
})(contract);

/**
 * Why Prism cannot carry this request faithfully, or undefined when it can.
 * Prism's proxy (5.14) parses the request body and forwards a re-serialised
 * copy (`JSON.stringify` of the parsed JSON, or the body decoded as UTF-8
 * text), refuses bodies it cannot parse or over 10 MiB, and reads the whole
 * upstream response before answering, so an endless response never arrives.
 */
function bypassReason(method: string, path: string, headers: IncomingHttpHeaders, body: Buffer): string | undefined {
  if (method === 'GET' && streamingPaths.some((re) => re.test(path))) return 'server-sent events (Prism buffers whole responses)';
  if (body.length === 0) return undefined;
  if (body.length > PRISM_BODY_LIMIT) return 'body over 10 MiB (Prism refuses it)';
  const text = body.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(body)) return 'body not UTF-8 (Prism would re-encode it)';
  if (/^application\/(?:[\w.-]+\+)?json\b/i.test(headers['content-type'] ?? '')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return 'unparseable JSON body (Prism answers it itself)';
    }
    if (JSON.stringify(parsed) !== text) return 'JSON body Prism would re-serialise (raw bytes matter)';
  }
  return undefined;
}

function readBody(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

function parseViolations(header: string): PrismViolation[] {
  try {
    return JSON.parse(header) as PrismViolation[];
  } catch {
    // "Too many violations! <truncated JSON>"
    return [{ location: ['response'], message: header }];
  }
}

/**
 * The request header that names, to the shared Prism's router, the loopback port of the server a
 * request is for. The router takes it off before the server sees the request.
 */
const UPSTREAM_PORT_HEADER = 'x-gradual-test-upstream-port';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared Prism's address (global-setup.ts), when requests go through Prism. */
    gradualPrism: string | undefined;
  }
}

export interface SharedPrism {
  /** Prism's own address: send it requests carrying the upstream port header. */
  url: string;
  close(): Promise<void>;
}

/**
 * One `prism proxy` for a whole test run (global-setup.ts, with GRADUAL_TEST_VIA_PRISM=1), instead
 * of one per test server: Prism takes about 3 s of CPU to start (it parses openapi.yaml), and the
 * HTTP suite starts about fifty servers. Prism forwards every request header to its one upstream,
 * a router here that sends each request on to the loopback port its header names, unchanged.
 */
export async function startSharedPrism(): Promise<SharedPrism> {
  const agent = new Agent({ keepAlive: false });
  const router = createHttpServer((req, res) => {
    const port = Number(req.headers[UPSTREAM_PORT_HEADER]);
    if (!Number.isInteger(port) || port <= 0 || port > 65_535) {
      res.writeHead(421, { 'content-type': 'text/plain' }).end(`no ${UPSTREAM_PORT_HEADER} header`);
      return;
    }
    const headers: IncomingHttpHeaders = { ...req.headers, host: `127.0.0.1:${port}` };
    delete headers[UPSTREAM_PORT_HEADER];
    const forward = httpRequest({ host: '127.0.0.1', port, path: req.url, method: req.method, headers, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    res.on('close', () => forward.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => router.listen(0, '127.0.0.1', resolve));
  const { port } = router.address() as { port: number };
  let prism: PrismProcess;
  try {
    prism = await startPrism(['proxy', openapiPath, `http://127.0.0.1:${port}`]);
  } catch (err) {
    router.close();
    throw err;
  }
  return {
    url: prism.url,
    close: async () => {
      await prism.close();
      router.closeAllConnections();
      await new Promise<void>((resolve) => router.close(() => resolve()));
    },
  };
}

/**
 * `prism proxy openapi.yaml <upstream>` (without `--errors`, so the server's
 * own 4xx answers reach the tests) behind a small splitter that every request
 * goes through. The splitter
 *  - records the `sl-violations` Prism puts on each response that breaks the
 *    contract: response violations always, request violations only when the
 *    server accepted the request (status below 400), since tests send invalid
 *    requests on purpose to check the server's 400s;
 *  - sends the few requests Prism cannot carry faithfully (`bypassReason`)
 *    straight to the server, counted in `bypassed()`;
 *  - re-applies gzip that Prism decoded: Prism decompresses the upstream body
 *    and drops `Content-Encoding`, so when the response varies on
 *    Accept-Encoding and the client accepts gzip, the body is gzipped again
 *    (the client sees the transport the server chose).
 */
export async function startPrismProxy(upstream: string, opts: { shared?: string } = {}): Promise<PrismProxy> {
  // With a shared Prism (startSharedPrism) only the splitter is this server's own.
  const prism: Pick<PrismProcess, 'url' | 'close'> = opts.shared
    ? { url: opts.shared, close: async () => {} }
    : await startPrism(['proxy', openapiPath, upstream]);
  const upstreamPort = new URL(upstream).port;
  const found: string[] = [];
  const bypassed = new Map<string, number>();
  // No keep-alive upstream: a reused socket that Prism closes at the same moment fails the request (ECONNRESET).
  const agent = new Agent({ keepAlive: false });

  const splitter = createHttpServer((req, res) => void split(req, res));
  async function split(req: IncomingMessage, res: ServerResponse) {
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    let body: Buffer;
    try {
      body = await readBody(req);
    } catch {
      res.destroy();
      return;
    }
    const reason = bypassReason(method, path, req.headers, body);
    if (reason) bypassed.set(reason, (bypassed.get(reason) ?? 0) + 1);
    const target = new URL(path, reason ? upstream : prism.url);
    const headers = { ...req.headers, host: target.host, ...(!reason && opts.shared ? { [UPSTREAM_PORT_HEADER]: upstreamPort } : {}) };
    const forward = httpRequest(target, { method, headers, agent }, (answer) => {
      const status = answer.statusCode ?? 502;
      const outHeaders = { ...answer.headers };
      if (!reason) {
        const header = answer.headers['sl-violations'];
        if (typeof header === 'string') {
          const relevant = parseViolations(header).filter((v) => v.location?.[0] === 'response' || status < 400);
          if (relevant.length > 0) found.push(`${method} ${path} → ${status}: ${JSON.stringify(relevant)}`);
        }
        const varies = /accept-encoding/i.test(String(answer.headers.vary ?? ''));
        if (varies && !answer.headers['content-encoding'] && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? '')) && status === 200) {
          void readBody(answer).then((plain) => {
            const gz = gzipSync(plain);
            delete outHeaders['transfer-encoding'];
            res.writeHead(status, { ...outHeaders, 'content-encoding': 'gzip', 'content-length': String(gz.length) });
            res.end(gz);
          });
          return;
        }
      }
      res.writeHead(status, outHeaders);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    // A client that goes away (an aborted stream) ends the upstream request too.
    res.on('close', () => forward.destroy());
    forward.end(body);
  }
  await new Promise<void>((resolve) => splitter.listen(0, '127.0.0.1', resolve));
  const { port } = splitter.address() as { port: number };

  return {
    url: `http://127.0.0.1:${port}`,
    violations: () => found,
    bypassed: () => bypassed,
    close: async () => {
      splitter.closeAllConnections();
      await new Promise<void>((resolve) => splitter.close(() => resolve()));
      await prism.close();
    },
  };
}
