import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GradualClient } from '@gradual/sdk';
import { sessionTokenFrom, type TestServer } from '../support/server.js';
import { contractRoutes, envelopeProblems, fillPath, send, startHostileServer, type RouteEntry } from './support.js';

/**
 * The scope matrix: every route of the contract that an API key may call, called by four keys
 * of one organization, each narrowed one way:
 *
 * - `env`: restricted to the staging environment;
 * - `resource`: restricted to the primitives matching `team-a-*`;
 * - `readOnly`: the read action only;
 * - `approval`: approval required (its rollout changes become proposals).
 *
 * Each route is probed with identifiers inside and outside the key's scope. Inside, a read
 * answers 200 and its body holds nothing from outside (no id, key or value of the production
 * environment or the other project for `env`, nothing of the `team-b-*` primitives for
 * `resource`). Outside, the answer is the scope's refusal (403 with its code; 404 for an audit
 * event), and nothing changes: no environment version moves and no audit row is written.
 * Writes inside a restricted key's scope are not made here (they are allowed, and tested in
 * tests/http/access.test.ts); session-only routes refuse every key with scope_denied.
 *
 * Routes come from the contract and are classified by their path parameters, so a new route is
 * probed without being listed (and an unclassifiable one fails the first test).
 */

type KeyClass = 'env' | 'resource' | 'readOnly' | 'approval' | 'client';
type Scope = 'org' | 'project' | 'env' | 'primitive' | 'auditEvent' | 'proposal' | 'self' | 'keyEnv';
type EnvName = 'prod' | 'staging' | 'mobile';
type Prim = 'a' | 'b';
type AuditRow = 'stagingA' | 'stagingB' | 'prod' | 'project' | 'flagCreatedA';
type ProposalName = 'prodA' | 'stagingA' | 'stagingB';

/** Identifiers of one probe: which project, environment, primitive, audit row and proposal it names. */
interface Ctx {
  project: 'web' | 'mobile';
  env: EnvName;
  prim: Prim;
  audit: AuditRow;
  proposal: ProposalName;
}
const DEFAULT_CTX: Ctx = { project: 'web', env: 'staging', prim: 'a', audit: 'stagingA', proposal: 'stagingA' };

/** What a probe expects: a 200 read, a refusal, a proposal (or a refusal of the proposal's own checks), or no call. */
type Expect = { ok: true } | { status: number; code: string } | { proposal: true } | { skip: string };
interface Probe {
  ctx: Partial<Ctx>;
  expect: Expect;
}

/** OFREP routes: they evaluate the one environment the key is bound to, whatever the path names (docs/ofrep.md). */
const OFREP_ROUTES = new Set(['ofrepEvaluateFlag', 'ofrepEvaluateFlags']);
/** POST routes that read (a usage or guard report, a ruleset acknowledgement, is made by whoever may evaluate). */
const READ_POSTS = new Set(['evaluate', 'reportUsage', 'reportGuardMetrics', 'ackRuleset', ...OFREP_ROUTES]);
/** One flag's or config's usage across the project's environments: scoped by project and resource (an env key sees its environments only). */
const USAGE_READS = new Set(['getFlagUsage', 'getConfigUsage']);
/** Routes whose success is 202 Accepted. */
const ACCEPTED_ROUTES = new Set(['reportUsage', 'reportGuardMetrics']);
/** Routes whose success is 204 No Content. */
const NO_CONTENT_ROUTES = new Set(['ackRuleset']);
/** Webhook subscriptions receive every environment's and every flag's events: only keys restricted to neither may manage or read them. */
const WEBHOOK_ROUTES = new Set([
  'createWebhookSubscription',
  'listWebhookSubscriptions',
  'getWebhookSubscription',
  'updateWebhookSubscription',
  'deleteWebhookSubscription',
  'testWebhookSubscription',
  'listWebhookDeliveries',
]);
/** A flag's or config's definition (`/projects/:id/{flags,configs}/:key`): project-scoped, about one primitive. */
const DEFINITION_ROUTES = new Set([
  ...['get', 'update', 'archive', 'restore', 'delete'].flatMap((verb) => [`${verb}Flag`, `${verb}Config`]),
  // The OpenFeature CLI's push describes a definition as updateFlag does.
  'syncUpdateFlag',
]);
/** Routes about the flags and configs their body names (creating one, a code base's check of keys). */
const CREATE_ROUTES = new Set(['createFlag', 'createConfig', 'syncCreateFlag', 'reportCodeReferences']);
const accessOf = (e: RouteEntry): 'read' | 'write' => (e.route.method === 'GET' || READ_POSTS.has(e.key) ? 'read' : 'write');

