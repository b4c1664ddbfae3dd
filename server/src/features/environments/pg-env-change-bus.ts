import { EventEmitter } from 'node:events';
import pg from 'pg';
import type { Logger } from 'pino';
import type { Database } from '../../db/database.js';
import type { EnvChange, EnvChangeBus } from './env-changes.js';

export const ENV_CHANGE_CHANNEL = 'gradual_env_changes';

/**
 * Environment changes shared by every instance on one PostgreSQL database:
 * `publish` delivers locally at once and sends a NOTIFY; one connection of its
 * own per instance (pg's client, with the ORM's connection settings) LISTENs and hands other instances' notifications to local
 * subscribers (each version once). A lost
 * listening connection is re-established with backoff.
 */
export class PgNotifyEnvChangeBus implements EnvChangeBus {
  private readonly emitter = new EventEmitter().setMaxListeners(0);
  private client: pg.Client | null = null;
  private readonly delivered = new Map<string, number>();
  private closed = false;

  private constructor(
    private readonly db: Database,
    private readonly logger: Logger,
  ) {}

  /** Whether the LISTEN connection is up (other instances' writes reach us). */
  get connected(): boolean {
    return this.client !== null && !this.closed;
  }

  static async start(db: Database, logger: Logger): Promise<PgNotifyEnvChangeBus> {
    const bus = new PgNotifyEnvChangeBus(db, logger);
    await bus.listen();
    return bus;
  }

  /** The database the ORM connects to: its pg connection options (driverOptions.connection), else its client URL. */
  private connectionConfig(): pg.ClientConfig {
    const { connection } = this.db.orm.config.get<'driverOptions', { connection?: pg.ClientConfig }>('driverOptions');
    return connection ?? { connectionString: this.db.orm.config.getClientUrl() };
  }

  private async listen(): Promise<void> {
    const client = new pg.Client(this.connectionConfig());
    client.on('error', () => {}); // until the handlers below take over
    try {
      await client.connect();
    } catch (err) {
      await client.end().catch(() => {});
      throw err;
    }
    client.on('notification', (msg) => {
      if (msg.channel !== ENV_CHANGE_CHANNEL || !msg.payload) return;
      try {
        this.deliver(JSON.parse(msg.payload) as EnvChange);
      } catch (err) {
        this.logger.warn({ err }, 'ignoring a malformed env change notification');
      }
    });
    const lost = (err?: Error) => {
      if (this.closed || this.client !== client) return;
      this.logger.warn({ err }, 'env change listener lost its connection; reconnecting');
      this.client = null;
      void this.reconnect(1);
    };
    client.on('error', lost);
    client.on('end', () => lost());
    await client.query(`LISTEN ${ENV_CHANGE_CHANNEL}`);
    this.client = client;
  }

  private async reconnect(attempt: number): Promise<void> {
    await new Promise((r) => setTimeout(r, Math.min(30_000, 500 * 2 ** attempt)).unref());
    if (this.closed) return;
    try {
      await this.listen();
      this.logger.info('env change listener reconnected');
    } catch (err) {
      this.logger.warn({ err, attempt }, 'env change listener reconnect failed');
      void this.reconnect(attempt + 1);
    }
  }

  /**
   * Hands a change to local subscribers once: versions only grow per environment, so a
   * notification at or below the last one delivered (our own echo, or one overtaken by a
   * later write) carries no news.
   */
  private deliver(change: EnvChange): void {
    if ((this.delivered.get(change.envId) ?? 0) >= change.version) return;
    if (this.delivered.size >= 100_000) this.delivered.clear();
    this.delivered.set(change.envId, change.version);
    this.emitter.emit('change', change);
  }

  /** Local subscribers hear at once (a writer reads its own write here); others by NOTIFY. */
  publish(change: EnvChange): void {
    this.deliver(change);
    this.db.orm.em
      .getKnex()
      .raw('select pg_notify(?, ?)', [ENV_CHANGE_CHANNEL, JSON.stringify(change)])
      .catch((err: unknown) => this.logger.error({ err, change }, 'could not publish an env change'));
  }

  subscribe(listener: (change: EnvChange) => void): () => void {
    this.emitter.on('change', listener);
    return () => this.emitter.off('change', listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = null;
    if (!client) return;
    client.removeAllListeners();
    await client.end();
  }
}
