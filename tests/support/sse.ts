import { request, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';

/** An answer to a ruleset stream request: a live stream (200) or a refusal with its envelope. */
export interface StreamAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The refusal's JSON envelope (null for a 200). */
  error: { code: string; message: string; details?: Record<string, unknown>; requestId: string } | null;
  /** The next `ruleset` event's data. */
  next(timeoutMs?: number): Promise<{ version: number }>;
  /** Resolves when the server ends the stream (or the connection drops). */
  ended: Promise<void>;
  /** Whether the stream has ended. */
  readonly isEnded: boolean;
  /** Closes the stream from the client's side. */
  close(): void;
}

export interface StreamOptions {
  /** Authorization header value. */
  authorization?: string;
  /** A session cookie's token. */
  sessionToken?: string;
  /** The client's own address (any 127.x.y.z reaches a server on 127.0.0.1, as a different client). */
  localAddress?: string;
}

/** Opens `GET /api/v1/envs/{envId}/ruleset/stream` over node:http, one connection per stream. */
export function openRulesetStream(baseUrl: string, envId: string, opts: StreamOptions = {}): Promise<StreamAnswer> {
  return openEventStream(new URL(`/api/v1/envs/${envId}/ruleset/stream`, baseUrl), opts);
}

/** Opens any event stream (an OFREP stream URL with its ticket, say) over node:http, one connection per stream. */
export function openEventStream(url: URL, opts: StreamOptions = {}): Promise<StreamAnswer> {
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (opts.authorization) headers.authorization = opts.authorization;
  if (opts.sessionToken) headers.cookie = `svc_session=${encodeURIComponent(opts.sessionToken)}`;
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, agent: false, ...(opts.localAddress ? { localAddress: opts.localAddress } : {}) }, (res) => {
      if (res.statusCode !== 200) {
        void readAll(res).then((body) => {
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            error: JSON.parse(body) as StreamAnswer['error'],
            next: () => Promise.reject(new Error('not a stream')),
            ended: Promise.resolve(),
            isEnded: true,
            close: () => {},
          });
        }, reject);
        return;
      }
      resolve(streamOf(res, () => req.destroy()));
    });
    req.on('error', reject);
    req.end();
  });
}

function streamOf(res: IncomingMessage, destroy: () => void): StreamAnswer {
  let buffer = '';
  const events: Array<{ version: number }> = [];
  const waiters: Array<() => void> = [];
  let isEnded = false;
  const ended = new Promise<void>((resolve) => {
    const done = () => {
      isEnded = true;
      resolve();
      for (const wake of waiters.splice(0)) wake();
    };
    res.on('end', done);
    res.on('close', done);
    res.on('error', done);
  });
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    buffer += chunk;
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block.split('\n').find((line) => line.startsWith('data: '));
      if (block.includes('event: ruleset') && data) events.push(JSON.parse(data.slice(6)) as { version: number });
    }
    for (const wake of waiters.splice(0)) wake();
  });
  return {
    status: 200,
    headers: res.headers,
    error: null,
    ended,
    get isEnded() {
      return isEnded;
    },
    close: destroy,
    async next(timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (events.length === 0) {
        if (isEnded) throw new Error('stream ended');
        const left = deadline - Date.now();
        if (left <= 0) throw new Error('no event in time');
        await new Promise<void>((wake) => {
          const timer = setTimeout(wake, left);
          waiters.push(() => {
            clearTimeout(timer);
            wake();
          });
        });
      }
      return events.shift()!;
    },
  };
}

function readAll(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => (body += chunk));
    res.on('end', () => resolve(body));
    res.on('error', reject);
  });
}

/** Resolves when `promise` does, or rejects after `ms`. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}
