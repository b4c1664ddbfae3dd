import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claim, expectApiError, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';

const DAY = 24 * 3600;
const T0 = new Date('2026-11-02T10:30:00.000Z');

/**
 * Code reference reports (`PUT /projects/{id}/code-references`, what `gradual flags stale --report`
 * sends) and the insights they feed: each key's latest check per repository, and `safeToRemove`
 * only for a key nobody evaluated whose every check found no reference.
 */
describe('code references', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let projectId: string;
  let prod: string;
  let admin: ClaimedInstance['session'];

  const mint = (body: Parameters<ClaimedInstance['session']['createApiKey']>[0]['body']) => owner.session.createApiKey({ path: { slug: 'acme' }, body });
  const report = (body: Parameters<ClaimedInstance['session']['reportCodeReferences']>[0]['body'], as = admin) => as.reportCodeReferences({ path: { id: projectId }, body });
  const insight = async (key: string) => (await admin.listInsights({ path: { id: projectId } })).find((i) => i.key === key)!;

  beforeAll(async () => {
    t = await startTestServer();
    await t.setClock(T0);
    owner = await claim(t);
    projectId = (await owner.session.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web' } })).id;
    prod = (await owner.session.createEnvironment({ path: { id: projectId }, body: { key: 'prod', name: 'Prod' } })).id;
    await owner.session.createFlag({ path: { id: projectId }, body: { key: 'old-banner', name: 'Old banner', defaultValue: false } });
    await owner.session.createFlag({ path: { id: projectId }, body: { key: 'checkout', name: 'Checkout', defaultValue: false } });
    await owner.session.createConfig({ path: { id: projectId }, body: { key: 'limits', name: 'Limits', defaultValue: { max: 1 } } });
    admin = t.asToken((await mint({ name: 'admin' })).token);
    // Past the default 7 days: none of them was ever evaluated.
    await t.advanceClock(8 * DAY);
  });
  afterAll(() => t?.close());

  it('marks a key safe to remove only when no one evaluated it and every repository that checked it found no reference', async () => {
    expect(await insight('old-banner')).toMatchObject({ status: 'not_evaluated', codeReferences: [], safeToRemove: false });

    const web = await report({
      repository: 'acme/web',
      commit: 'abc123',
      checks: [
        { kind: 'flag', key: 'old-banner', references: 0, locations: [] },
        { kind: 'config', key: 'limits', references: 2, locations: ['src/cart.ts:12', 'src/api.ts:40'] },
      ],
    });
    const checkedAt = new Date(T0.getTime() + 8 * DAY * 1000).toISOString();
    expect(web).toEqual({ repository: 'acme/web', commit: 'abc123', checkedAt, checks: 2 });
    expect(await insight('old-banner')).toMatchObject({
      safeToRemove: true,
      codeReferences: [{ repository: 'acme/web', commit: 'abc123', checkedAt, references: 0, locations: [] }],
    });
    expect(await insight('limits')).toMatchObject({ safeToRemove: false, codeReferences: [{ references: 2, locations: ['src/cart.ts:12', 'src/api.ts:40'] }] });
    // Never checked: no evidence either way.
    expect(await insight('checkout')).toMatchObject({ status: 'not_evaluated', safeToRemove: false, codeReferences: [] });

    // Another code base still uses it.
    await t.advanceClock(60);
    await report({ repository: 'acme/api', checks: [{ kind: 'flag', key: 'old-banner', references: 1, locations: ['lib/banner.ts:3'] }] });
    const both = await insight('old-banner');
    expect(both.safeToRemove).toBe(false);
    expect(both.codeReferences.map((c) => [c.repository, c.references])).toEqual([
      ['acme/api', 1],
      ['acme/web', 0],
    ]);

    // A repository's new report replaces its last one whole.
    await report({ repository: 'acme/api', checks: [{ kind: 'config', key: 'limits', references: 0, locations: [] }] });
    expect(await insight('old-banner')).toMatchObject({ safeToRemove: true, codeReferences: [{ repository: 'acme/web' }] });

    // An evaluation is evidence of use, whatever the code says.
    const sdk = t.asToken((await mint({ name: 'backend', kind: 'sdk', environments: [prod] })).token);
    await sdk.evaluate({ path: { envId: prod }, body: { context: { userId: 'u1' }, keys: ['old-banner'] } });
    await t.advanceClock(60);
    expect(await insight('old-banner')).toMatchObject({ status: 'in_use', safeToRemove: false });
  });

  it('refuses keys the project does not have, keys checked twice and keys outside an API key\'s scope, and needs write access', async () => {
    const err = await expectApiError(
      report({
        repository: 'acme/web',
        checks: [
          { kind: 'flag', key: 'checkout', references: 0, locations: [] },
          { kind: 'flag', key: 'no-such-flag', references: 0, locations: [] },
          { kind: 'flag', key: 'limits', references: 0, locations: [] },
          { kind: 'flag', key: 'checkout', references: 1, locations: [] },
        ],
      }),
      400,
      'invalid_request',
    );
    expect(err.fields).toEqual({
      'checks.1.key': 'no flag "no-such-flag" in this project',
      'checks.2.key': 'no flag "limits" in this project',
      'checks.3.key': 'flag "checkout" is checked twice',
    });
    const tooMany = await expectApiError(report({ repository: 'r', checks: [{ kind: 'flag', key: 'checkout', references: 11, locations: Array.from({ length: 11 }, (_, i) => `a.ts:${i}`) }] }), 400, 'invalid_request');
    expect(Object.keys(tooMany.fields ?? {})).toEqual(['checks.0.locations']);
    await expectApiError(report({ repository: '', checks: [] }), 400, 'invalid_request');
    // Nothing of the refused reports was kept.
    expect((await insight('checkout')).codeReferences).toEqual([]);

    const reader = t.asToken((await mint({ name: 'reader', actions: ['read'] })).token);
    await expectApiError(report({ repository: 'acme/web', checks: [] }, reader), 403, 'token_action_denied');
    const scoped = t.asToken((await mint({ name: 'banner team', resources: ['old-*'] })).token);
    await expectApiError(report({ repository: 'acme/web', checks: [{ kind: 'flag', key: 'checkout', references: 0, locations: [] }] }, scoped), 403, 'token_resource_out_of_scope');
    expect(await report({ repository: 'banner-service', checks: [{ kind: 'flag', key: 'old-banner', references: 0, locations: [] }] }, scoped)).toMatchObject({ checks: 1 });
  });

  it('keeps one report per repository when its reports race (the last one whole)', async () => {
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        report({ repository: 'acme/racing', commit: `c${i}`, checks: [{ kind: 'flag', key: 'checkout', references: i, locations: [] }] }),
      ),
    );
    expect(answers.map((a) => a.checks)).toEqual(Array(8).fill(1));
    const racing = (await insight('checkout')).codeReferences.filter((c) => c.repository === 'acme/racing');
    expect(racing).toHaveLength(1);
    expect(racing[0]!.commit).toBe(`c${racing[0]!.references}`);
  });
});
