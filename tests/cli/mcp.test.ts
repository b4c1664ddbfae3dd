import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Proposal, Rollout } from '@gradual/sdk';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rolloutOps } from '../support/rollout-ops.js';
import { claim, startTestServer, type ClaimedInstance, type TestServer } from '../support/server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The real `gradual mcp` process, spoken to over stdio by the MCP SDK's client. */
interface McpSession {
  client: Client;
  stderr: () => string;
  close(): Promise<void>;
}

async function startMcp(t: TestServer, token: string, flags: string[] = []): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--conditions=@gradual/source', '--import', 'tsx', 'cli/src/main.ts', 'mcp', ...flags],
    cwd: ROOT,
    // No config file and no GRADUAL_ORG: the organization is the key's own.
    env: { GRADUAL_URL: t.url, GRADUAL_TOKEN: token, GRADUAL_CONFIG: `${ROOT}/.no-such-gradual-config.json` },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  try {
    await client.connect(transport);
  } catch (err) {
    throw new Error(`gradual mcp did not start: ${String(err)}; its stderr: ${stderr}`);
  }
  return { client, stderr: () => stderr, close: () => client.close() };
}

async function call(session: McpSession, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return CallToolResultSchema.parse(await session.client.callTool({ name, arguments: args }));
}

/** A tool's structured result; fails the test with the tool's error when it has one. */
async function ok<T = Record<string, unknown>>(session: McpSession, name: string, args: Record<string, unknown>): Promise<T> {
  const result = await call(session, name, args);
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.structuredContent)}\n${session.stderr()}`);
  // The text block carries the same JSON, for clients that read text only.
  const text = result.content[0];
  expect(text?.type === 'text' ? JSON.parse(text.text) : undefined).toEqual(result.structuredContent);
  return result.structuredContent as T;
}

interface ToolError {
  code: string;
  message: string;
  status?: number;
  requestId?: string;
  fields?: Record<string, string>;
}

/** A tool's error (`isError: true`); fails the test when the tool succeeded. */
async function refused(session: McpSession, name: string, args: Record<string, unknown>): Promise<ToolError> {
  const result = await call(session, name, args);
  expect(result.isError, `${name} should fail: ${JSON.stringify(result.structuredContent)}`).toBe(true);
  return (result.structuredContent as { error: ToolError }).error;
}

const READ_TOOLS = [
  'list_projects',
  'list_environments',
  'list_flags',
  'list_flag_states',
  'get_flag',
  'get_rollout',
  'get_rollout_guard',
  'get_convergence',
  'list_rollout_plans',
  'evaluate',
  'list_proposals',
  'get_proposal',
  'list_audit_events',
  'get_audit_event',
];
const WRITE_TOOLS = [
  'propose_rollout',
  'propose_pause',
  'propose_resume',
  'propose_cancel',
  'propose_advance',
  'propose_add_target_ids',
  'propose_remove_target_ids',
  'withdraw_proposal',
];

describe('gradual mcp', () => {
  let t: TestServer;
  let owner: ClaimedInstance;
  let projectId: string;
  let envId: string;
  let stagingId: string;
  /** Sessions of `gradual mcp` with: an approval-required agent key; a direct key, without and with --allow-direct-writes; an approval-required key scoped to staging; a read-only key. */
  let agent: McpSession;
  let direct: McpSession;
  let directAllowed: McpSession;
  let stagingOnly: McpSession;
  let readOnly: McpSession;
  const flag = { key: 'checkout', kind: 'flag' } as const;
  let flagPath: { envId: string; key: string };
  const ops = () => rolloutOps(owner.session, 'flag');
  const version = async () => (await owner.session.getEnvironment({ path: { envId } })).version;

  beforeAll(async () => {
    t = await startTestServer();
    owner = await claim(t);
    const s = owner.session;
    projectId = (await s.createProject({ path: { slug: 'acme' }, body: { key: 'web', name: 'Web shop' } })).id;
    envId = (await s.createEnvironment({ path: { id: projectId }, body: { key: 'production', name: 'Production' } })).id;
    stagingId = (await s.createEnvironment({ path: { id: projectId }, body: { key: 'staging', name: 'Staging' } })).id;
    await s.createFlag({ path: { id: projectId }, body: { key: 'checkout', name: 'New checkout', defaultValue: false } });
    await s.createConfig({ path: { id: projectId }, body: { key: 'limits', name: 'Limits', defaultValue: { maxItems: 10 } } });
    await s.createRolloutPlan({
      path: { id: projectId },
      body: { key: 'careful', name: 'Careful', rampSteps: [{ percent: 10, holdForSeconds: 3600 }, { percent: 50, holdForSeconds: 3600 }, { percent: 100, holdForSeconds: 0 }] },
    });
    flagPath = { envId, key: 'checkout' };
    await ops().put(flagPath, { percent: 10, newValue: true }, { 'x-audit-reason': 'first 10%' });

    const mint = async (body: { name: string; kind?: 'api' | 'agent'; requiresApproval?: boolean; environments?: string[]; actions?: Array<'read' | 'write'> }) =>
      (await s.createApiKey({ path: { slug: 'acme' }, body })).token;
    const [agentToken, directToken, stagingToken, readToken] = await Promise.all([
      mint({ name: 'coding agent', kind: 'agent', requiresApproval: true }),
      mint({ name: 'ci' }),
      mint({ name: 'staging agent', kind: 'agent', requiresApproval: true, environments: [stagingId] }),
      mint({ name: 'reader', kind: 'agent', actions: ['read'] }),
    ]);
    [agent, direct, directAllowed, stagingOnly, readOnly] = await Promise.all([
      startMcp(t, agentToken),
      startMcp(t, directToken),
      startMcp(t, directToken, ['--allow-direct-writes']),
      startMcp(t, stagingToken),
      startMcp(t, readToken),
    ]);
  });

  afterAll(async () => {
    await Promise.all([agent, direct, directAllowed, stagingOnly, readOnly].map((session) => session?.close()));
    await t?.close();
  });

  it('lists its tools with their input schemas', async () => {
    const { tools } = await agent.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...READ_TOOLS, ...WRITE_TOOLS].sort());
    for (const tool of tools) {
      expect(tool.description, tool.name).toBeTruthy();
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(READ_TOOLS.includes(tool.name));
    }
    const propose = tools.find((tool) => tool.name === 'propose_rollout');
    expect(propose?.inputSchema.required?.sort()).toEqual(['envId', 'key', 'percent', 'reason']);
    expect(propose?.inputSchema.properties?.percent).toMatchObject({ type: 'number', minimum: 0, maximum: 100 });
    expect(propose?.inputSchema.properties?.kind).toMatchObject({ enum: ['flag', 'config'], default: 'flag' });
    expect(propose?.inputSchema.additionalProperties).toBe(false);
    expect(propose?.description).toContain('nothing changes until a person applies it');
    expect(agent.client.getInstructions()).toContain('"coding agent" of the organization "acme" is approval-required');
  });

  it('offers the write tools only to an approval-required key, unless direct writes are allowed', async () => {
    const names = async (session: McpSession) => (await session.client.listTools()).tools.map((tool) => tool.name).sort();
    expect(await names(direct)).toEqual([...READ_TOOLS].sort());
    expect(direct.stderr()).toContain('no write tools: This API key is not approval-required');
    expect(direct.client.getInstructions()).toContain('No write tools');
    expect(await names(readOnly)).toEqual([...READ_TOOLS].sort());
    expect(await names(stagingOnly)).toEqual([...READ_TOOLS, ...WRITE_TOOLS].sort());
    expect(await names(directAllowed)).toEqual([...READ_TOOLS, ...WRITE_TOOLS].sort());
    const propose = (await directAllowed.client.listTools()).tools.find((tool) => tool.name === 'propose_rollout');
    expect(propose?.description).toContain('applies at once');
    expect(directAllowed.client.getInstructions()).toContain('apply their change at once');
  });

  it('ends at start-up, saying why, when the key is refused', async () => {
    await expect(startMcp(t, 'svc_00000000000000000000000000000000')).rejects.toThrow(/its stderr: error: .*\(code: unauthorized, status: 401/);
  });

  it('reads projects, environments, flags, rollouts, plans, evaluations and the audit log', async () => {
    const { projects } = await ok<{ projects: Array<{ id: string; key: string }> }>(agent, 'list_projects', {});
    expect(projects).toEqual([expect.objectContaining({ id: projectId, key: 'web', name: 'Web shop' })]);

    const { environments } = await ok<{ environments: Array<{ id: string; key: string }> }>(agent, 'list_environments', { projectId });
    expect(environments.map((e) => [e.key, e.id]).sort()).toEqual([['production', envId], ['staging', stagingId]]);

    expect(await ok(agent, 'list_flags', { projectId })).toEqual({
      flags: [expect.objectContaining({ key: 'checkout', valueType: 'boolean', defaultValue: false })],
      configs: [expect.objectContaining({ key: 'limits', defaultValue: { maxItems: 10 } })],
    });
    expect(await ok(agent, 'list_flags', { projectId, kind: 'config' })).toEqual({ configs: [expect.objectContaining({ key: 'limits' })] });
    expect(await ok(agent, 'list_flag_states', { envId, kind: 'config' })).toEqual({
      configs: [expect.objectContaining({ key: 'limits', value: { maxItems: 10 }, rollout: null })],
    });

    const { flag: state } = await ok<{ flag: { value: unknown; rules: unknown[]; rollout: Rollout } }>(agent, 'get_flag', { envId, key: 'checkout' });
    expect(state).toMatchObject({ value: false, rules: [], rollout: { status: 'active', percent: 10, newValue: true } });
    const { rollout } = await ok<{ rollout: Rollout }>(agent, 'get_rollout', { envId, key: 'checkout', kind: 'flag' });
    expect(rollout).toEqual(await ops().get(flagPath));
    // Not at a guarded step: no checks, and nothing stopped it.
    expect(await ok(agent, 'get_rollout_guard', { envId, key: 'checkout', kind: 'flag' })).toEqual({
      guard: { rolloutId: rollout.id, step: null, decision: null, waitingFor: [], checks: null, lastStop: null },
    });

    // The convergence ledger, as the API answers it (no SDK instance has acknowledged here).
    const direct = await owner.session.getConvergence({ path: { envId }, query: { windowMinutes: 10 } });
    expect(await ok(agent, 'get_convergence', { envId, windowMinutes: 10 })).toEqual({ convergence: { ...direct, at: expect.any(String) } });

    const { plans } = await ok<{ plans: Array<{ key: string; rampSteps: unknown[] }> }>(agent, 'list_rollout_plans', { projectId });
    expect(plans).toEqual([expect.objectContaining({ key: 'careful', rampSteps: expect.arrayContaining([expect.objectContaining({ percent: 50 })]) })]);

    // The server's evaluation: the same answer as the API's.
    const context = { userId: 'u-123', plan: 'pro' };
    const evaluated = await ok(agent, 'evaluate', { envId, context, keys: ['checkout', 'limits', 'nothing'] });
    expect(evaluated).toEqual(await owner.session.evaluate({ path: { envId }, body: { context, keys: ['checkout', 'limits', 'nothing'] } }));
    expect(Object.keys((evaluated as { results: object }).results).sort()).toEqual(['checkout', 'limits']);

    const audit = await ok<{ events: Array<{ id: string; action: string; resourceKey: string | null; reason: string | null }>; nextCursor: string | null }>(
      agent,
      'list_audit_events',
      { resourceKey: 'checkout', envId, limit: 5 },
    );
    expect(audit.events.length).toBeGreaterThan(0);
    expect(audit.events.every((e) => e.resourceKey === 'checkout')).toBe(true);
    const started = audit.events.find((e) => e.reason === 'first 10%');
    expect(started).toBeDefined();
    const { event } = await ok<{ event: { id: string; newValue: unknown } }>(agent, 'get_audit_event', { id: started!.id });
    expect(event).toMatchObject({ id: started!.id, newValue: expect.objectContaining({ percent: 10 }) });
  });

  it('proposes a rollout change: pending in the API, the rollout unchanged until an admin applies it', async () => {
    const before = await ops().get(flagPath);
    const v = await version();
    const result = await ok<{ outcome: string; proposal: Proposal; note: string }>(agent, 'propose_rollout', {
      ...flag,
      envId,
      percent: 50,
      planKey: 'careful',
      reason: 'error rate flat at 10% for a day',
    });
    expect(result.outcome).toBe('proposed');
    expect(result.note).toContain(result.proposal.id);
    expect(result.proposal).toMatchObject({
      status: 'pending',
      kind: 'rollout.put',
      envId,
      resourceType: 'flag',
      resourceKey: 'checkout',
      request: { method: 'PUT', body: { percent: 50, planKey: 'careful' }, headers: { 'x-audit-reason': 'error rate flat at 10% for a day' } },
    });

    // Through the SDK: pending, and nothing changed.
    const pending = await owner.session.listProposals({ path: { slug: 'acme' }, query: { status: 'pending' } });
    expect(pending.map((p) => p.id)).toContain(result.proposal.id);
    expect(await ops().get(flagPath)).toEqual(before);
    expect(await version()).toBe(v);
    // The agent sees it too.
    const listed = await ok<{ proposals: Proposal[] }>(agent, 'list_proposals', { status: 'pending' });
    expect(listed.proposals.map((p) => p.id)).toContain(result.proposal.id);

    // An admin applies it: now the rollout changes.
    await owner.session.applyProposal({ path: { id: result.proposal.id } });
    expect(await ops().get(flagPath)).toMatchObject({ status: 'active', percent: 50, planKey: 'careful', newValue: true });
    expect((await ok<{ proposal: Proposal }>(agent, 'get_proposal', { id: result.proposal.id })).proposal.status).toBe('applied');
  });

  it('proposes pause, cancel, advance and target-ID edits, none of which changes anything by itself', async () => {
    const before = await ops().get(flagPath);
    const v = await version();
    const target = { envId, key: 'checkout', reason: 'agent test' };
    const kinds: Record<string, string> = {};
    for (const [tool, args] of [
      ['propose_pause', target],
      ['propose_cancel', target],
      ['propose_advance', target],
      ['propose_add_target_ids', { ...target, targetIds: ['u-1', 'u-2'] }],
      ['propose_remove_target_ids', { ...target, targetIds: ['u-1'] }],
    ] as const) {
      const { outcome, proposal } = await ok<{ outcome: string; proposal: Proposal }>(agent, tool, args);
      expect(outcome).toBe('proposed');
      kinds[tool] = proposal.kind;
    }
    expect(kinds).toEqual({
      propose_pause: 'rollout.pause',
      propose_cancel: 'rollout.cancel',
      propose_advance: 'rollout.advance',
      propose_add_target_ids: 'target_ids.add',
      propose_remove_target_ids: 'target_ids.remove',
    });
    // A proposal is checked as the direct call would be: the rollout is not paused.
    expect(await refused(agent, 'propose_resume', target)).toMatchObject({ code: 'rollout_not_paused', status: 409 });
    expect(await ops().get(flagPath)).toEqual(before);
    expect(await version()).toBe(v);

    // A config works the same way; the agent can withdraw its own proposal.
    const { proposal } = await ok<{ proposal: Proposal }>(agent, 'propose_rollout', {
      envId,
      key: 'limits',
      kind: 'config',
      percent: 5,
      newValue: { maxItems: 20 },
      reason: 'try a larger basket',
    });
    expect(proposal).toMatchObject({ kind: 'rollout.put', resourceType: 'config', resourceKey: 'limits', request: { body: { percent: 5, newValue: { maxItems: 20 } } } });
    const withdrawn = await ok<{ proposal: Proposal }>(agent, 'withdraw_proposal', { id: proposal.id });
    expect(withdrawn.proposal.status).toBe('cancelled');
    expect(await rolloutOps(owner.session, 'config').state({ envId, key: 'limits' })).toMatchObject({ rollout: null });
  });

  it('refuses writes with a direct (not approval-required) or read-only key by default, changing nothing', async () => {
    // Reads work with any key.
    expect((await ok<{ projects: unknown[] }>(direct, 'list_projects', {})).projects).toHaveLength(1);
    const before = await ops().get(flagPath);
    const v = await version();
    const audited = (await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { limit: 1 } })).events[0]?.id;
    const proposals = (await owner.session.listProposals({ path: { slug: 'acme' } })).length;

    for (const [tool, args] of [
      ['propose_pause', { envId, key: 'checkout', reason: 'stop it' }],
      ['propose_rollout', { envId, key: 'checkout', percent: 100, reason: 'ship it' }],
      ['propose_add_target_ids', { envId, key: 'checkout', targetIds: ['u-9'], reason: 'vip' }],
    ] as const) {
      const error = await refused(direct, tool, args);
      expect(error.code).toBe('direct_write_refused');
      expect(error.message).toContain('--allow-direct-writes');
      expect(await refused(readOnly, tool, args)).toMatchObject({ code: 'token_action_denied' });
    }
    // Nothing written: no change, no version, no audit row, no proposal.
    expect(await ops().get(flagPath)).toEqual(before);
    expect(await version()).toBe(v);
    expect((await owner.session.listAuditEvents({ path: { slug: 'acme' }, query: { limit: 1 } })).events[0]?.id).toBe(audited);
    expect(await owner.session.listProposals({ path: { slug: 'acme' } })).toHaveLength(proposals);
  });

  it('applies a direct key\'s write at once when started with --allow-direct-writes', async () => {
    const result = await ok<{ outcome: string; result: Rollout }>(directAllowed, 'propose_pause', { envId, key: 'checkout', reason: 'operator-approved agent' });
    expect(result.outcome).toBe('applied');
    expect(result.result).toMatchObject({ status: 'paused', pausedReason: 'user', percent: 50 });
    expect(await ops().get(flagPath)).toEqual(result.result);
    // An approval-required key still only proposes.
    const resumed = await ok<{ outcome: string }>(agent, 'propose_resume', { envId, key: 'checkout', reason: 'resume' });
    expect(resumed.outcome).toBe('proposed');
    expect((await ops().get(flagPath)).status).toBe('paused');
  });

  it('answers bad input and API refusals as tool errors with the code', async () => {
    const invalid = await refused(agent, 'propose_rollout', { envId: 'production', key: 'checkout', percent: 150 });
    expect(invalid.code).toBe('invalid_request');
    expect(Object.keys(invalid.fields ?? {}).sort()).toEqual(['envId', 'percent', 'reason']);
    expect((await refused(agent, 'propose_rollout', { envId, key: 'checkout', percent: 12.34567, reason: 'x' })).fields?.percent).toBe('at most 4 decimal places');
    // A misspelt argument is named rather than ignored.
    expect(await refused(agent, 'get_flag', { envId, key: 'checkout', environment: 'production' })).toMatchObject({
      code: 'invalid_request',
      fields: { '(arguments)': expect.stringContaining('environment') },
    });

    // The API's own refusals carry its code, status and request id.
    const missing = await refused(agent, 'get_flag', { envId, key: 'no-such-flag' });
    expect(missing).toMatchObject({ code: 'not_found', status: 404, requestId: expect.any(String) });
    expect(await refused(agent, 'propose_pause', { envId, key: 'no-such-flag', reason: 'x' })).toMatchObject({ code: 'not_found', status: 404 });
    // A key scoped to staging gets the API's scope refusal for production, reads and writes alike.
    expect(await refused(stagingOnly, 'get_rollout', { envId, key: 'checkout' })).toMatchObject({ code: 'token_env_out_of_scope', status: 403 });
    expect(await refused(stagingOnly, 'propose_cancel', { envId, key: 'checkout', reason: 'x' })).toMatchObject({ code: 'token_env_out_of_scope', status: 403 });
    // …and proposes in staging, where it may.
    expect((await ok<{ outcome: string }>(stagingOnly, 'propose_rollout', { envId: stagingId, key: 'checkout', percent: 1, newValue: true, reason: 'staging' })).outcome).toBe(
      'proposed',
    );
    // The flag has no rollout in staging.
    expect(await refused(agent, 'get_rollout', { envId: stagingId, key: 'checkout' })).toMatchObject({ code: 'not_found' });

    // An unknown tool is a protocol error; the server keeps serving.
    await expect(agent.client.callTool({ name: 'drop_database', arguments: {} })).rejects.toThrow(/Unknown tool/);
    expect((await ok<{ projects: unknown[] }>(agent, 'list_projects', {})).projects).toHaveLength(1);
  });
});
