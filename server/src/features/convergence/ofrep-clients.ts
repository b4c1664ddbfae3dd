import { createHash } from 'node:crypto';
import type { RulesetAck } from '@gradual/contract';

/** An OFREP client's acknowledgements are named like this, so the ledger tells them from SDKs'. */
export const OFREP_SDK_NAME = 'ofrep';
/** Remembered clients (key, address, User-Agent → instance id and SDK version); past this the map starts over. */
const CLIENTS_MAX = 10_000;
const clients = new Map<string, { instanceId: string; product: string }>();

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
  let client = clients.get(identity);
  if (client === undefined) {
    const instanceId = `ofrep-${createHash('sha256').update(identity).digest('base64url').slice(0, 22)}`;
    client = { instanceId, product: /^[\x21-\x7e]{1,32}/.exec(ua)?.[0] ?? 'unknown' };
    if (clients.size >= CLIENTS_MAX) clients.clear();
    clients.set(identity, client);
  }
  return { instanceId: client.instanceId, sdk: { name: OFREP_SDK_NAME, version: client.product }, version, mode: 'poll' };
}
