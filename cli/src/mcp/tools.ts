import type { GradualClient, MutationResult } from '@gradual/sdk';
import { z } from 'zod/v4';
import { CliError } from '../errors.js';
import type { Access } from './access.js';
import { defineTool, type JsonObject, type McpTool } from './tool.js';

export interface ToolContext {
  client: GradualClient;
  access: Access;
}

type Kind = 'flag' | 'config';

/** The flag or config in one environment that a write is about. */
interface WriteTarget {
  envId: string;
  key: string;
  kind: Kind;
}

// Argument schemas. The API validates every request again; these state its limits to the agent.

const Id = (what: string) =>
  z
    .string()
    .regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, 'must be a UUID')
    .describe(what);
const ProjectId = Id('Project ID (from list_projects).');
const EnvId = Id('Environment ID (from list_environments).');
const PrimitiveKey = z.string().min(1).max(128).describe('The flag or config key, e.g. "new-checkout".');
const KindArg = z.enum(['flag', 'config']).default('flag').describe('Whether `key` names a flag or a config (default flag).');
const Percent = z
  .number()
  .min(0)
  .max(100)
  .refine((n) => Math.abs(n * 10_000 - Math.round(n * 10_000)) < 1e-6, 'at most 4 decimal places');
const Reason = z
  .string()
  .trim()
  .min(1)
  .max(500)
  .describe('Why this change: shown to the person who approves the proposal and stored on its audit rows.');
const TargetIds = z
  .array(z.string().min(1).max(256))
  .min(1)
  .max(100_000)
  .describe('Target IDs (values of the rollout\'s bucket field, e.g. user IDs), up to 100,000.');

const targetArgs = { envId: EnvId, key: PrimitiveKey, kind: KindArg };

const READ = { readOnlyHint: true, idempotentHint: true } as const;

function orgOf(ctx: ToolContext): string {
  const slug = ctx.access.org;
  if (!slug) throw new CliError('missing_org', 'No organization: have the operator set GRADUAL_ORG (or --org) for gradual mcp.');
  return slug;
}

