import { describe, expect, it } from 'vitest';
import { StartupTimeoutError, withStartupDeadline } from './startup.js';

describe('withStartupDeadline', () => {
  it('logs what it waits for while waiting, and fails naming the step it timed out in', async () => {
    const lines: string[] = [];
    let step = 'opening the embedded database in DATA_DIR /data';
    setTimeout(() => (step = 'migrating the database'), 70);
    const never = new Promise<never>(() => {});
    const err = await withStartupDeadline(never, { timeoutMs: 200, progressEveryMs: 50, step: () => step, log: (_, msg) => lines.push(msg) }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StartupTimeoutError);
    expect(String(err)).toMatch(/start-up timed out after 0 s while migrating the database/);
    expect(lines[0]).toBe('still waiting: opening the embedded database in DATA_DIR /data');
    expect(lines.at(-1)).toBe('still waiting: migrating the database');
  });

  it('returns the result of work done in time, and logs nothing more', async () => {
    const lines: string[] = [];
    const result = await withStartupDeadline(Promise.resolve(42), { timeoutMs: 100, progressEveryMs: 10, step: () => 'x', log: (_, msg) => lines.push(msg) });
    expect(result).toBe(42);
    await new Promise((r) => setTimeout(r, 30));
    expect(lines).toEqual([]);
  });
});
