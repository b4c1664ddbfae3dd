import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import pg from 'pg';
import type { Logger } from 'pino';
import type { Database } from '../../db/database.js';
import type { LiveChangeRow, OrgChange } from '../audit/org-changes.js';
import type { EnvChange, EnvChangeBus } from './env-changes.js';

export const ENV_CHANGE_CHANNEL = 'gradual_env_changes';
export const ORG_CHANGE_CHANNEL = 'gradual_org_changes';

/** Under PostgreSQL's NOTIFY payload limit (8000 bytes), with room for the envelope. */
const PAYLOAD_MAX_BYTES = 7500;

/**
 * `changes` in runs whose JSON fits `room` bytes each (a change larger than that alone is
 * announced without its key), so one write's announcement never exceeds a notification.
 */
export function fitChanges(changes: readonly LiveChangeRow[], room: number): LiveChangeRow[][] {
  const runs: LiveChangeRow[][] = [];
  let run: LiveChangeRow[] = [];
  let size = 2;
  for (const original of changes) {
    let change = original;
    let bytes = Buffer.byteLength(JSON.stringify(change)) + 1;
    if (bytes > room - 2) {
      change = { ...original, resourceKey: null };
      bytes = Buffer.byteLength(JSON.stringify(change)) + 1;
    }
    if (run.length && size + bytes > room) {
      runs.push(run);
      run = [];
      size = 2;
    }
    run.push(change);
    size += bytes;
  }
  if (run.length) runs.push(run);
  return runs;
}

interface OrgNotification extends OrgChange {
  /** The instance that published it (which has delivered it already). */
  origin: string;
}

/**
 * Environment and org changes shared by every instance on one PostgreSQL database:
 * `publish` and `publishOrg` deliver locally at once and send a NOTIFY; one connection of its
 * own per instance (pg's client, with the ORM's connection settings) LISTENs and hands other instances' notifications to local
 * subscribers (each version once; org changes except the instance's own). A notification
 * carries at most PAYLOAD_MAX_BYTES: an org change with more changes goes as several, and an
 * environment change lists as many of its project-level changes as fit. A lost
 * listening connection is re-established with backoff.
 */
export class PgNotifyEnvChangeBus implements EnvChangeBus {
  private readonly emitter = new EventEmitter().setMaxListeners(0);
  private client: pg.Client | null = null;
  private readonly delivered = new Map<string, number>();
  private closed = false;
  private readonly origin = randomUUID();

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
      if (!msg.payload) return;
      try {
        if (msg.channel === ENV_CHANGE_CHANNEL) this.deliver(JSON.parse(msg.payload) as EnvChange);
        else if (msg.channel === ORG_CHANGE_CHANNEL) {
          const { origin, ...change } = JSON.parse(msg.payload) as OrgNotification;
          if (origin !== this.origin) this.emitter.emit('org-change', change);
        }
      } catch (err) {
        this.logger.warn({ err }, 'ignoring a malformed change notification');
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
    await client.query(`LISTEN ${ORG_CHANGE_CHANNEL}`);
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
    const { projectChanges, ...bare } = change;
    const room = PAYLOAD_MAX_BYTES - Buffer.byteLength(JSON.stringify(bare));
    const fitting = projectChanges?.length ? fitChanges(projectChanges, room)[0] : undefined;
    if (projectChanges && fitting && fitting.length < projectChanges.length) {
      this.logger.warn({ envId: change.envId, version: change.version }, 'an env change lists more project-level changes than a notification holds; other instances get the first ones');
    }
    this.notify(ENV_CHANGE_CHANNEL, fitting ? { ...bare, projectChanges: fitting } : bare);
  }

  subscribe(listener: (change: EnvChange) => void): () => void {
    this.emitter.on('change', listener);
    return () => this.emitter.off('change', listener);
  }

  /** Local subscribers hear at once; others by NOTIFY (in several notifications when the changes do not fit one). */
  publishOrg(change: OrgChange): void {
    this.emitter.emit('org-change', change);
    const envelope = { origin: this.origin, orgId: change.orgId, projectId: change.projectId, envId: change.envId };
    const room = PAYLOAD_MAX_BYTES - Buffer.byteLength(JSON.stringify({ ...envelope, changes: [] }));
    for (const changes of fitChanges(change.changes, room)) this.notify(ORG_CHANGE_CHANNEL, { ...envelope, changes });
  }

  subscribeOrg(listener: (change: OrgChange) => void): () => void {
    this.emitter.on('org-change', listener);
    return () => this.emitter.off('org-change', listener);
  }

  private notify(channel: string, payload: object): void {
    this.db.orm.em
      .getKnex()
      .raw('select pg_notify(?, ?)', [channel, JSON.stringify(payload)])
      .catch((err: unknown) => this.logger.error({ err, channel }, 'could not publish a change'));
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