/** The tools that only read. */
export function readTools(ctx: ToolContext): McpTool[] {
  const { client } = ctx;
  return [
    defineTool({
      name: 'list_projects',
      title: 'List projects',
      description: "The organization's projects (id, key, name). Start here: project IDs lead to environments, flags, configs and rollout plans.",
      input: z.strictObject({}),
      annotations: READ,
      run: async () => ({ projects: await client.listProjects({ path: { slug: orgOf(ctx) } }) }),
    }),
    defineTool({
      name: 'list_environments',
      title: 'List environments',
      description: "A project's environments (id, key such as \"production\", name, version). Environment IDs are what the per-environment tools take.",
      input: z.strictObject({ projectId: ProjectId }),
      annotations: READ,
      run: async ({ projectId }) => ({ environments: await client.listEnvironments({ path: { id: projectId } }) }),
    }),
    defineTool({
      name: 'list_flags',
      title: 'List flags and configs',
      description:
        "The flag and config definitions of a project (key, name, description, value type, default value). `kind` narrows to one of them. For their state in an environment use list_flag_states or get_flag.",
      input: z.strictObject({ projectId: ProjectId, kind: z.enum(['flag', 'config']).optional().describe('Only flags or only configs; both when omitted.') }),
      annotations: READ,
      run: async ({ projectId, kind }) => {
        const path = { id: projectId };
        const result: JsonObject = {};
        if (kind !== 'config') result.flags = await client.listFlags({ path });
        if (kind !== 'flag') result.configs = await client.listConfigs({ path });
        return result;
      },
    }),
    defineTool({
      name: 'list_flag_states',
      title: 'List flag or config states in an environment',
      description: 'Every flag (or config) of an environment with its value, targeting rules and current rollout (null when none).',
      input: z.strictObject({ envId: EnvId, kind: KindArg }),
      annotations: READ,
      run: async ({ envId, kind }) =>
        kind === 'flag'
          ? { flags: await client.listFlagStates({ path: { envId } }) }
          : { configs: await client.listConfigStates({ path: { envId } }) },
    }),
    defineTool({
      name: 'get_flag',
      title: 'Get a flag or config in an environment',
      description:
        "One flag's (or config's) state in an environment: its base value, targeting rules (first match wins) and its rollout (status, percent, candidate value `newValue`, plan, next step), or null when it has none.",
      input: z.strictObject(targetArgs),
      annotations: READ,
      run: async ({ envId, key, kind }) => {
        const path = { envId, key };
        return kind === 'flag' ? { flag: await client.getFlagState({ path }) } : { config: await client.getConfigState({ path }) };
      },
    }),
    defineTool({
      name: 'get_rollout',
      title: "Get a rollout's status",
      description:
        "The rollout of a flag or config in an environment: the live one (active or paused) or else the most recent. status, percent, pausedReason (user, approval_gate, auto_rollback, guard), planKey, ramp step, nextStepAt, targetIdsCount. `not_found` when it never had one.",
      input: z.strictObject(targetArgs),
      annotations: READ,
      run: async ({ envId, key, kind }) => {
        const path = { envId, key };
        return { rollout: kind === 'flag' ? await client.getFlagRollout({ path }) : await client.getConfigRollout({ path }) };
      },
    }),
    defineTool({
      name: 'get_rollout_guard',
      title: "Get a guarded rollout's checks",
      description:
        "The guard of a flag's or config's rollout in an environment (docs/guards.md): the guarded step it holds at (percent, hold, since), the gate's checklist (hold passed, units per arm against the minimum, sample-ratio mismatch), each metric's evidence against its threshold with its estimate and history by minute, the decision a check now would make, and lastStop, the check that last paused or rolled it back. step is null when it holds at no guarded step. `not_found` when it never had a rollout.",
      input: z.strictObject(targetArgs),
      annotations: READ,
      run: async ({ envId, key, kind }) => {
        const path = { envId, key };
        return { guard: kind === 'flag' ? await client.getFlagRolloutGuard({ path }) : await client.getConfigRolloutGuard({ path }) };
      },
    }),
    defineTool({
      name: 'get_convergence',
      title: "Get an environment's SDK convergence",
      description:
        "Which ruleset version an environment's SDK instances serve (docs/convergence.md): the current version, the instances that acknowledged within the window and how many serve the current version, the time from each of the latest versions' commit to the instances that moved to it (p50, p99 in ms), the instances by SDK, and the laggards (instance, SDK, service, version, last seen).",
      input: z.strictObject({ envId: EnvId, windowMinutes: z.number().int().min(1).max(60).optional().describe('Count instances seen within this many minutes (default 5).') }),
      annotations: READ,
      run: async ({ envId, windowMinutes }) => ({
        convergence: await client.getConvergence({ path: { envId }, ...(windowMinutes === undefined ? {} : { query: { windowMinutes } }) }),
      }),
    }),
    defineTool({
      name: 'list_rollout_plans',
      title: 'List rollout plans',
      description:
        "A project's rollout plans: named ramps (steps of percent and hold time, optional approval gates), cadence (auto or manual) and blackout days. A rollout follows one when proposed with its `planKey`.",
      input: z.strictObject({ projectId: ProjectId }),
      annotations: READ,
      run: async ({ projectId }) => ({ plans: await client.listRolloutPlans({ path: { id: projectId } }) }),
    }),
    defineTool({
      name: 'evaluate',
      title: 'Evaluate flags for a context',
      description:
        "What a user (or any evaluation context) gets in an environment, evaluated by the server: per flag and config the value, the reason (STATIC, TARGETING_MATCH, SPLIT, DEFAULT), the variant naming the branch that served it (default, rule-<n>, target-id, rollout-new, rollout-base), the bucket and the live rollout's percent. Keys that name nothing are left out of `results`.",
      input: z.strictObject({
        envId: EnvId,
        context: z
          .record(z.string(), z.unknown())
          .describe('The evaluation context: the attributes rules read, and the bucket field (usually userId), e.g. {"userId": "u-123", "plan": "pro"}.'),
        keys: z.array(z.string().min(1).max(128)).max(1000).optional().describe('Only these flags and configs; all of them when omitted.'),
      }),
      annotations: READ,
      run: async ({ envId, context, keys }) => ({ ...(await client.evaluate({ path: { envId }, body: { context, ...(keys ? { keys } : {}) } })) }),
    }),
    defineTool({
      name: 'list_proposals',
      title: 'List proposals',
      description:
        'Approval proposals of the organization, newest first: changes approval-required API keys asked for. `pending` ones wait for an admin to apply or cancel them; they expire after 7 days.',
      input: z.strictObject({
        status: z.enum(['pending', 'applied', 'cancelled', 'expired']).optional().describe('Only proposals in this status.'),
        limit: z.number().int().min(1).max(500).optional().describe('At most this many (default 100).'),
      }),
      annotations: READ,
      run: async ({ status, limit }) => ({
        proposals: await client.listProposals({ path: { slug: orgOf(ctx) }, query: { ...(status ? { status } : {}), ...(limit ? { limit } : {}) } }),
      }),
    }),
    defineTool({
      name: 'get_proposal',
      title: 'Get a proposal',
      description: 'One proposal by ID: its status (pending, applied, cancelled, expired), the stored request and who applied or cancelled it when.',
      input: z.strictObject({ id: Id('Proposal ID (from a propose_* tool or list_proposals).') }),
      annotations: READ,
      run: async ({ id }) => ({ proposal: await client.getProposal({ path: { id } }) }),
    }),
    defineTool({
      name: 'list_audit_events',
      title: 'Read the audit log',
      description:
        "The organization's audit log, newest first: who (actorType, actorId, approverUserId) did what (action, e.g. rollout.update) to which resource, when, and why (reason). Filters combine with AND; pass `nextCursor` back as `cursor` for the next page. get_audit_event shows one event's values and diff.",
      input: z.strictObject({
        resourceType: z.string().min(1).max(64).optional().describe('e.g. flag, config, rollout, proposal, environment.'),
        resourceKey: z.string().min(1).max(256).optional().describe('A flag or config key.'),
        envId: EnvId.optional(),
        actorId: Id('Only events by this user or API key ID.').optional(),
        cursor: z.string().min(1).max(512).optional().describe('`nextCursor` of the previous page.'),
        limit: z.number().int().min(1).max(200).optional().describe('Page size (default 50).'),
      }),
      annotations: READ,
      run: async (query) => ({ ...(await client.listAuditEvents({ path: { slug: orgOf(ctx) }, query })) }),
    }),
    defineTool({
      name: 'get_audit_event',
      title: 'Get an audit event',
      description: 'One audit event with its previous and new values and their diff (RFC 6902 JSON Patch).',
      input: z.strictObject({ id: Id('Audit event ID (from list_audit_events).') }),
      annotations: READ,
      run: async ({ id }) => ({ event: await client.getAuditEvent({ path: { id } }) }),
    }),
  ];
}

