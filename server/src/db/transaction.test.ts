import type { EntityManager } from '@mikro-orm/postgresql';
import { DeadlockException } from '@mikro-orm/core';
import { describe, expect, it } from 'vitest';
import { CONFLICT_OBSERVER, CONFLICT_RETRY, conflictSqlState, retryConflicts, type ConflictObserver } from './transaction.js';

/** What retryConflicts reads of an EntityManager: the observer registered on its configuration. */
function fakeEm(observer: ConflictObserver): EntityManager {
  const extensions = new Map<string, unknown>([[CONFLICT_OBSERVER, observer]]);
  return { config: { getExtension: (name: string) => extensions.get(name) } } as Pick<EntityManager, 'config'> as EntityManager;
}

const pgError = (code: string) => Object.assign(new Error(`sqlstate ${code}`), { code });

describe('conflictSqlState', () => {
  it.each([
    ['a deadlock from pg', pgError('40P01'), '40P01'],
    ['a serialization failure from pg', pgError('40001'), '40001'],
    ["MikroORM's wrapper of a deadlock", new DeadlockException(pgError('40P01')), '40P01'],
    ['a deadlock as the cause of another error', new Error('outer', { cause: pgError('40P01') }), '40P01'],
    ['a unique violation', pgError('23505'), null],
    ['a plain error', new Error('boom'), null],
    ['not an error', 'boom', null],
  ])('%s → %s', (_what, err, expected) => {
    expect(conflictSqlState(err)).toBe(expected);
  });
});

describe('retryConflicts', () => {
  const observed = () => {
    const seen: string[] = [];
    return { seen, observer: { retried: (s: string) => seen.push(`retried ${s}`), gaveUp: (s: string) => seen.push(`gave up ${s}`) } };
  };

  it('runs the work again after a deadlock or a serialization failure, and answers its result', async () => {
    const { seen, observer } = observed();
    const failures = [pgError('40P01'), pgError('40001')];
    let calls = 0;
    const result = await retryConflicts(fakeEm(observer), (retry) => {
      expect(retry).toBe(calls++);
      const failure = failures.shift();
      return failure ? Promise.reject(failure) : Promise.resolve('done');
    });
    expect(result).toBe('done');
    expect(calls).toBe(3);
    expect(seen).toEqual(['retried 40P01', 'retried 40001']);
  });

  it(`gives up after ${CONFLICT_RETRY.attempts} attempts with the last conflict`, async () => {
    const { seen, observer } = observed();
    let calls = 0;
    const last = pgError('40P01');
    await expect(retryConflicts(fakeEm(observer), () => (++calls, Promise.reject(last)))).rejects.toBe(last);
    expect(calls).toBe(CONFLICT_RETRY.attempts);
    expect(seen.filter((s) => s.startsWith('retried'))).toHaveLength(CONFLICT_RETRY.attempts - 1);
    expect(seen.at(-1)).toBe('gave up 40P01');
  });

  it('never runs again work that failed for another reason', async () => {
    const { seen, observer } = observed();
    let calls = 0;
    await expect(retryConflicts(fakeEm(observer), () => (++calls, Promise.reject(pgError('23505'))))).rejects.toMatchObject({ code: '23505' });
    expect(calls).toBe(1);
    expect(seen).toEqual([]);
  });
});
