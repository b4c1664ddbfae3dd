/**
 * Length limits the API enforces, shared by the contract's schemas and the server's lookups (a
 * path segment longer than a limit names nothing, so the server answers 404 without a query).
 */

/** Longest key of a project's resources (flags, configs, environments) and of an evaluated key list. */
export const KEY_MAX_LENGTH = 128;

/** Longest context attribute name (rule conditions, a rollout's bucket field). */
export const ATTRIBUTE_NAME_MAX_LENGTH = 128;

/** Longest target ID on a rollout's allow-list. */
export const TARGET_ID_MAX_LENGTH = 256;

/**
 * Longest key kept from a request whatever it names: a rollback fire's key in the rollback
 * history (longer ones are cut), and the audit log's `resourceKey` filter.
 */
export const RECORDED_KEY_MAX_LENGTH = 256;