/** A route's scope, from its path parameters. */
function scopeOf(e: RouteEntry): Scope {
  const path = e.route.path;
  if (OFREP_ROUTES.has(e.key)) return 'keyEnv';
  // A definition's metadata and lifecycle are the project's: they reach every environment.
  if (DEFINITION_ROUTES.has(e.key)) return 'project';
  // A segment (its `key`) is the project's: every environment whose rules use it evaluates it.
  if (path.startsWith('/api/v1/projects/:id/segments')) return 'project';
  // So is a guard metric: plans in every environment watch it.
  if (path.startsWith('/api/v1/projects/:id/guard-metrics')) return 'project';
  if (e.params.some((p) => p === 'key' || p === 'flagKey' || p === 'configKey')) return 'primitive';
  if (e.params.includes('envId')) return 'env';
  if (path.startsWith('/api/v1/projects/:id')) return 'project';
  if (path.startsWith('/api/v1/audit/events/:id')) return 'auditEvent';
  if (path.startsWith('/api/v1/proposals/:id')) return 'proposal';
  if (e.params.length === 1 && e.params[0] === 'slug') return 'org';
  if (e.params.length === 0 && path === '/api/v1/auth/whoami') return 'self';
  throw new Error(`${e.name} (${path}): no scope; teach scopeOf what it names`);
}

const ENV_OUT = { status: 403, code: 'token_env_out_of_scope' };
const RESOURCE_OUT = { status: 403, code: 'token_resource_out_of_scope' };
const NOT_FOUND = { status: 404, code: 'not_found' };
const OK = { ok: true } as const;
const IN_SCOPE_WRITE = { skip: 'a write inside the scope (allowed; tests/http/access.test.ts)' };

/** The rollout changes an approval-required key makes as proposals (docs/rollouts.md). */
const divertible = (e: RouteEntry) => accessOf(e) === 'write' && /\/rollout(\/(pause|resume|cancel|advance|target-ids\/(add|remove|replace)))?$/.test(e.route.path);

