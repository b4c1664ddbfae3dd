/** Installs the batching handleData for every pglite-socket connection in this thread (pglite-batching.js). Idempotent. */
export function installBatching(): void;
