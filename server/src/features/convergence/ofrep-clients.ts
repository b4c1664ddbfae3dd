import { createHash } from 'node:crypto';
import type { RulesetAck } from '@gradual/contract';

/** An OFREP client's acknowledgements are named like this, so the ledger tells them from SDKs'. */
export const OFREP_SDK_NAME = 'ofrep';
/** Remembered identities (key, address, User-Agent → instance id); past this the map starts over. */
const IDENTITIES_MAX = 10_000;
const identities = new Map<string, string>();

/**
 * What the ledger knows of an OFREP client from a bulk evaluation it was answered (docs/convergence.md):
 * it serves the version answered (a 304 confirms the version its ETag names, a 200 hands it the
 * current one, as after a `refetchEvaluation`). OFREP sends no instance id: an instance is an API
 * key, a client address and a User-Agent (several processes behind one address with one User-Agent
 * count as one). Its SDK version is the User-Agent's first product token.
 */
export function ofrepClientAck(keyId: string, address: string, userAgent: string | undefined, version: number): RulesetAck {
  const ua = userAgent ?? '';
  const identity = `${keyId}\n${address}\n${ua}`;
  let instanceId = identities.get(identity);
  if (instanceId === undefined) {
    instanceId = `ofrep-${createHash('sha256').update(identity).digest('base64url').slice(0, 22)}`;
    if (identities.size >= IDENTITIES_MAX) identities.clear();
    identities.set(identity, instanceId);
  }
  const product = /^[\x21-\x7e]{1,32}/.exec(ua)?.[0] ?? 'unknown';
  return { instanceId, sdk: { name: OFREP_SDK_NAME, version: product }, version, mode: 'poll' };
}
