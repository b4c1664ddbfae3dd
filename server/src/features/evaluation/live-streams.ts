import { PassThrough } from 'node:stream';
import type { EnvChangeBus } from '../environments/env-changes.js';

export const HEARTBEAT_MS = 15_000;

/**
 * Open ruleset streams (server-sent events). Each carries an event `ruleset`
 * with `{version}` on connect and after every committed write in its
 * environment, and a comment heartbeat so proxies keep it open. `closeAll`
 * ends them on shutdown so the HTTP server can drain.
 */
export class LiveStreams {
  private readonly open = new Set<() => void>();
  private stopping = false;

  constructor(private readonly bus: EnvChangeBus) {}

  get size(): number {
    return this.open.size;
  }

  /** True once shutdown began: new streams are refused so clients reconnect elsewhere. */
  get closing(): boolean {
    return this.stopping;
  }

  openStream(envId: string, currentVersion: number, onClose: (close: () => void) => void): PassThrough {
    const stream = new PassThrough();
    let last = currentVersion;
    const send = (version: number) => {
      last = version;
      stream.write(`event: ruleset\nid: ${version}\ndata: ${JSON.stringify({ version })}\n\n`);
    };
    stream.write(`retry: 1000\n`);
    send(currentVersion);
    const unsubscribe = this.bus.subscribe((change) => {
      // Versions only grow; an older or repeated one (two instances, replays) is not news.
      if (change.envId === envId && change.version > last) send(change.version);
    });
    const heartbeat = setInterval(() => stream.write(`: heartbeat\n\n`), HEARTBEAT_MS);
    heartbeat.unref();
    const close = () => {
      if (!this.open.delete(close)) return;
      clearInterval(heartbeat);
      unsubscribe();
      stream.end();
    };
    this.open.add(close);
    onClose(close);
    return stream;
  }

  /** Ends every open stream; clients reconnect (as after a deploy). */
  closeAll(): void {
    for (const close of [...this.open]) close();
  }

  /** Shutdown: refuse new streams from now on, then end the open ones. */
  shutdown(): void {
    this.stopping = true;
    this.closeAll();
  }
}
