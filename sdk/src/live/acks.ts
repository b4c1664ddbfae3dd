/**
 * Ruleset acknowledgements (docs/convergence.md): the live client tells the server which ruleset
 * version it serves, as soon as it applies a new one and every `ackIntervalMs` (30 s by default)
 * besides, so the environment's convergence ledger can show which instances are current. One
 * small request each, through the periodic reporter; never a context, never an evaluation.
 */
import { ackRuleset } from '../generated/sdk.gen.js';
import type { Client as FetchClient } from '../generated/client/index.js';
import type { RulesetAck } from '../generated/types.gen.js';
import { SDK_NAME, SDK_VERSION } from '../version.js';
import type { HeldRuleset } from './cache.js';
import { reportSender, WindowReporter, type ReportSender } from './reporter.js';
import type { TimerSet } from './timers.js';

/** `POST /envs/{envId}/ruleset-acks` through the live client's fetch client. */
export function ackSender(http: FetchClient): ReportSender<RulesetAck> {
  return reportSender('ruleset acknowledgement', http, (client, envId, body, signal) => ackRuleset({ client, path: { envId }, body, signal }));
}

/** A random id for this instance (a process, a page): drawn once per client. */
function instanceId(): string {
  return globalThis.crypto.randomUUID();
}

export interface AckReporterOptions {
  intervalMs: number;
  requestTimeoutMs: number;
  timers: TimerSet;
  send: ReportSender<RulesetAck>;
  held: () => HeldRuleset | null;
  mode: 'stream' | 'poll';
  service: string | undefined;
  warn: (message: string) => void;
}

export class AckReporter {
  readonly instanceId = instanceId();
  private readonly reporter: WindowReporter<RulesetAck>;

  constructor(private readonly options: AckReporterOptions) {
    this.reporter = new WindowReporter({
      what: 'ruleset acknowledgement',
      intervalMs: options.intervalMs,
      windowMaxMs: options.intervalMs,
      requestTimeoutMs: options.requestTimeoutMs,
      timers: options.timers,
      collect: () => this.collect(),
      send: options.send,
      warn: options.warn,
      // Nothing to say on close: the ledger forgets an instance that stops acknowledging.
      finalReport: false,
    });
  }

  /** A new ruleset was applied: say so now. */
  applied(): void {
    if (!this.reporter.stopped) void this.reporter.flush();
  }

  close(): Promise<void> {
    return this.reporter.close();
  }

  private collect() {
    const held = this.options.held();
    if (held === null) return null;
    const { ruleset } = held;
    const report: RulesetAck = {
      instanceId: this.instanceId,
      sdk: { name: SDK_NAME, version: SDK_VERSION },
      version: ruleset.version,
      mode: this.options.mode,
      ...(this.options.service === undefined ? {} : { service: this.options.service }),
    };
    return { envId: ruleset.envId, report, entries: 1 };
  }
}
