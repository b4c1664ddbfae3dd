import { createServer as createNetServer } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { startTestServer, type TestServer } from './server.js';

/** One received mail, decoded enough to read it as a person would. */
export interface ReceivedMail {
  to: string[];
  from: string;
  subject: string;
  text: string;
  /** The first http(s) URL in the body: the link the mail is about. */
  link: string;
}

/**
 * A real SMTP server (smtp-server) on a random local port that keeps every
 * mail it receives. The Gradual server sends to it through SMTP_URL, exactly
 * as it would to a production relay.
 */
export interface MailSink {
  url: string;
  received: ReceivedMail[];
  /** Resolves with the next mail to `to` not yet taken (waits up to `timeoutMs`). */
  next(to: string, timeoutMs?: number): Promise<ReceivedMail>;
  /** Mails to `to` not yet taken by next(). */
  pending(to: string): ReceivedMail[];
  /** Refuses the next `n` messages with a temporary SMTP error (451). */
  failNext(n: number): void;
  /** How many messages were refused so far. */
  readonly refused: number;
  close(): Promise<void>;
}

export async function startMailSink(): Promise<MailSink> {
  const received: ReceivedMail[] = [];
  const taken = new Set<ReceivedMail>();
  const waiters: Array<() => void> = [];
  let failures = 0;
  let refused = 0;

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (failures > 0) {
          failures--;
          refused++;
          const err = new Error('Try again later') as Error & { responseCode: number };
          err.responseCode = 451;
          return callback(err);
        }
        const mail = parseMail(Buffer.concat(chunks).toString('utf8'));
        mail.to = session.envelope.rcptTo.map((r) => r.address.toLowerCase());
        received.push(mail);
        callback();
        for (const wake of waiters.splice(0)) wake();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as { port: number }).port;

  const pending = (to: string) => received.filter((m) => !taken.has(m) && m.to.includes(to.toLowerCase()));
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    pending,
    failNext: (n) => {
      failures = n;
    },
    get refused() {
      return refused;
    },
    async next(to, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const mail = pending(to)[0];
        if (mail) {
          taken.add(mail);
          return mail;
        }
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no mail to ${to} within ${timeoutMs} ms (received: ${received.map((m) => m.to.join(',')).join('; ') || 'none'})`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Headers and a single text part, with quoted-printable / base64 and RFC 2047 subjects decoded. */
function parseMail(raw: string): ReceivedMail {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const body = raw.slice(split + 4);
  const headers = new Map<string, string>();
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const encoding = (headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  const text =
    encoding === 'quoted-printable'
      ? decodeQuotedPrintable(body)
      : encoding === 'base64'
        ? Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
        : body;
  const normalized = text.replace(/\r\n/g, '\n');
  return {
    to: [],
    from: headers.get('from') ?? '',
    subject: decodeWords(headers.get('subject') ?? ''),
    text: normalized,
    link: /https?:\/\/\S+/.exec(normalized)?.[0] ?? '',
  };
}

function decodeQuotedPrintable(s: string): string {
  const bytes = s.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

function decodeWords(s: string): string {
  return s
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([QB])\?([^?]*)\?=/gi, (_, _charset: string, kind: string, data: string) =>
      kind.toUpperCase() === 'B'
        ? Buffer.from(data, 'base64').toString('utf8')
        : decodeQuotedPrintable(data.replace(/_/g, ' ')),
    );
}

async function freePort(): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/**
 * A test server that mails through `sink`, with PUBLIC_URL set to its own
 * address so the links in its mails can be followed as they are.
 */
export async function startServerWithMail(sink: MailSink | null, env: Record<string, string> = {}): Promise<TestServer> {
  const port = await freePort();
  return startTestServer({
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    ...(sink ? { SMTP_URL: sink.url } : {}),
    ...env,
  });
}

/** Follows a link without following redirects: what the browser would get first. */
export async function open(link: string, init: RequestInit = {}): Promise<{ status: number; location: string | null; sessionToken: string | null; response: Response }> {
  const response = await fetch(link, { redirect: 'manual', ...init });
  const cookie = response.headers.get('set-cookie') ?? '';
  const match = /svc_session=([^;]+)/.exec(cookie);
  return {
    status: response.status,
    location: response.headers.get('location'),
    sessionToken: match && match[1] ? decodeURIComponent(match[1]) : null,
    response,
  };
}