/** What a write did: a proposal waiting for approval, or (only with --allow-direct-writes) a change applied at once. */
function outcome<T>(result: MutationResult<T>): JsonObject {
  if (result.kind === 'proposed') {
    const { proposal } = result;
    return {
      outcome: 'proposed',
      proposal,
      note: `Nothing has changed yet: proposal ${proposal.id} waits for an admin or owner of the organization to apply it (or cancel it) in Gradual; it expires at ${proposal.expiresAt}. Follow it with get_proposal.`,
    };
  }
  return { outcome: 'applied', result: result.data ?? null, note: 'Applied at once: these credentials are not approval-required, and this server was started with --allow-direct-writes.' };
}

/** The tools that write: offered only as the write policy allows (access.ts). */
export function writeTools(ctx: ToolContext): McpTool[] {
  const { client, access } = ctx;
  const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false } as const;
  const policyNote =
    access.writes === 'direct'
      ? ' This server writes directly (started with --allow-direct-writes): the change applies at once.'
      : ' This makes a proposal: nothing changes until a person applies it in Gradual.';

  const settled = async <T>(write: Promise<MutationResult<T>>): Promise<JsonObject> => outcome(await write);
  const rolloutPath = ({ envId, key }: WriteTarget) => ({ envId, key });
  const headersOf = (reason: string) => ({ 'x-audit-reason': reason });

  const stateChange = (
    verb: 'pause' | 'resume' | 'cancel' | 'advance',
    title: string,
    description: string,
    destructive: boolean,
    ops: Record<Kind, (a: { path: { envId: string; key: string }; headers: { 'x-audit-reason': string } }) => Promise<MutationResult<unknown>>>,
  ) =>
    defineTool({
      name: `propose_${verb}`,
      title,
      description: description + policyNote,
      input: z.strictObject({ ...targetArgs, reason: Reason }),
      annotations: { ...WRITE, destructiveHint: destructive },
      run: ({ reason, ...target }) => settled(ops[target.kind]({ path: rolloutPath(target), headers: headersOf(reason) })),
    });

  return [
    defineTool({
      name: 'propose_rollout',
      title: 'Propose a rollout (start or change it)',
      description:
        "Starts a rollout of a flag or config in an environment, or edits the live one: its percent (the share of contexts, by bucket, that get `newValue`), its candidate value, or its plan. Raising the percent only adds users; 100 completes the rollout. After a completed or cancelled rollout this starts a new one." +
        policyNote,
      input: z.strictObject({
        ...targetArgs,
        percent: Percent.describe('0–100, at most 4 decimal places.'),
        newValue: z
          .unknown()
          .optional()
          .describe("The candidate value admitted contexts get (a flag's type: boolean, string or number; any JSON for a config). Omit to keep the live rollout's, or to gate the primitive's rules instead."),
        planKey: z
          .string()
          .min(1)
          .max(64)
          .regex(/^[A-Za-z0-9._-]+$/, 'only letters, digits, ".", "_" and "-"')
          .nullable()
          .optional()
          .describe('A rollout plan of the project (list_rollout_plans) to ramp by; null detaches the plan; omit to keep it as it is.'),
        seed: z.string().min(1).max(256).optional().describe('Bucketing seed (default "<key>:<envKey>"); locked once the percent is above 0.'),
        bucketField: z.string().min(1).max(128).optional().describe('The context attribute users are bucketed by (default the project\'s, usually userId).'),
        reason: Reason,
      }),
      annotations: WRITE,
      run: ({ envId, key, kind, reason, percent, newValue, planKey, seed, bucketField }) => {
        const target = { envId, key, kind };
        const body = {
          percent,
          ...(newValue !== undefined ? { newValue } : {}),
          ...(planKey !== undefined ? { planKey } : {}),
          ...(seed !== undefined ? { seed } : {}),
          ...(bucketField !== undefined ? { bucketField } : {}),
        };
        const args = { path: rolloutPath(target), body, headers: headersOf(reason) };
        return settled(kind === 'flag' ? client.putFlagRollout(args) : client.putConfigRollout(args));
      },
    }),
    stateChange('pause', 'Propose pausing a rollout', 'Pauses a live rollout: admission stays at the held percent and plan steps stop.', false, {
      flag: (a) => client.pauseFlagRollout(a),
      config: (a) => client.pauseConfigRollout(a),
    }),
    stateChange(
      'resume',
      'Propose resuming a rollout',
      'Resumes a paused rollout: after a user pause the hold restarts; at an approval gate the gated step is entered; after an automatic rollback it returns to the percent it was rolled back from. `rollout_not_paused` when it is not paused.',
      false,
      { flag: (a) => client.resumeFlagRollout(a), config: (a) => client.resumeConfigRollout(a) },
    ),
    stateChange('cancel', 'Propose cancelling a rollout', 'Cancels a rollout: admission stops and every context gets the base value or rules again.', true, {
      flag: (a) => client.cancelFlagRollout(a),
      config: (a) => client.cancelConfigRollout(a),
    }),
    stateChange(
      'advance',
      'Propose advancing a rollout',
      "Moves a rollout to its plan's next ramp step now, ignoring holds, blackout days and approval gates. `rollout_already_at_final_step` when there is none.",
      false,
      { flag: (a) => client.advanceFlagRollout(a), config: (a) => client.advanceConfigRollout(a) },
    ),
    defineTool({
      name: 'propose_add_target_ids',
      title: "Propose adding target IDs to a rollout's allow-list",
      description: "Adds IDs to the live rollout's allow-list: those contexts get the candidate value whatever their bucket. Duplicates are ignored." + policyNote,
      input: z.strictObject({ ...targetArgs, targetIds: TargetIds, reason: Reason }),
      annotations: WRITE,
      run: ({ envId, key, kind, targetIds, reason }) => {
        const target = { envId, key, kind };
        const args = { path: rolloutPath(target), body: { targetIds }, headers: headersOf(reason) };
        return settled(kind === 'flag' ? client.addFlagTargetIds(args) : client.addConfigTargetIds(args));
      },
    }),
    defineTool({
      name: 'propose_remove_target_ids',
      title: "Propose removing target IDs from a rollout's allow-list",
      description: "Removes IDs from the live rollout's allow-list; IDs not on it are skipped." + policyNote,
      input: z.strictObject({ ...targetArgs, targetIds: TargetIds, reason: Reason }),
      annotations: { ...WRITE, destructiveHint: true },
      run: ({ envId, key, kind, targetIds, reason }) => {
        const target = { envId, key, kind };
        const args = { path: rolloutPath(target), body: { targetIds }, headers: headersOf(reason) };
        return settled(kind === 'flag' ? client.removeFlagTargetIds(args) : client.removeConfigTargetIds(args));
      },
    }),
    defineTool({
      name: 'withdraw_proposal',
      title: 'Withdraw a proposal',
      description: 'Cancels a pending proposal this API key made (for instance one made by mistake). `proposal_gone` when it is already applied, cancelled or expired.',
      input: z.strictObject({ id: Id('Proposal ID.') }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
      run: async ({ id }) => ({ proposal: await client.cancelProposal({ path: { id } }) }),
    }),
  ];
}
