/** `createFlagClient`'s options checked and completed with their defaults; bad input is a precise TypeError. */
import type { BackoffPolicy } from '../retry.js';
import { rulesetProblem } from './cache.js';
import type { FlagClientLogger, FlagClientMode, FlagClientOptions } from './types.js';

export interface Settings {
  mode: FlagClientMode;
  pollIntervalMs: number;
  backoff: BackoffPolicy;
  requestTimeoutMs: number;
  idleTimeoutMs: number;
  logger: FlagClientLogger | null;
  /** Milliseconds between usage reports; 0: no usage reporting. */
  usageIntervalMs: number;
  /** Milliseconds between guard reports; 0: no guard reporting. */
  guardIntervalMs: number;
  ackIntervalMs: number;
  serviceName: string | undefined;
}

/** The longest usage window the server accepts. */
const USAGE_INTERVAL_MAX_MS = 3_600_000;
/** The longest guard report window the server accepts. */
const GUARD_INTERVAL_MAX_MS = 300_000;
const ACK_INTERVAL_MAX_MS = 300_000;

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value)) {
    throw new TypeError(`createFlagClient: ${name} must be a positive number of milliseconds`);
  }
  return value;
}

export function settingsOf(options: FlagClientOptions): Settings {
  if (!options || typeof options.baseUrl !== 'string' || options.baseUrl === '') throw new TypeError('createFlagClient: baseUrl is required');
  if (typeof options.envId !== 'string' || options.envId === '') throw new TypeError('createFlagClient: envId is required');
  const mode = options.mode ?? 'stream';
  if (mode !== 'stream' && mode !== 'poll') throw new TypeError(`createFlagClient: mode must be 'stream' or 'poll'`);
  if (options.onEvaluation !== undefined && typeof options.onEvaluation !== 'function') throw new TypeError('createFlagClient: onEvaluation must be a function');
  if (options.exposures !== undefined && typeof options.exposures?.track !== 'function') throw new TypeError('createFlagClient: exposures.track must be a function');
  for (const name of ['flushIntervalMs', 'batchSize'] as const) positive(`exposures.${name}`, options.exposures?.[name], 1);
  const dedupe = options.exposures?.dedupeCapacity;
  if (dedupe !== undefined && !(Number.isInteger(dedupe) && dedupe >= 0)) throw new TypeError('createFlagClient: exposures.dedupeCapacity must be a whole number ≥ 0');
  if (options.bootstrap !== undefined) {
    const problem = rulesetProblem(options.bootstrap);
    if (problem) throw new TypeError(`createFlagClient: bootstrap is not a ruleset (${problem})`);
    if (options.bootstrap.envId !== options.envId) {
      throw new TypeError(`createFlagClient: bootstrap is the ruleset of environment ${options.bootstrap.envId}, not ${options.envId}`);
    }
  }
  if (options.sendUsage !== undefined && typeof options.sendUsage !== 'boolean') throw new TypeError('createFlagClient: sendUsage must be a boolean');
  const usageIntervalMs = options.usageIntervalMs ?? 60_000;
  if (typeof usageIntervalMs !== 'number' || !(usageIntervalMs >= 0 && usageIntervalMs <= USAGE_INTERVAL_MAX_MS)) {
    throw new TypeError(`createFlagClient: usageIntervalMs must be a number of milliseconds from 0 to ${USAGE_INTERVAL_MAX_MS}`);
  }
  const guardIntervalMs = options.guardIntervalMs ?? 10_000;
  if (typeof guardIntervalMs !== 'number' || !(guardIntervalMs >= 0 && guardIntervalMs <= GUARD_INTERVAL_MAX_MS)) {
    throw new TypeError(`createFlagClient: guardIntervalMs must be a number of milliseconds from 0 to ${GUARD_INTERVAL_MAX_MS}`);
  }
  const ackIntervalMs = options.ackIntervalMs ?? 30_000;
  if (typeof ackIntervalMs !== 'number' || !(ackIntervalMs >= 0 && ackIntervalMs <= ACK_INTERVAL_MAX_MS)) {
    throw new TypeError(`createFlagClient: ackIntervalMs must be a number of milliseconds from 0 to ${ACK_INTERVAL_MAX_MS}`);
  }
  const serviceName = options.serviceName;
  if (serviceName !== undefined && !(typeof serviceName === 'string' && /^[\x21-\x7e]{1,128}$/.test(serviceName))) {
    throw new TypeError('createFlagClient: serviceName must be 1 to 128 printable ASCII characters without spaces');
  }
  const initialMs = positive('backoff.initialMs', options.backoff?.initialMs, 1_000);
  return {
    mode,
    pollIntervalMs: positive('pollIntervalMs', options.pollIntervalMs, 30_000),
    backoff: { initialMs, maxMs: Math.max(initialMs, positive('backoff.maxMs', options.backoff?.maxMs, 30_000)) },
    requestTimeoutMs: positive('requestTimeoutMs', options.requestTimeoutMs, 10_000),
    idleTimeoutMs: positive('streamIdleTimeoutMs', options.streamIdleTimeoutMs, 45_000),
    logger: options.logger === undefined ? console : options.logger,
    usageIntervalMs: options.sendUsage === false ? 0 : usageIntervalMs,
    guardIntervalMs,
    ackIntervalMs,
    serviceName,
  };
}
