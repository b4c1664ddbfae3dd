import { GradualApiError } from '@gradual/sdk';

/**
 * Exit codes of the `gradual` command (docs/cli.md lists them). `rollout wait` uses the last
 * three; every other failure is 1.
 */
export const EXIT = {
  ok: 0,
  error: 1,
  timedOut: 2,
  rolledBack: 3,
  cancelled: 4,
} as const;

/**
 * A failure the command line finds itself (bad input, a missing login, a key that names nothing),
 * with a code of its own in the same snake_case style as the API's error codes.
 */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    readonly code: string,
    message: string,
    readonly exitCode: number = EXIT.error,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export interface ErrorReport {
  code: string;
  message: string;
  status?: number;
  requestId?: string;
  fields?: Record<string, string>;
  details?: Record<string, unknown>;
}

/** What is printed on stderr for an error, whatever threw it. */
export function reportOf(err: unknown): { report: ErrorReport; exitCode: number } {
  if (err instanceof GradualApiError) {
    return {
      exitCode: EXIT.error,
      report: {
        code: err.code,
        message: err.message,
        status: err.status,
        ...(err.requestId ? { requestId: err.requestId } : {}),
        ...(err.fields ? { fields: err.fields } : {}),
        ...(err.details ? { details: err.details } : {}),
      },
    };
  }
  if (err instanceof CliError) {
    return { exitCode: err.exitCode, report: { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) } };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { exitCode: EXIT.error, report: { code: 'internal', message } };
}

/** The error as one or more human-readable lines. */
export function formatReport(report: ErrorReport): string {
  const facts = [`code: ${report.code}`];
  if (report.status !== undefined) facts.push(`status: ${report.status}`);
  if (report.requestId) facts.push(`request id: ${report.requestId}`);
  // Several problems (a file's): the facts first, then one problem per line.
  const lines = report.message.includes('\n')
    ? [`error (${facts.join(', ')}):`, ...report.message.split('\n').map((line) => `  ${line}`)]
    : [`error: ${report.message} (${facts.join(', ')})`];
  for (const [field, problem] of Object.entries(report.fields ?? {})) lines.push(`  ${field}: ${problem}`);
  return lines.join('\n') + '\n';
}
