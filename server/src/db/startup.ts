/**
 * Start-up with a deadline: opening the database (the embedded one on a full disk, a PostgreSQL
 * server that accepts connections and never answers) could otherwise hang with nothing logged.
 * `step()` names what start-up waits for now (openDatabase's onStep); every `progressEveryMs`
 * it is logged ("still waiting: …"), and after `timeoutMs` the returned promise rejects with a
 * StartupTimeoutError naming it. The work itself is not cancelled: the caller exits.
 */
export class StartupTimeoutError extends Error {
  override name = 'StartupTimeoutError';
  constructor(
    readonly step: string,
    readonly timeoutMs: number,
  ) {
    super(`start-up timed out after ${Math.round(timeoutMs / 1000)} s while ${step}`);
  }
}

export interface StartupDeadline {
  timeoutMs: number;
  /** Default 5 s. */
  progressEveryMs?: number;
  step: () => string;
  log: (fields: { step: string; waitedMs: number }, msg: string) => void;
}

export async function withStartupDeadline<T>(work: Promise<T>, opts: StartupDeadline): Promise<T> {
  const started = Date.now();
  const every = opts.progressEveryMs ?? 5_000;
  let progress: NodeJS.Timeout | undefined;
  let deadline: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    progress = setInterval(() => {
      const step = opts.step();
      opts.log({ step, waitedMs: Date.now() - started }, `still waiting: ${step}`);
    }, every);
    deadline = setTimeout(() => reject(new StartupTimeoutError(opts.step(), opts.timeoutMs)), opts.timeoutMs);
  });
  try {
    return await Promise.race([work, timedOut]);
  } finally {
    clearInterval(progress);
    clearTimeout(deadline);
  }
}
