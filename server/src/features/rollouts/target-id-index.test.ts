import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PrimitiveKind } from '../../db/entities/index.js';
import { TargetIdIndex, type RolloutListStamp, type TargetIdSource } from './target-id-index.js';

const ENV = 'env-1';

/**
 * A database of one environment as the index sees it: rollouts with lists and versions, and
 * the environment's version, which every change raises (as the real writers do). `gate`
 * holds page reads until a test releases them, to commit edits in the middle of a load.
 */
function fakeDatabase() {
  const db = {
    envVersion: 1,
    orgId: 'org-1',
    current: new Map<string, string>(), // `${kind}:${key}` → rolloutId
    lists: new Map<string, { ids: Set<string>; version: number }>(),
    reads: { stamp: 0, page: 0 },
    failing: false,
    gate: null as null | Promise<void>,
  };
  const edit = (rolloutId: string, change: (ids: Set<string>) => void) => {
    const list = db.lists.get(rolloutId)!;
    change(list.ids);
    list.version += 1;
    db.envVersion += 1;
  };
  const source: TargetIdSource = {
    stamp(envId: string, kind: PrimitiveKind, key: string): Promise<RolloutListStamp | null> {
      db.reads.stamp++;
      if (db.failing) return Promise.reject(new Error('database down'));
      if (envId !== ENV) return Promise.resolve(null);
      const rolloutId = db.current.get(`${kind}:${key}`) ?? null;
      const list = rolloutId ? db.lists.get(rolloutId)! : null;
      return Promise.resolve({ envVersion: db.envVersion, orgId: db.orgId, rolloutId, targetIdsVersion: list?.version ?? 0, targetIdsCount: list?.ids.size ?? 0 });
    },
    async page(rolloutId, after, limit) {
      db.reads.page++;
      if (db.gate) await db.gate;
      const sorted = [...(db.lists.get(rolloutId)?.ids ?? [])].sort();
      return sorted.filter((id) => after === null || id > after).slice(0, limit);
    },
    listVersion(rolloutId) {
      return Promise.resolve(db.lists.get(rolloutId)?.version ?? null);
    },
  };
  const rollout = (kind: PrimitiveKind, key: string, rolloutId: string, ids: string[]) => {
    db.current.set(`${kind}:${key}`, rolloutId);
    db.lists.set(rolloutId, { ids: new Set(ids), version: 0 });
    db.envVersion += 1;
  };
  return { db, source, edit, rollout };
}

