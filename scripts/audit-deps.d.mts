/** Types of scripts/audit-deps.mjs (a plain script, run by Node in CI). */

export type AuditOutcome = 'clean' | 'advisories' | 'unchecked';

/** What an `npm audit --json` run (as spawnSync returned it) means, and the lines to print. */
export declare function judge(run: { status: number | null; stdout: string; stderr: string; error?: Error }): { outcome: AuditOutcome; lines: string[] };

/** 1 for advisories, and for `unchecked` when `required` (AUDIT_DEPS_REQUIRED=1); else 0. */
export declare function exitCode(outcome: AuditOutcome, required?: boolean): number;
