import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../../tests/support/database.js';
import { systemActor } from '../access/authorize.js';
import { recordAudit } from './audit.store.js';
import { orgChangeAnnouncer, orgChangesOf, type OrgChange } from './org-changes.js';

const caller = { reason: null, now: new Date('2026-06-01T00:00:00Z') };

describe('org change announcements', () => {
  let t: TestDatabase;
  const published: OrgChange[] = [];
  const announcer = orgChangeAnnouncer({ publishOrg: (change) => published.push(change) });
  const orgId = randomUUID();
  const projectId = randomUUID();
  const row = (resourceKey: string, envId: string | null = null, project: string | null = projectId, version: number | null = null) => ({
    orgId,
    projectId: project,
    envId,
    action: 'flag.created' as const,
    resourceType: 'flag',
    resourceKey,
    version,
  });
  const flag = (resourceKey: string) => ({ resourceType: 'flag', resourceKey, action: 'flag.created' });

  beforeAll(async () => {
    t = await createTestDatabase();
    t.db.orm.em.getEventManager().registerSubscriber(announcer);
  });
  afterAll(async () => {
    announcer.detach();
    await t?.cleanup();
  });

  it('groups the rows that move no version per project and environment, in the order written', () => {
    const env = randomUUID();
    expect(orgChangesOf([row('a'), row('b', env, projectId, 3), row('c', null, null), row('d'), row('e', env), row('f', env, projectId, 0)])).toEqual([
      { orgId, projectId, envId: null, changes: [flag('a'), flag('d')] },
      { orgId, projectId: null, envId: null, changes: [flag('c')] },
      { orgId, projectId, envId: env, changes: [flag('e'), flag('f')] },
    ]);
  });

  it('announces a transaction’s rows after it commits, nested ones with the outermost, and never a rolled-back one', async () => {
    published.length = 0;
    const env = randomUUID();
    await t.db.em().transactional(async (tx) => {
      recordAudit(tx, caller, systemActor, row('outer'));
      await tx.flush();
      await tx.transactional(async (inner) => {
        recordAudit(inner, caller, systemActor, row('inner'));
        recordAudit(inner, caller, systemActor, row('in-env', env));
        recordAudit(inner, caller, systemActor, row('moved', env, projectId, 4)); // a `change` event's, not announced here
        await inner.flush();
      });
      expect(published).toEqual([]); // not committed yet
    });
    expect(published).toEqual([
      { orgId, projectId, envId: null, changes: [flag('outer'), flag('inner')] },
      { orgId, projectId, envId: env, changes: [flag('in-env')] },
    ]);

    published.length = 0;
    await expect(
      t.db.em().transactional(async (tx) => {
        recordAudit(tx, caller, systemActor, row('undone'));
        await tx.flush();
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(published).toEqual([]);

    const em = t.db.em();
    recordAudit(em, caller, systemActor, row('alone'));
    await em.flush(); // its own transaction
    expect(published).toEqual([{ orgId, projectId, envId: null, changes: [flag('alone')] }]);
  });
});