/** The probes of one route for one key. */
function probesFor(e: RouteEntry, who: KeyClass): Probe[] {
  const scope = scopeOf(e);
  const read = accessOf(e) === 'read';
  // A client key (staging, no flag or config client-visible) evaluates, seeing nothing; everything else is refused.
  if (who === 'client') {
    if (e.key === 'evaluate' || e.key === 'reportUsage') return [{ ctx: { env: 'staging' }, expect: OK }, { ctx: { env: 'prod' }, expect: ENV_OUT }];
    if (scope === 'keyEnv') return e.params.length === 0 ? [{ ctx: {}, expect: OK }] : [{ ctx: { prim: 'a' }, expect: { status: 404, code: 'FLAG_NOT_FOUND' } }];
    return [{ ctx: {}, expect: { status: 403, code: 'scope_denied' } }];
  }
  // The key's own description: every key may read it, whatever its scope.
  if (scope === 'self') return [{ ctx: {}, expect: OK }];
  // OFREP needs a key bound to one environment: of these four, only the env key (staging) is.
  if (scope === 'keyEnv') {
    if (who !== 'env') return [{ ctx: {}, expect: { status: 403, code: 'scope_denied' } }];
    if (e.params.length === 0) return [{ ctx: {}, expect: OK }];
    return [
      { ctx: { prim: 'a' }, expect: OK },
      { ctx: { prim: 'b' }, expect: OK },
      { ctx: { env: 'mobile' }, expect: { status: 404, code: 'FLAG_NOT_FOUND' } },
    ];
  }
  if (who === 'readOnly') return [{ ctx: {}, expect: read ? OK : { status: 403, code: 'token_action_denied' } }];
  if (who === 'approval') {
    if (read) return [{ ctx: {}, expect: OK }];
    if (e.key === 'cancelProposal') return [{ ctx: {}, expect: { skip: 'proposal lifecycle (tests/http/proposals.test.ts)' } }];
    // The kill switch is made directly, never proposed.
    if (e.key === 'rollbackFlagRollout' || e.key === 'rollbackConfigRollout') return [{ ctx: {}, expect: { skip: 'a direct rollback (tests/http/rollback-now.test.ts)' } }];
    return [{ ctx: {}, expect: divertible(e) ? { proposal: true } : { status: 403, code: 'approval_not_supported' } }];
  }
  if (WEBHOOK_ROUTES.has(e.key)) {
    if (who === 'env') return [{ ctx: { project: 'web' }, expect: ENV_OUT }, { ctx: { project: 'mobile' }, expect: ENV_OUT }];
    return [{ ctx: { project: 'web' }, expect: RESOURCE_OUT }, { ctx: { project: 'mobile' }, expect: RESOURCE_OUT }];
  }
  if (USAGE_READS.has(e.key)) {
    if (who === 'env') return [{ ctx: { project: 'web' }, expect: OK }, { ctx: { project: 'mobile', env: 'mobile' }, expect: ENV_OUT }];
    return [{ ctx: { prim: 'a' }, expect: OK }, { ctx: { prim: 'b' }, expect: RESOURCE_OUT }];
  }
  if (who === 'env') {
    switch (scope) {
      case 'org':
        return [{ ctx: {}, expect: read ? OK : ENV_OUT }];
      case 'project':
        return [
          { ctx: { project: 'web' }, expect: read ? OK : ENV_OUT },
          { ctx: { project: 'mobile' }, expect: ENV_OUT },
        ];
      case 'env':
        return [
          { ctx: { env: 'staging' }, expect: read ? OK : IN_SCOPE_WRITE },
          { ctx: { env: 'prod' }, expect: ENV_OUT },
          { ctx: { env: 'mobile' }, expect: ENV_OUT },
        ];
      case 'primitive':
        return [
          { ctx: { env: 'staging', prim: 'a' }, expect: read ? OK : IN_SCOPE_WRITE },
          { ctx: { env: 'staging', prim: 'b' }, expect: read ? OK : IN_SCOPE_WRITE },
          { ctx: { env: 'prod', prim: 'a' }, expect: ENV_OUT },
        ];
      case 'auditEvent':
        return [
          { ctx: { audit: 'stagingA' }, expect: OK },
          { ctx: { audit: 'prod' }, expect: NOT_FOUND },
          { ctx: { audit: 'project' }, expect: NOT_FOUND },
          { ctx: { audit: 'flagCreatedA' }, expect: NOT_FOUND },
        ];
      case 'proposal':
        return [
          { ctx: { proposal: 'stagingB' }, expect: read ? OK : IN_SCOPE_WRITE },
          { ctx: { proposal: 'prodA' }, expect: ENV_OUT },
        ];
    }
  }
  switch (scope) {
    case 'org':
      return [{ ctx: {}, expect: read ? OK : RESOURCE_OUT }];
    case 'project':
      // A definition is about its primitive: read or written inside the globs only.
      if (read && DEFINITION_ROUTES.has(e.key)) return [{ ctx: { prim: 'a' }, expect: OK }, { ctx: { prim: 'b' }, expect: RESOURCE_OUT }];
      if (read) return [{ ctx: { project: 'web' }, expect: OK }, { ctx: { project: 'mobile' }, expect: OK }];
      // Creating a primitive is about that primitive: refused outside the globs only.
      if (CREATE_ROUTES.has(e.key) || DEFINITION_ROUTES.has(e.key)) return [{ ctx: { prim: 'b' }, expect: RESOURCE_OUT }, { ctx: { prim: 'a' }, expect: IN_SCOPE_WRITE }];
      return [{ ctx: { project: 'web' }, expect: RESOURCE_OUT }];
    case 'env':
      return read ? [{ ctx: { env: 'staging' }, expect: OK }, { ctx: { env: 'prod' }, expect: OK }] : [{ ctx: { env: 'staging' }, expect: RESOURCE_OUT }];
    case 'primitive':
      return [
        { ctx: { env: 'staging', prim: 'a' }, expect: read ? OK : IN_SCOPE_WRITE },
        { ctx: { env: 'prod', prim: 'a' }, expect: read ? OK : IN_SCOPE_WRITE },
        { ctx: { env: 'staging', prim: 'b' }, expect: RESOURCE_OUT },
        { ctx: { env: 'prod', prim: 'b' }, expect: RESOURCE_OUT },
      ];
    case 'auditEvent':
      return [
        { ctx: { audit: 'stagingA' }, expect: OK },
        { ctx: { audit: 'flagCreatedA' }, expect: OK },
        { ctx: { audit: 'stagingB' }, expect: NOT_FOUND },
        { ctx: { audit: 'project' }, expect: NOT_FOUND },
      ];
    case 'proposal':
      return [
        { ctx: { proposal: 'stagingA' }, expect: read ? OK : IN_SCOPE_WRITE },
        { ctx: { proposal: 'stagingB' }, expect: RESOURCE_OUT },
      ];
  }
}

/** Text that must never appear in what a key reads. */
interface Fixture {
  orgId: string;
  projects: Record<Ctx['project'], string>;
  envs: Record<EnvName, string>;
  secrets: Record<EnvName, string>;
  audit: Record<AuditRow, string>;
  proposals: Record<ProposalName, string>;
  memberUserId: string;
  invitationId: string;
  keys: Record<KeyClass, { id: string; token: string }>;
  webhook: string;
}

