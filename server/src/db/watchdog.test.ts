import { describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../../tests/support/database.js';
import { openDatabase } from './database.js';
import { startWatchdog } from './watchdog.js';

describe('database watchdog', () => {
  it('ends after the given misses in a row, once, with the reason', async () => {
    let answer = true;
    const wedged: string[] = [];
    const misses: number[] = [];
    const dog = startWatchdog({
      check: () => (answer ? Promise.resolve() : new Promise(() => {})),
      intervalMs: 10,
      deadlineMs: 10,
      misses: 3,
      onMiss: (n) => misses.push(n),
      onWedged: (reason) => wedged.push(reason),
    });
    try {
      await new Promise((r) => setTimeout(r, 60));
      expect(misses).toEqual([]);
      answer = false;
      await expect.poll(() => wedged.length, { timeout: 2000, interval: 10 }).toBe(1);
      expect(misses).toEqual([1, 2, 3]);
      expect(wedged[0]).toMatch(/did not answer 3 checks in a row \(no answer within 10 ms\)/);
      await new Promise((r) => setTimeout(r, 60));
      expect(wedged.length).toBe(1);
    } finally {
      dog.stop();
    }
  });

  it('forgives a miss followed by an answer', async () => {
    let calls = 0;
    const wedged: string[] = [];
    const dog = startWatchdog({
      // Every other check is late, never three in a row.
      check: () => (++calls % 2 === 0 ? new Promise((r) => setTimeout(r, 30)) : Promise.resolve()),
      intervalMs: 10,
      deadlineMs: 10,
      misses: 2,
      onWedged: (reason) => wedged.push(reason),
    });
    await new Promise((r) => setTimeout(r, 300));
    dog.stop();
    expect(wedged).toEqual([]);
  });

  it('notices a wedged embedded database thread', async () => {
    const t = await createTestDatabase({ backend: 'embedded' }); // in memory: its options open a copy
    const db = await openDatabase({ ...t.options, faultInjection: true });
    const wedged: string[] = [];
    const dog = startWatchdog({ check: db.threadPing!, intervalMs: 50, misses: 3, onWedged: (reason) => wedged.push(reason) });
    try {
      await new Promise((r) => setTimeout(r, 200));
      expect(wedged).toEqual([]); // a healthy thread answers
      await db.injectFault({ wedge: true });
      await expect.poll(() => wedged.length, { timeout: 5000, interval: 20 }).toBe(1);
    } finally {
      dog.stop();
      const closing = Date.now();
      await db.close(); // terminates the wedged thread
      expect(Date.now() - closing).toBeLessThan(10_000);
      await t.cleanup();
    }
  }, 60_000);
});