describe('TargetIdIndex', () => {
  it('answers from memory once a list is loaded, for the environment version it was read at', async () => {
    const { db, source, rollout } = fakeDatabase();
    rollout('flag', 'k', 'r1', ['a', 'b', 'c']);
    const index = new TargetIdIndex(source, { maxIds: 100, pageSize: 2 });
    expect(index.lookup(ENV, 'flag', 'k', db.envVersion, 'a')).toBeUndefined(); // cold: ask the database
    await index.settled();
    expect(db.reads.page).toBe(2); // 2 + 1 IDs, pages of 2
    expect(index.size).toBe(3);
    expect(index.lookup(ENV, 'flag', 'k', db.envVersion, 'a')).toEqual({ orgId: 'org-1', contains: true });
    expect(index.lookup(ENV, 'flag', 'k', db.envVersion, 'z')).toEqual({ orgId: 'org-1', contains: false });
    // Same name, other kind: another path.
    expect(index.lookup(ENV, 'config', 'k', db.envVersion, 'a')).toBeUndefined();
  });

  it('a newer environment version costs one statement when the list did not change', async () => {
    const { db, source, rollout } = fakeDatabase();
    rollout('flag', 'k', 'r1', ['a']);
    const index = new TargetIdIndex(source, { maxIds: 100 });
    index.lookup(ENV, 'flag', 'k', db.envVersion, 'a');
    await index.settled();
    rollout('flag', 'other', 'r2', []); // an unrelated change raises the environment version
    const pages = db.reads.page;
    expect(index.lookup(ENV, 'flag', 'k', db.envVersion, 'a')).toBeUndefined(); // read at an older version
    await index.settled();
    expect(db.reads.page).toBe(pages); // confirmed, not reloaded
    expect(index.lookup(ENV, 'flag', 'k', db.envVersion, 'a')?.contains).toBe(true);
  });

  it('never answers from a list older than the environment version the caller knows', async () => {
    const { db, source, rollout, edit } = fakeDatabase();
    rollout('flag', 'k', 'r1', ['a']);
    const index = new TargetIdIndex(source, { maxIds: 100 });
    index.lookup(ENV, 'flag', 'k', db.envVersion, 'a');
    await index.settled();
    edit('r1', (ids) => ids.delete('a'));
    expect(index.lookup(ENV, 'flag', 'k', db.envVersion, 'a')).toBeUndefined();
    await index.settled();
    expect(index.lookup(ENV, 'flag', 'k', db.envVersion, 'a')?.contains).toBe(false);
    // A new rollout on the same path: its own list, and the old one is let go.
    rollout('flag', 'k', 'r2', ['x']);
    expect(index.lookup(ENV, 'flag', 'k', db.envVersion, 'x')).toBeUndefined();
    await index.settled();
    expect(index.lookup(ENV, 'flag', 'k', db.envVersion, 'x')?.contains).toBe(true);
    expect(index.size).toBe(1);
  });

  it('drops a load that an edit overtook, and retries after the back-off', async () => {
    const { db, source, rollout, edit } = fakeDatabase();
    rollout('flag', 'k', 'r1', ['a', 'b', 'c', 'd']);
    let now = 0;
    const index = new TargetIdIndex(source, { maxIds: 100, pageSize: 2, retryAfterMs: 1000, now: () => now });
    let release!: () => void;
    db.gate = new Promise((resolve) => (release = resolve));
    const seenAt = db.envVersion;
    index.lookup(ENV, 'flag', 'k', seenAt, 'a');
    await new Promise((r) => setTimeout(r, 5)); // the load is waiting on its first page
    edit('r1', (ids) => {
      ids.delete('a');
      ids.add('e');
    });
    db.gate = null;
    release();
    await index.settled();
    expect(index.size).toBe(0); // the pages mixed two versions of the list: nothing kept
    expect(index.lookup(ENV, 'flag', 'k', seenAt, 'a')).toBeUndefined();
    expect(index.lookup(ENV, 'flag', 'k', db.envVersion, 'a')).toBeUndefined();
    await index.settled();
    const stamps = db.reads.stamp;
    expect(stamps).toBe(1); // backing off: no second read yet
    now = 1001;
    index.lookup(ENV, 'flag', 'k', db.envVersion, 'a');
    await index.settled();
    expect(index.lookup(ENV, 'flag', 'k', db.envVersion, 'a')?.contains).toBe(false);
    expect(index.lookup(ENV, 'flag', 'k', db.envVersion, 'e')?.contains).toBe(true);
  });

  it('one refresh at a time per path, however many checks miss', async () => {
    const { db, source, rollout } = fakeDatabase();
    rollout('flag', 'k', 'r1', ['a']);
    const index = new TargetIdIndex(source, { maxIds: 100 });
    for (let i = 0; i < 50; i++) index.lookup(ENV, 'flag', 'k', db.envVersion, 'a');
    await index.settled();
    expect(db.reads.stamp).toBe(1);
  });

  it('a path without a rollout, or an unknown environment, stays with the database', async () => {
    const { db, source } = fakeDatabase();
    const index = new TargetIdIndex(source, { maxIds: 100 });
    index.lookup(ENV, 'flag', 'none', db.envVersion, 'a');
    index.lookup('env-unknown', 'flag', 'k', 1, 'a');
    await index.settled();
    expect(index.lookup(ENV, 'flag', 'none', db.envVersion, 'a')).toBeUndefined();
    await index.settled();
    expect(db.reads.stamp).toBe(2); // known to have no rollout at this version: not read again
  });

  it('holds at most maxIds: least recently used lists go first, and a list over the bound is never held', async () => {
    const { db, source, rollout } = fakeDatabase();
    rollout('flag', 'a', 'ra', ['1', '2', '3']);
    rollout('flag', 'b', 'rb', ['4', '5', '6']);
    rollout('flag', 'c', 'rc', ['7', '8']);
    rollout('flag', 'huge', 'rh', Array.from({ length: 9 }, (_, i) => `h${i}`));
    let now = 0;
    const index = new TargetIdIndex(source, { maxIds: 8, keepWarmMs: 10_000, retryAfterMs: 1000, now: () => now });
    const ask = async (key: string, id: string) => {
      const answer = index.lookup(ENV, 'flag', key, db.envVersion, id);
      await index.settled();
      return answer ?? index.lookup(ENV, 'flag', key, db.envVersion, id);
    };
    expect((await ask('a', '1'))?.contains).toBe(true);
    expect((await ask('b', '4'))?.contains).toBe(true);
    now = 1000;
    expect((await ask('a', '2'))?.contains).toBe(true); // b is now the least recently used
    expect(index.size).toBe(6);
    expect((await ask('c', '7'))?.contains).toBe(true); // 6 + 2 ≤ 8
    expect(await ask('huge', 'h1')).toBeUndefined();
    expect(index.size).toBe(8);
    const pages = db.reads.page;
    expect(await ask('huge', 'h1')).toBeUndefined();
    expect(db.reads.page).toBe(pages); // known to be too big: no load attempted
    rollout('flag', 'd', 'rd', ['9']);
    // Every list was checked within keepWarmMs: no room for d, and no load tried for it.
    expect(await ask('d', '9')).toBeUndefined();
    expect(db.reads.page).toBe(pages);
    // Once b has gone unchecked for keepWarmMs (and the back-off is over), it makes room.
    now = 10_500;
    for (const [key, id] of [['a', '1'], ['c', '7']] as const) index.lookup(ENV, 'flag', key, db.envVersion, id); // (their paths refresh at the new version)
    await index.settled();
    for (const [key, id] of [['a', '1'], ['c', '7']] as const) expect(index.lookup(ENV, 'flag', key, db.envVersion, id)?.contains).toBe(true);
    expect((await ask('d', '9'))?.contains).toBe(true);
    expect(index.lookup(ENV, 'flag', 'b', db.envVersion, '4')).toBeUndefined();
    expect(index.size).toBe(6);
  });

  it('two busy lists that do not fit together do not evict each other back and forth', async () => {
    const { db, source, rollout } = fakeDatabase();
    rollout('flag', 'x', 'rx', ['1', '2', '3']);
    rollout('flag', 'y', 'ry', ['4', '5', '6']);
    let now = 0;
    const index = new TargetIdIndex(source, { maxIds: 4, keepWarmMs: 10_000, retryAfterMs: 1000, now: () => now });
    for (let second = 0; second < 5; second++) {
      now = second * 1000 + 1;
      for (const [key, id] of [['x', '1'], ['y', '4']] as const) {
        index.lookup(ENV, 'flag', key, db.envVersion, id);
        await index.settled();
        index.lookup(ENV, 'flag', key, db.envVersion, id);
      }
    }
    expect(db.reads.page).toBe(1); // x was read once and stays; y waits for room instead of evicting it
    expect(index.lookup(ENV, 'flag', 'x', db.envVersion, '1')?.contains).toBe(true);
    expect(index.lookup(ENV, 'flag', 'y', db.envVersion, '4')).toBeUndefined();
  });

  it('maxIds 0 turns it off', async () => {
    const { db, source, rollout } = fakeDatabase();
    rollout('flag', 'k', 'r1', ['a']);
    const index = new TargetIdIndex(source, { maxIds: 0 });
    index.lookup(ENV, 'flag', 'k', db.envVersion, 'a');
    await index.settled();
    expect(db.reads.stamp).toBe(0);
  });

  it('a failing database: no answer, one attempt per back-off period, reported', async () => {
    const { db, source, rollout } = fakeDatabase();
    rollout('flag', 'k', 'r1', ['a']);
    let now = 0;
    const errors: unknown[] = [];
    const index = new TargetIdIndex(source, { maxIds: 100, now: () => now, onError: (err) => errors.push(err) });
    db.failing = true;
    for (let i = 0; i < 3; i++) {
      expect(index.lookup(ENV, 'flag', 'k', db.envVersion, 'a')).toBeUndefined();
      await index.settled();
    }
    expect(errors).toHaveLength(1);
    db.failing = false;
    now = 2000;
    index.lookup(ENV, 'flag', 'k', db.envVersion, 'a');
    await index.settled();
    expect(index.lookup(ENV, 'flag', 'k', db.envVersion, 'a')?.contains).toBe(true);
  });

  it('property: after any edits, once refreshed, memory answers exactly as the database', async () => {
    const op = fc.oneof(
      fc.record({ type: fc.constant('add' as const), ids: fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e'), { maxLength: 3 }) }),
      fc.record({ type: fc.constant('remove' as const), ids: fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e'), { maxLength: 3 }) }),
      fc.record({ type: fc.constant('new-rollout' as const), ids: fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e'), { maxLength: 3 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 12 }), fc.integer({ min: 1, max: 4 }), async (ops, pageSize) => {
        const { db, source, rollout, edit } = fakeDatabase();
        rollout('flag', 'k', 'r0', []);
        const index = new TargetIdIndex(source, { maxIds: 100, pageSize });
        let rollouts = 0;
        for (const o of ops) {
          const current = db.current.get('flag:k')!;
          if (o.type === 'add') edit(current, (ids) => o.ids.forEach((id) => ids.add(id)));
          else if (o.type === 'remove') edit(current, (ids) => o.ids.forEach((id) => ids.delete(id)));
          else rollout('flag', 'k', `r${++rollouts}`, o.ids);
          // Whatever memory answers at any moment matches the database at that version.
          for (const id of ['a', 'b', 'c', 'd', 'e']) {
            const answer = index.lookup(ENV, 'flag', 'k', db.envVersion, id);
            if (answer) expect(answer.contains).toBe(db.lists.get(db.current.get('flag:k')!)!.ids.has(id));
          }
          await index.settled();
        }
        index.lookup(ENV, 'flag', 'k', db.envVersion, 'a');
        await index.settled();
        for (const id of ['a', 'b', 'c', 'd', 'e']) {
          const answer = index.lookup(ENV, 'flag', 'k', db.envVersion, id);
          expect(answer?.contains).toBe(db.lists.get(db.current.get('flag:k')!)!.ids.has(id));
        }
      }),
      { numRuns: 200 },
    );
  });
});