const flagOf = (prim: Prim) => (prim === 'a' ? 'team-a-checkout' : 'team-b-search');
const configOf = (prim: Prim) => (prim === 'a' ? 'team-a-limits' : 'team-b-limits');
/** Every value, rule, target ID and name written in prod carries `leakprod`; every one of team-b carries `leakteamb`. */
const mark = (env: 'prod' | 'staging', prim: Prim) => `${env === 'prod' ? 'leakprod' : 'stage'}-${prim === 'b' ? 'leakteamb' : 'a'}`;

describe('scope matrix: env-, resource-, read-only and approval-required keys on every route', () => {
  let t: TestServer;
  let owner: GradualClient;
  let fx: Fixture;
  const routes = contractRoutes();
  const keyRoutes = routes.filter((r) => r.auth !== 'public' && r.auth !== 'optionalSession');
  let calls = 0;

  beforeAll(async () => {
    t = await startHostileServer();
    const { data, response } = await t.anonymous.withResponse.claimInstall({
      body: { email: 'owner@example.com', displayName: 'Owner', orgName: 'Acme', orgSlug: 'acme' },
    });
    const ownerToken = sessionTokenFrom(response);
    owner = t.asSession(ownerToken);
    const slug = 'acme';
    const orgId = data.organizations[0]!.id;
    const web = await owner.createProject({ path: { slug }, body: { key: 'web', name: 'Web' } });
    const prod = await owner.createEnvironment({ path: { id: web.id }, body: { key: 'prod', name: 'Prod' } });
    const staging = await owner.createEnvironment({ path: { id: web.id }, body: { key: 'staging', name: 'Staging' } });
    const mobile = await owner.createProject({ path: { slug }, body: { key: 'mobile', name: 'Mobile' } });
    const mobileEnv = await owner.createEnvironment({ path: { id: mobile.id }, body: { key: 'm-prod', name: 'Mobile prod' } });
    await owner.createFlag({ path: { id: mobile.id }, body: { key: 'm-flag', name: 'M', valueType: 'string', defaultValue: 'm-leakmobile' } });
    for (const prim of ['a', 'b'] as const) {
      await owner.createFlag({ path: { id: web.id }, body: { key: flagOf(prim), name: 'Flag', valueType: 'string', defaultValue: 'off' } });
      await owner.createConfig({ path: { id: web.id }, body: { key: configOf(prim), name: 'Config', defaultValue: { max: 1 } } });
    }
    for (const project of [web, mobile]) {
      await owner.createGuardMetric({ path: { id: project.id }, body: { key: 'errors', name: 'Errors', kind: 'count', worse: 'higher' } });
      await owner.createRolloutPlan({
        path: { id: project.id },
        body: { key: 'ramp', name: 'Ramp', rampSteps: [{ percent: 10, holdForSeconds: 60 }, { percent: 100, holdForSeconds: 0 }] },
      });
    }
    const envIds = { prod: prod.id, staging: staging.id };
    for (const env of ['prod', 'staging'] as const) {
      const envId = envIds[env];
      for (const prim of ['a', 'b'] as const) {
        const m = mark(env, prim);
        await owner.setFlagValue({ path: { envId, key: flagOf(prim) }, body: { value: `${m}-value` } });
        await owner.setFlagRules({
          path: { envId, key: flagOf(prim) },
          body: { rules: [{ description: `${m}-rule`, conditions: [{ attribute: 'email', operator: 'ends_with', values: [`@${m}.example`] }], value: `${m}-rule-value` }] },
        });
        await owner.setConfigValue({ path: { envId, key: configOf(prim) }, body: { value: { max: `${m}-config` } } });
        await owner.putFlagRollout({ path: { envId, key: flagOf(prim) }, body: { percent: 5, newValue: `${m}-new`, ...(prim === 'a' ? { planKey: 'ramp' } : {}) } });
        await owner.addFlagTargetIds({ path: { envId, key: flagOf(prim) }, body: { targetIds: [`${m}-user`] } });
        await owner.putConfigRollout({ path: { envId, key: configOf(prim) }, body: { percent: 5, newValue: { max: `${m}-candidate` } } });
        await owner.addConfigTargetIds({ path: { envId, key: configOf(prim) }, body: { targetIds: [`${m}-config-user`] } });
      }
    }
    const mint = (name: string, extra: Record<string, unknown>) =>
      owner.createApiKey({ path: { slug }, body: { name, rateLimitPerMin: 100_000, ...extra } }).then((k) => ({ id: k.id, token: k.token }));
    const keys: Fixture['keys'] = {
      env: await mint('staging only', { environments: [staging.id] }),
      resource: await mint('team a', { resources: ['team-a-*'] }),
      readOnly: await mint('reader', { actions: ['read'] }),
      approval: await mint('needs approval', { requiresApproval: true }),
      client: await mint('web page', { kind: 'client', environments: [staging.id] }),
    };
    // Proposals (made by the approval key) in prod for team-a and in staging for both teams.
    const propose = async (env: 'prod' | 'staging', prim: Prim) => {
      const { data: p, response: r } = await t.asToken(keys.approval.token).withResponse.pauseConfigRollout({ path: { envId: envIds[env], key: configOf(prim) } });
      if (p.kind !== 'proposed') throw new Error(`expected a proposal, got ${r.status}`);
      return p.proposal.id;
    };
    const proposals = { prodA: await propose('prod', 'a'), stagingA: await propose('staging', 'a'), stagingB: await propose('staging', 'b') };
    const secrets = {
      prod: await owner.createRollbackSecret({ path: { envId: prod.id }, body: { name: 'leakprod-alerts' } }),
      staging: await owner.createRollbackSecret({ path: { envId: staging.id }, body: { name: 'stage-alerts' } }),
      mobile: await owner.createRollbackSecret({ path: { envId: mobileEnv.id }, body: { name: 'mobile-alerts' } }),
    };
    // Fire history in both environments, for both teams.
    for (const [env, prim] of [['staging', 'a'], ['staging', 'b'], ['prod', 'a']] as const) {
      const res = await fetch(`${t.url}/api/v1/webhooks/rollback/envs/${envIds[env]}/flags/${flagOf(prim)}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secrets[env].token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ status: 'firing', monitor: `https://alerts.example/${mark(env, prim)}` }),
      });
      if (res.status !== 200) throw new Error(`fire: ${res.status} ${await res.text()}`);
    }
    for (const project of [web, mobile]) {
      await owner.createSegment({ path: { id: project.id }, body: { key: 'vip', name: 'VIP' } });
      await owner.addSegmentIncluded({ path: { id: project.id, key: 'vip' }, body: { targetIds: ['vip-user'] } });
    }
    const invitation = await owner.createInvitation({ path: { slug }, body: { email: 'invitee@example.com', role: 'member' } });
    const webhook = await owner.createWebhookSubscription({ path: { id: web.id }, body: { name: 'hook', url: 'https://hooks.example.com/hook', events: ['rollout.created'] } });
    const rows = (await owner.listAuditEvents({ path: { slug }, query: { limit: 200 } })).events;
    const row = (pred: (e: (typeof rows)[number]) => boolean, what: string) => {
      const found = rows.find(pred);
      if (!found) throw new Error(`no audit row: ${what}`);
      return found.id;
    };
    fx = {
      orgId,
      projects: { web: web.id, mobile: mobile.id },
      envs: { prod: prod.id, staging: staging.id, mobile: mobileEnv.id },
      secrets: { prod: secrets.prod.id, staging: secrets.staging.id, mobile: secrets.mobile.id },
      audit: {
        stagingA: row((e) => e.envId === staging.id && e.resourceKey === flagOf('a') && e.resourceType === 'flag', 'staging team-a'),
        stagingB: row((e) => e.envId === staging.id && e.resourceKey === flagOf('b') && e.resourceType === 'flag', 'staging team-b'),
        prod: row((e) => e.envId === prod.id && e.resourceKey === flagOf('a'), 'prod team-a'),
        project: row((e) => e.resourceType === 'project' && e.resourceId === web.id, 'project'),
        flagCreatedA: row((e) => e.action === 'flag.created' && e.resourceKey === flagOf('a'), 'team-a flag created'),
      },
      proposals,
      memberUserId: data.user.id,
      invitationId: invitation.id,
      keys,
      webhook: webhook.id,
    };
  });
  afterAll(async () => {
    console.log(`scope matrix: ${calls} calls over ${keyRoutes.length} routes × 5 keys`);
    await t?.close();
  });

  /** The markers of data outside each restricted key's scope. */
  const forbidden = (who: KeyClass): string[] => {
    if (who === 'env') return ['leakprod', 'leakmobile', 'm-flag', 'mobile-alerts', fx.envs.prod, fx.envs.mobile, fx.projects.mobile, fx.secrets.prod, fx.proposals.prodA];
    if (who === 'resource') return ['team-b', 'leakteamb', 'm-flag', 'leakmobile', fx.proposals.stagingB];
    if (who === 'client') return ['team-a', 'team-b', 'stage-', 'leakprod', 'leakmobile', 'm-flag'];
    return [];
  };

  function paramsFor(e: RouteEntry, c: Ctx): Record<string, string> {
    const isConfig = /config/i.test(e.key);
    const out: Record<string, string> = {};
    for (const p of e.params) {
      if (p === 'slug') out[p] = 'acme';
      else if (p === 'envId') out[p] = fx.envs[c.env];
      else if (p === 'key' && e.route.path.startsWith('/api/v1/projects/:id/segments')) out[p] = 'vip';
      else if (p === 'key' && e.route.path.startsWith('/api/v1/projects/:id/guard-metrics')) out[p] = 'errors';
      else if (p === 'key') out[p] = c.env === 'mobile' ? 'm-flag' : isConfig ? configOf(c.prim) : flagOf(c.prim);
      else if (p === 'flagKey') out[p] = flagOf(c.prim);
      else if (p === 'configKey') out[p] = configOf(c.prim);
      else if (p === 'planKey') out[p] = 'ramp';
      else if (p === 'userId') out[p] = fx.memberUserId;
      else if (p === 'targetId') out[p] = `${mark('staging', c.prim)}-user`;
      else if (p === 'subscriptionId') out[p] = fx.webhook;
      else if (p === 'id') {
        const path = e.route.path;
        if (path.startsWith('/api/v1/projects/:id')) out[p] = fx.projects[c.project];
        else if (path.includes('/api-keys/:id')) out[p] = fx.keys.readOnly.id;
        else if (path.includes('/invitations/:id')) out[p] = fx.invitationId;
        else if (path.includes('/rollback-webhook-secrets/:id')) out[p] = fx.secrets[c.env];
        else if (path.startsWith('/api/v1/audit/events/:id')) out[p] = fx.audit[c.audit];
        else if (path.startsWith('/api/v1/proposals/:id')) out[p] = fx.proposals[c.proposal];
        else throw new Error(`unknown :id in ${e.name}`);
      } else throw new Error(`no value for :${p} in ${e.name}`);
    }
    return out;
  }

  /** A valid body, so the answer is about the scope, not the shape. */
  function bodyFor(e: RouteEntry, c: Ctx): unknown {
    const bodies: Record<string, unknown> = {
      createOrg: { name: 'Pwned' },
      deleteOrg: { confirm: 'acme' },
      updateMember: { role: 'admin' },
      createInvitation: { email: 'intruder@example.com', role: 'owner' },
      createProject: { key: 'pwned', name: 'Pwned' },
      updateProject: { targetIdField: 'deviceId' },
      createEnvironment: { key: 'pwned', name: 'Pwned' },
      createFlag: { key: `team-${c.prim}-pwned`, name: 'Pwned', valueType: 'string', defaultValue: 'pwned' },
      updateFlag: { name: 'Pwned', clientVisible: true },
      updateConfig: { name: 'Pwned', clientVisible: true },
      deleteFlag: { confirm: flagOf(c.prim) },
      deleteConfig: { confirm: configOf(c.prim) },
      deleteEnvironment: { confirm: c.env === 'mobile' ? 'm-prod' : c.env },
      deleteProject: { confirm: c.project },
      setFlagValue: { value: 'pwned' },
      setFlagRules: { rules: [] },
      createConfig: { key: `team-${c.prim}-pwned`, name: 'Pwned', defaultValue: 1 },
      syncCreateFlag: { key: `team-${c.prim}-pwned`, type: 'string', defaultValue: 'pwned' },
      syncUpdateFlag: { key: flagOf(c.prim), type: 'string', name: 'Pwned' },
      setConfigValue: { value: { pwned: true } },
      setConfigRules: { rules: [] },
      putFlagRollout: { percent: 100, newValue: 'pwned' },
      putConfigRollout: { percent: 100, newValue: { pwned: true } },
      addFlagTargetIds: { targetIds: ['intruder'] },
      removeFlagTargetIds: { targetIds: [`${mark(c.env === 'prod' ? 'prod' : 'staging', c.prim)}-user`] },
      replaceFlagTargetIds: { targetIds: ['intruder'] },
      addConfigTargetIds: { targetIds: ['intruder'] },
      removeConfigTargetIds: { targetIds: [`${mark(c.env === 'prod' ? 'prod' : 'staging', c.prim)}-config-user`] },
      replaceConfigTargetIds: { targetIds: ['intruder'] },
      createRolloutPlan: { key: 'pwned', name: 'Pwned', rampSteps: [{ percent: 100, holdForSeconds: 0 }] },
      updateRolloutPlan: { name: 'Pwned' },
      evaluate: { context: { userId: 'u', email: `x@${mark('prod', 'b')}.example` } },
      ofrepEvaluateFlag: { context: { targetingKey: 'u' } },
      ofrepEvaluateFlags: { context: { targetingKey: 'u' } },
      reportUsage: {
        windowStart: new Date(Date.now() - 120_000).toISOString(),
        windowEnd: new Date(Date.now() - 60_000).toISOString(),
        entries: [{ kind: 'flag', key: flagOf(c.prim), variant: 'default', count: 1 }],
      },
      reportGuardMetrics: {
        windowStart: new Date(Date.now() - 20_000).toISOString(),
        windowEnd: new Date(Date.now() - 10_000).toISOString(),
        exposures: [{ kind: 'flag', key: flagOf(c.prim), percent: 5, arm: 'treatment', units: 1 }],
        events: [],
      },
      reportCodeReferences: { repository: 'pwned', checks: [{ kind: 'flag', key: flagOf(c.prim), references: 0, locations: [] }] },
      ackRuleset: { instanceId: 'scope-probe', sdk: { name: 'probe', version: '1' }, version: 1, mode: 'poll' },
      createRollbackSecret: { name: 'pwned' },
      createWebhookSubscription: { name: 'pwned', url: 'https://hooks.example.com/pwned', events: ['rollout.created'] },
      updateWebhookSubscription: { name: 'pwned' },
      fireFlagRollback: { status: 'firing' },
      fireConfigRollback: { status: 'firing' },
      createApiKey: { name: 'pwned' },
      createSegment: { key: 'pwned', name: 'Pwned' },
      createGuardMetric: { key: 'pwned', name: 'Pwned', kind: 'count', worse: 'higher' },
      updateSegment: { name: 'Pwned' },
      deleteSegment: { confirm: 'vip' },
      addSegmentIncluded: { targetIds: ['intruder'] },
      removeSegmentIncluded: { targetIds: ['vip-user'] },
      replaceSegmentIncluded: { targetIds: ['intruder'] },
      addSegmentExcluded: { targetIds: ['intruder'] },
      removeSegmentExcluded: { targetIds: ['vip-user'] },
      replaceSegmentExcluded: { targetIds: ['intruder'] },
    };
    if (!(e.key in bodies)) throw new Error(`no valid body for ${e.name}: add one to the scope matrix`);
    return bodies[e.key];
  }

  /** Lists are read whole, so a leak past the first page shows. */
  const QUERIES: Record<string, string> = { listAuditEvents: 'limit=200', listProposals: 'limit=500', listRollbackFires: 'limit=200' };

  const call = (e: RouteEntry, c: Ctx, token: string) => {
    const body = e.hasBody ? JSON.stringify(bodyFor(e, c)) : undefined;
    const query = QUERIES[e.key] ? `?${QUERIES[e.key]}` : '';
    calls++;
    return send(t.url, { method: e.route.method, path: fillPath(e.route.path, paramsFor(e, c)) + query, ...(body !== undefined ? { body } : {}) }, { token });
  };

  /** Environment versions and the audit rows a write would add (proposal rows apart: the approval key makes those). */
  async function marks(): Promise<{ versions: Record<string, number>; auditRows: number; project: unknown; plans: unknown }> {
    const versions: Record<string, number> = {};
    for (const [name, envId] of Object.entries(fx.envs)) versions[name] = (await owner.getEnvironment({ path: { envId } })).version;
    let auditRows = 0;
    let cursor: string | undefined;
    do {
      const page = await owner.listAuditEvents({ path: { slug: 'acme' }, query: { limit: 200, ...(cursor ? { cursor } : {}) } });
      auditRows += page.events.filter((e) => e.resourceType !== 'proposal').length;
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    const project = await owner.getProject({ path: { id: fx.projects.web } });
    const plans = await owner.listRolloutPlans({ path: { id: fx.projects.web } });
    return { versions, auditRows, project, plans };
  }

  it('classifies every route an API key may call', () => {
    expect(keyRoutes.length).toBeGreaterThan(70);
    for (const e of keyRoutes) {
      if (e.auth === 'session' || e.auth === 'rollback') continue;
      expect(() => scopeOf(e), e.name).not.toThrow();
    }
  });

  for (const who of ['env', 'resource', 'readOnly', 'approval', 'client'] as const) {
    it(`keeps the ${who} key inside its scope on every route, and lets it change nothing outside`, async () => {
      const token = fx.keys[who].token;
      const before = await marks();
      const failures: string[] = [];
      let probed = 0;
      for (const e of keyRoutes) {
        const probes: Probe[] =
          e.auth === 'session'
            ? [{ ctx: {}, expect: { status: 403, code: 'scope_denied' } }]
            : e.auth === 'rollback'
              ? [{ ctx: {}, expect: { status: 401, code: 'rollback_unauthorized' } }]
              : probesFor(e, who);
        for (const probe of probes) {
          if ('skip' in probe.expect) continue;
          const c = { ...DEFAULT_CTX, ...probe.ctx };
          const res = await call(e, c, token);
          probed++;
          const label = `${e.name} ${JSON.stringify(probe.ctx)} → ${res.status} ${res.text.slice(0, 200)}`;
          // OFREP answers its 400 and 404 in the protocol's shape (`errorCode`), not the envelope.
          const ofrep = (res.json as { errorCode?: string } | undefined)?.errorCode;
          const problems = OFREP_ROUTES.has(e.key) && ofrep !== undefined ? [] : envelopeProblems(res, e.route);
          if (problems.length) failures.push(`${label}: ${problems.join('; ')}`);
          const code = (res.json as { code?: string } | undefined)?.code ?? ofrep;
          if ('ok' in probe.expect) {
            const success = ACCEPTED_ROUTES.has(e.key) ? 202 : NO_CONTENT_ROUTES.has(e.key) ? 204 : 200;
            if (res.status !== success) failures.push(`${label}: expected ${success}`);
            const leaked = forbidden(who).filter((m) => res.text.includes(m));
            if (leaked.length) failures.push(`${label}: leaks ${leaked.join(', ')}`);
          } else if ('proposal' in probe.expect) {
            // A proposal (202), or the proposal's own checks refusing it (e.g. resuming a rollout that is not paused).
            if (res.status !== 202 && !(res.status >= 400 && res.status < 500 && !String(code).startsWith('token_') && code !== 'approval_not_supported')) {
              failures.push(`${label}: expected a proposal`);
            }
          } else if (res.status !== probe.expect.status || code !== probe.expect.code) {
            failures.push(`${label}: expected ${probe.expect.status} ${probe.expect.code}`);
          }
        }
      }
      expect(failures).toEqual([]);
      expect(probed).toBeGreaterThan(who === 'env' || who === 'resource' ? 100 : 70);
      expect(await marks()).toEqual(before);
    });
  }

  it('still lets each restricted key work inside its scope (the refusals above are about scope)', async () => {
    const env = t.asToken(fx.keys.env.token);
    expect((await env.listEnvironments({ path: { id: fx.projects.web } })).map((e) => e.id)).toEqual([fx.envs.staging]);
    expect((await env.listProjects({ path: { slug: 'acme' } })).map((p) => p.key)).toEqual(['web']);
    const stagingRows = (await env.listAuditEvents({ path: { slug: 'acme' }, query: { limit: 200 } })).events;
    expect(stagingRows.length).toBeGreaterThan(5);
    expect(stagingRows.every((e) => e.envId === fx.envs.staging)).toBe(true);
    const resource = t.asToken(fx.keys.resource.token);
    expect((await resource.listFlagStates({ path: { envId: fx.envs.prod } })).map((s) => s.key)).toEqual(['team-a-checkout']);
    const teamRows = (await resource.listAuditEvents({ path: { slug: 'acme' }, query: { limit: 200 } })).events;
    expect(teamRows.length).toBeGreaterThan(5);
    expect(teamRows.every((e) => e.resourceKey?.startsWith('team-a-'))).toBe(true);
    // Filtered in the query: `limit` counts the proposals the key sees, whatever the newest of all is.
    const { response } = await t.asToken(fx.keys.approval.token).withResponse.pauseConfigRollout({ path: { envId: fx.envs.staging, key: configOf('b') } });
    expect(response.status).toBe(202);
    const all = await owner.listProposals({ path: { slug: 'acme' }, query: { limit: 500 } });
    expect(all[0]!.resourceKey).toBe(configOf('b'));
    const newestOfTeamA = all.find((p) => p.resourceKey.startsWith('team-a-'))!;
    expect((await resource.listProposals({ path: { slug: 'acme' }, query: { limit: 1 } })).map((p) => p.id)).toEqual([newestOfTeamA.id]);
    // The staging fires of both teams, and the refused fires the matrix sent with API keys: team-a's only.
    const fires = (await resource.listRollbackFires({ path: { envId: fx.envs.staging }, query: { limit: 200 } })).fires;
    expect(fires.filter((f) => f.outcome === 'transitioned').map((f) => f.primitiveKey)).toEqual(['team-a-checkout']);
    expect(fires.every((f) => f.primitiveKey.startsWith('team-a-'))).toBe(true);
  });
});
