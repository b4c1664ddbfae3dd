import type { Logger } from 'pino';
import type { Config } from '../config.js';

/** One mail: plain text, built around one link (sign-in, signup or invitation). */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  link: string;
}

/**
 * Sends mail off the request path: `send` never throws and callers do not
 * wait for it (a request that mails answers the same whether delivery works
 * or not). `close` waits for what is in flight.
 */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
  /** Resolves once every delivery started so far has finished (sent or given up). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/** Control characters (a newline in an org name) would split the log line or a header. */
const oneLine = (s: string) => s.replace(/\p{Cc}+/gu, ' ');

/**
 * SMTP_URL unset: each mail becomes exactly one line on stdout,
 * `mail to=<address> subject=<…> link=<url>`, whatever LOG_LEVEL is (it is
 * how a self-hosted instance without mail signs anyone in).
 */
export class StdoutMailer implements Mailer {
  constructor(private readonly write: (line: string) => void = (line) => void process.stdout.write(line)) {}

  send(message: MailMessage): Promise<void> {
    this.write(`mail to=${oneLine(message.to)} subject=${oneLine(message.subject)} link=${oneLine(message.link)}\n`);
    return Promise.resolve();
  }

  async idle(): Promise<void> {}

  async close(): Promise<void> {}
}

type Transport = { sendMail(mail: object): Promise<unknown>; close(): void };

/**
 * nodemailer to SMTP_URL. A failed delivery is retried after each of
 * `retryDelaysMs` (bounded: two retries by default), then logged and dropped.
 * nodemailer is loaded on first use (start-up time matters; most requests never mail).
 */
export class SmtpMailer implements Mailer {
  private transport: Promise<Transport> | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private closing = false;
  private readonly wakeups = new Set<() => void>();

  constructor(
    private readonly smtpUrl: string,
    private readonly from: string,
    private readonly logger: Logger,
    private readonly retryDelaysMs: number[] = [250, 1000],
  ) {}

  send(message: MailMessage): Promise<void> {
    const delivery = this.deliver(message).finally(() => this.inFlight.delete(delivery));
    this.inFlight.add(delivery);
    return delivery;
  }

  private getTransport(): Promise<Transport> {
    this.transport ??= import('nodemailer').then(
      (nodemailer) =>
        nodemailer.createTransport({
          url: this.smtpUrl,
          connectionTimeout: 10_000,
          greetingTimeout: 10_000,
          socketTimeout: 30_000,
        }),
    );
    return this.transport;
  }

  private async deliver(message: MailMessage): Promise<void> {
    // The link is a credential: it goes in the mail, never in the log.
    const about = { to: message.to, subject: message.subject };
    for (let attempt = 1; ; attempt++) {
      try {
        const transport = await this.getTransport();
        await transport.sendMail({ from: this.from, to: message.to, subject: message.subject, text: message.text });
        this.logger.info({ ...about, attempt }, 'mail sent');
        return;
      } catch (err) {
        const delay = this.retryDelaysMs[attempt - 1];
        if (delay === undefined || this.closing) {
          this.logger.error({ err, ...about, attempts: attempt }, 'mail delivery failed; giving up');
          return;
        }
        this.logger.warn({ err, ...about, attempt, retryInMs: delay }, 'mail delivery failed; retrying');
        await this.sleep(delay);
      }
    }
  }

  /** Real time on purpose: this is network back-off, not product time. close() cuts it short. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.wakeups.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      timer.unref();
      this.wakeups.add(wake);
    });
  }

  async idle(): Promise<void> {
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
  }

  async close(): Promise<void> {
    this.closing = true;
    for (const wake of [...this.wakeups]) wake();
    await Promise.allSettled([...this.inFlight]);
    if (this.transport) (await this.transport.catch(() => null))?.close();
  }
}

export function createMailer(config: Config, logger: Logger): Mailer {
  if (!config.smtpUrl) return new StdoutMailer();
  return new SmtpMailer(config.smtpUrl, `Gradual <no-reply@${new URL(config.publicUrl).hostname}>`, logger);
}
