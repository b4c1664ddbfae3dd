import type { AppDeps } from '../deps.js';
import type { EnvironmentsDeleted } from '../features/environments/env-delete.js';

/**
 * After environments were deleted (DELETE /envs/{envId}, DELETE /projects/{id}): this instance
 * forgets them at once (their rulesets, directory entries and allow-list copies, and so every
 * answer remembered for them) and ends their streams; the API keys they revoked or narrowed are
 * dropped from the key cache, and the streams of revoked keys end. Other instances forget them
 * as their entries expire (about a second).
 */
export function forgetEnvironments(deps: AppDeps, deleted: EnvironmentsDeleted): void {
  deps.envs.forget(deleted.envIds);
  for (const envId of deleted.envIds) {
    deps.rulesets.forget(envId);
    deps.streams.endEnvironment(envId);
  }
  deps.targetIds.clear();
  for (const keyId of [...deleted.revokedKeyIds, ...deleted.narrowedKeyIds]) deps.apiKeys.forgetKey(keyId);
  for (const keyId of deleted.revokedKeyIds) deps.streams.endKey(keyId);
}
