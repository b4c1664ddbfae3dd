// GENERATED from openapi.yaml by `npm run sdk:generate`. Do not edit by hand.

export type ClientOptions = {
    baseUrl: `${string}://${string}` | (string & {});
};

/**
 * MagicLinkRequest
 */
export type MagicLinkRequest = {
    email: string;
};

/**
 * MailSent
 *
 * Always `{sent: true}`, whether or not a mail was sent (it never tells whether an address is known).
 */
export type MailSent = {
    sent: true;
};

/**
 * ErrorEnvelope
 *
 * Every non-2xx response carries this envelope; match on `code`, never on `message`.
 */
export type ErrorEnvelope = {
    code: 'invalid_request' | 'unauthorized' | 'forbidden' | 'not_found' | 'precondition_failed' | 'internal' | 'ruleset_not_cached' | 'magic_link_invalid' | 'magic_link_used' | 'magic_link_already_used' | 'magic_link_expired' | 'no_invitation' | 'already_claimed' | 'slug_unavailable' | 'insufficient_role' | 'scope_denied' | 'token_action_denied' | 'token_env_out_of_scope' | 'token_resource_out_of_scope' | 'token_ip_denied' | 'token_rate_limit' | 'approval_not_supported' | 'last_owner_cannot_demote_or_remove' | 'already_member' | 'invitation_pending' | 'invitation_used' | 'invitation_expired' | 'invitation_email_locked' | 'in_use' | 'segment_cycle' | 'segment_nesting_too_deep' | 'primitive_archived' | 'primitive_not_archived' | 'variant_in_use' | 'definition_fixed' | 'version_drift' | 'proposal_gone' | 'invalid_confirmation' | 'rollout_seed_locked' | 'rollout_not_paused' | 'rollout_already_at_final_step' | 'rollout_nothing_to_roll_back' | 'rollout_plan_key_conflict' | 'rollout_plan_in_use' | 'rollout_plan_invalid_ramp' | 'guard_metric_key_conflict' | 'guard_metric_in_use' | 'rollback_unauthorized' | 'rollback_rollout_not_found' | 'rollback_rate_limited' | 'quota_exceeded' | 'key_in_use' | 'service_unavailable';
    message: string;
    fields?: {
        [key: string]: string;
    };
    details?: {
        [key: string]: unknown;
    };
    requestId: string;
};

/**
 * SignupRequest
 *
 * The organization slug is derived from `orgName` on the server.
 */
export type SignupRequest = {
    email: string;
    displayName: string;
    orgName: string;
};

/**
 * InstallState
 */
export type InstallState = {
    claimed: boolean;
    signupEnabled: boolean;
};

/**
 * ClaimState
 *
 * `claimed` is false while the instance has no organization, i.e. `POST /auth/install-claim` would succeed.
 */
export type ClaimState = {
    claimed: boolean;
};

/**
 * InstallClaimRequest
 */
export type InstallClaimRequest = {
    email: string;
    displayName: string;
    orgName: string;
    orgSlug: string;
};

/**
 * SessionUser
 */
export type SessionUser = {
    id: string;
    email: string;
    displayName: string;
};

/**
 * Role
 */
export type Role = 'owner' | 'admin' | 'member';

/**
 * SessionOrganization
 */
export type SessionOrganization = {
    id: string;
    slug: string;
    name: string;
    role: Role;
};

/**
 * Session
 *
 * The signed-in user and the organizations they belong to, with their role in each.
 */
export type Session = {
    user: SessionUser;
    organizations: Array<SessionOrganization>;
};

/**
 * ApiKeyKind
 *
 * `api` and `agent` (`svc_…`): scripts, pipelines and coding agents, restricted as asked. `sdk` (`sdk_…`): a server-side SDK or OFREP provider, bound to one environment, read only. `client` (`pub_…`): safe to ship in a web page or app, bound to one environment, evaluation only (OFREP and `POST /envs/{envId}/evaluate`), and only flags and configs marked `clientVisible`.
 */
export type ApiKeyKind = 'api' | 'agent' | 'sdk' | 'client';

/**
 * TokenAction
 */
export type TokenAction = 'read' | 'write';

/**
 * ApiKey
 *
 * `environments`, `resources` and `ipAllowlist` are null when unrestricted; `allowedOrigins` is null except on client keys that set their own.
 */
export type ApiKey = {
    id: string;
    name: string;
    kind: ApiKeyKind;
    tokenPrefix: string;
    actions: Array<TokenAction>;
    environments: Array<string> | null;
    resources: Array<string> | null;
    ipAllowlist: Array<string> | null;
    rateLimitPerMin: number;
    expiresAt: string | null;
    requiresApproval: boolean;
    allowedOrigins: Array<string> | null;
    createdAt: string;
    createdByUserId: string | null;
    lastUsedAt: string | null;
    revokedAt: string | null;
};

/**
 * Whoami
 *
 * Who the request's credentials are. `type` tells which: `session` (a signed-in user, as `GET /auth/me` answers) or `api_key` (the key itself, never its token, with its organization: scopes, `requiresApproval`, rate limit, expiry).
 */
export type Whoami = {
    type: 'session';
    session: Session;
} | {
    type: 'api_key';
    apiKey: ApiKey;
    organization: {
        id: string;
        slug: string;
        name: string;
    };
};

/**
 * CreateOrgRequest
 */
export type CreateOrgRequest = {
    name: string;
    slug?: string;
};

/**
 * Org
 */
export type Org = {
    id: string;
    slug: string;
    name: string;
    createdAt: string;
};

/**
 * DeleteOrgRequest
 *
 * `confirm` must be the organization slug, typed again.
 */
export type DeleteOrgRequest = {
    confirm?: string;
};

/**
 * Member
 */
export type Member = {
    userId: string;
    email: string;
    displayName: string;
    role: Role;
    createdAt: string;
};

/**
 * UpdateMemberRequest
 */
export type UpdateMemberRequest = {
    role: Role;
};

/**
 * CreateInvitationRequest
 */
export type CreateInvitationRequest = {
    email: string;
    role: Role;
};

/**
 * InvitationStatus
 *
 * `pending` until accepted (`used`) or 7 days old (`expired`); used and expired are terminal.
 */
export type InvitationStatus = 'pending' | 'used' | 'expired';

/**
 * Invitation
 */
export type Invitation = {
    id: string;
    email: string;
    role: Role;
    status: InvitationStatus;
    expiresAt: string;
    createdAt: string;
};

/**
 * InvitationPreview
 *
 * What an invitation link offers, shown before accepting.
 */
export type InvitationPreview = {
    orgName: string;
    role: Role;
    email: string;
};

/**
 * AcceptInvitationRequest
 *
 * `displayName` names a new user; an existing user keeps theirs.
 */
export type AcceptInvitationRequest = {
    displayName: string;
};

/**
 * CreateProjectRequest
 */
export type CreateProjectRequest = {
    key: string;
    name: string;
    targetIdField?: string;
};

/**
 * Project
 */
export type Project = {
    id: string;
    orgId: string;
    key: string;
    name: string;
    targetIdField: string;
    createdAt: string;
    updatedAt: string;
};

/**
 * UpdateProjectRequest
 */
export type UpdateProjectRequest = {
    name?: string;
    targetIdField?: string;
};

/**
 * DeleteProjectRequest
 *
 * `confirm` must be the project's key, typed again.
 */
export type DeleteProjectRequest = {
    confirm?: string;
};

/**
 * CreateEnvironmentRequest
 */
export type CreateEnvironmentRequest = {
    key: string;
    name: string;
};

/**
 * Environment
 *
 * `version` advances by one on every committed write to anything in the environment.
 */
export type Environment = {
    id: string;
    projectId: string;
    key: string;
    name: string;
    version: number;
    createdAt: string;
};

/**
 * DeleteEnvironmentRequest
 *
 * `confirm` must be the environment's key, typed again.
 */
export type DeleteEnvironmentRequest = {
    confirm?: string;
};

/**
 * FlagValueType
 */
export type FlagValueType = 'boolean' | 'string' | 'number';

/**
 * Variants
 *
 * Named values (up to 32), each value given once and of the flag's type: evaluation reports the name of the value it served as its `variant` (docs/bucketing.md), and writes may name a variant instead of repeating its value. A variant that a value, rule or live rollout of any environment (or the default value) uses cannot be renamed, changed or removed (`409 variant_in_use`).
 */
export type Variants = {
    [key: string]: unknown;
};

/**
 * ConditionOperator
 *
 * `in_segment` / `not_in_segment`: `values` are segment keys of the project (the condition holds when the context is in any of them / in none of them); `attribute` is the context attribute matched against the segments' included and excluded target IDs (usually the project's `targetIdField`).
 */
export type ConditionOperator = 'in' | 'not_in' | 'starts_with' | 'ends_with' | 'contains' | 'gt' | 'gte' | 'lt' | 'lte' | 'in_segment' | 'not_in_segment';

/**
 * Condition
 */
export type Condition = {
    attribute: string;
    operator: ConditionOperator;
    values: Array<string | number>;
};

/**
 * LegacyRule
 *
 * `rolloutPercent` is accepted on import only: the first rule with one is hoisted into an env-scoped rollout (see migration warnings).
 */
export type LegacyRule = {
    description?: string;
    conditions: Array<Condition>;
    value?: unknown;
    /**
     * Instead of the value: the name of one of the flag's or config's declared `variants`, resolved to its value when written (send one of the two).
     */
    variant?: string;
    rolloutPercent?: number;
};

/**
 * FlagMetadata
 *
 * Custom metadata, returned with every evaluation as OpenFeature `flagMetadata` and OFREP `metadata` (docs/openfeature.md): up to 20 entries of strings (up to 256 characters), numbers and booleans.
 */
export type FlagMetadata = {
    [key: string]: string | number | boolean;
};

/**
 * CreateFlagRequest
 *
 * Creates the flag and its state (value = defaultValue, the given rules) in every environment of the project. `valueType` defaults to boolean; `clientVisible` to false.
 */
export type CreateFlagRequest = {
    key: string;
    name: string;
    description?: string;
    valueType?: FlagValueType;
    defaultValue?: unknown;
    /**
     * Instead of the value: the name of one of the flag's or config's declared `variants`, resolved to its value when written (send one of the two).
     */
    defaultVariant?: string;
    variants?: Variants;
    rules?: Array<LegacyRule>;
    clientVisible?: boolean;
    tags?: Array<string>;
    maintainer?: string;
    metadata?: FlagMetadata;
};

/**
 * Flag
 */
export type Flag = {
    id: string;
    projectId: string;
    key: string;
    name: string;
    description: string | null;
    valueType: FlagValueType;
    defaultValue?: unknown;
    /**
     * Client keys (`pub_…`, shipped in web pages) may evaluate it.
     */
    clientVisible: boolean;
    /**
     * Free labels for finding and grouping flags (`team:checkout`, `experiment`).
     */
    tags: Array<string>;
    /**
     * Who answers for it: a person's email or a team name.
     */
    maintainer: string | null;
    metadata: FlagMetadata;
    variants: Variants;
    /**
     * Set while archived: hidden from lists by default, no new rollouts, every environment serves its base value with reason `DISABLED`.
     */
    archivedAt: string | null;
    createdAt: string;
    updatedAt: string;
};

/**
 * ConfigSchema
 *
 * A JSON Schema (draft 2020-12; up to 16384 characters as JSON) that every value of the config must satisfy: its default value, each environment's value and rules, a rollout's candidate and its variants (docs/configs.md). References stay inside the schema (`#/$defs/…`); `pattern` and `patternProperties` are not accepted, and neither is an unknown keyword or `format`.
 */
export type ConfigSchema = {
    [key: string]: unknown;
};

/**
 * UpdatePrimitiveRequest
 *
 * The definition's descriptive fields; omitted fields keep their value, a null `description` or `maintainer` clears it, `tags`, `metadata` and `variants` replace the whole list or map (`{}` clears the metadata or the variants). Changing `clientVisible` changes what client keys evaluate, and changing `metadata` or `variants` what evaluations return, so every environment of the project gets a new ruleset version. A variant in use keeps its name and value (`409 variant_in_use`). `schema` is a config's only (null removes it): every value the config holds must satisfy the new one (`400` naming each that does not).
 */
export type UpdatePrimitiveRequest = {
    name?: string;
    description?: string | null;
    clientVisible?: boolean;
    tags?: Array<string>;
    maintainer?: string | null;
    metadata?: FlagMetadata;
    variants?: Variants;
    schema?: ConfigSchema | null;
};

/**
 * DeletePrimitiveRequest
 *
 * `confirm` must be the flag's or config's key, typed again.
 */
export type DeletePrimitiveRequest = {
    confirm?: string;
};

/**
 * Rule
 *
 * All conditions must match (AND); the first matching rule wins. Rules as read carry `value` (a `variant` given on write is stored as its value).
 */
export type Rule = {
    description?: string;
    conditions: Array<Condition>;
    value?: unknown;
    /**
     * Instead of the value: the name of one of the flag's or config's declared `variants`, resolved to its value when written (send one of the two).
     */
    variant?: string;
};

/**
 * PrimitiveKind
 */
export type PrimitiveKind = 'flag' | 'config';

/**
 * RolloutStatus
 */
export type RolloutStatus = 'active' | 'paused' | 'completed' | 'cancelled';

/**
 * PausedReason
 *
 * `user`: a person paused it; `approval_gate`: the ramp waits for an approval; `auto_rollback`: rolled back to 0 % by an alert or a guarded step's regression; `guard`: a guarded step stopped the ramp where it was (a metric whose action is pause, a sample-ratio mismatch, or too little data at its longest hold); `convergence`: a step that holds from convergence timed out before enough SDK instances served it.
 */
export type PausedReason = 'user' | 'approval_gate' | 'auto_rollback' | 'guard' | 'convergence';

/**
 * GuardMetricAction
 *
 * What a regression of the metric does: roll the rollout back to 0 % (default), or pause it where it is.
 */
export type GuardMetricAction = 'rollback' | 'pause';

/**
 * StepGuard
 */
export type StepGuard = {
    metrics: Array<{
        key: string;
        margin: number;
        action: GuardMetricAction;
    }>;
    minUnitsPerArm: number;
    maxHoldFactor: number;
};

/**
 * HoldFromConvergence
 *
 * The step's hold starts once `instancesPercent` (50–100) of the SDK instances seen in the last 5 minutes serve the step's version or a later one (no instance seen: at once). After `timeoutSeconds` (30–86,400) without it, the rollout pauses with reason `convergence`. Auto cadence only; not on the final step.
 */
export type HoldFromConvergence = {
    instancesPercent: number;
    timeoutSeconds: number;
};

/**
 * RampStep
 */
export type RampStep = {
    percent: number;
    holdForSeconds: number;
    requiresApproval?: boolean;
    guard?: StepGuard;
    holdFromConvergence?: HoldFromConvergence;
};

/**
 * Cadence
 */
export type Cadence = 'auto' | 'manual';

/**
 * AutoRollbackInfo
 *
 * The last rollback fire that paused this rollout; the dashboard shows a banner for an hour after `firedAt`.
 */
export type AutoRollbackInfo = {
    firedAt: string;
    secretId: string;
    secretName: string;
    parsedMonitorUrl: string | null;
};

/**
 * GuardStop
 *
 * The guarded step check that last stopped this rollout (banner data; docs/guards.md).
 */
export type GuardStop = {
    at: string;
    action: GuardMetricAction;
    /**
     * `metric`: the metric regressed; `srm`: the arms' split is not the one their bands promise; `insufficient_data`: the step reached its longest hold without enough units.
     */
    cause: 'metric' | 'srm' | 'insufficient_data';
    metricKey: string | null;
    stepPercent: number;
    units: {
        treatment: number;
        control: number;
    };
    /**
     * The metric's evidence against "no worse than the margin" (it stops at 1/α).
     */
    eValue: number | null;
    /**
     * The evidence the metric had to reach: 1/α with α split across the step's metrics.
     */
    threshold: number | null;
    /**
     * A count metric's rate ratio (treatment over control), a mean metric's difference and its always-valid interval.
     */
    estimate: {
        value: number;
        lower: number | null;
        upper: number | null;
    } | null;
    /**
     * The split's always-valid p-value (cause `srm`).
     */
    srmP: number | null;
};

/**
 * RollbackConvergence
 *
 * The last rollback's convergence: recorded once 99 % of the SDK instances seen recently serve it, or when its watch of an hour ends.
 */
export type RollbackConvergence = {
    /**
     * The environment version the rollback was written at (or a later one the fleet was measured on).
     */
    version: number;
    rolledBackAt: string;
    /**
     * When 99 % of the SDK instances seen recently first served `version` or a later one; null when they did not within the watch (an hour), or no instance was seen.
     */
    convergedAt: string | null;
    /**
     * convergedAt − rolledBackAt, in milliseconds.
     */
    convergedMs: number | null;
    /**
     * SDK instances seen in the ledger's window when it was recorded.
     */
    instances: number;
    /**
     * Of those, the ones serving `version` or a later one.
     */
    serving: number;
};

/**
 * RolloutAction
 */
export type RolloutAction = 'pause' | 'resume' | 'approve' | 'advance' | 'rollback' | 'cancel';

/**
 * Rollout
 */
export type Rollout = {
    id: string;
    environmentId: string;
    primitiveKind: PrimitiveKind;
    primitiveKey: string;
    status: RolloutStatus;
    percent: number;
    pausedAtPercent: number | null;
    pausedReason: PausedReason | null;
    rolledBackFromPercent: number | null;
    seed: string;
    bucketField: string;
    newValue?: unknown;
    planKey: string | null;
    planRampStepsSnapshot: Array<RampStep> | null;
    cadence: Cadence | null;
    planBlackoutDaysOfWeek: Array<number> | null;
    planBlackoutTimezone: string | null;
    rampStepIdx: number | null;
    nextStepAt: string | null;
    /**
     * The environment version that made the rollout what it is now (its latest audited change: the step it entered, a pause, a rollback); null for a rollout last written before versions were recorded.
     */
    stepVersion: number | null;
    /**
     * While the current step holds from convergence and the fleet has not reached it: when the rollout pauses if it still has not (the hold, and `nextStepAt`, start once it has). Null otherwise.
     */
    awaitingConvergenceUntil: string | null;
    targetIdsCount: number;
    lastAutoRollback: AutoRollbackInfo | null;
    lastGuardStop: GuardStop | null;
    lastRollbackConvergence: RollbackConvergence | null;
    /**
     * The actions the rollout accepts in its state, from the state machine: `approve` (POST resume) while held at an approval gate, `resume` after a pause or a rollback, never `advance` while gated or rolled back. Empty once completed or cancelled.
     */
    allowedActions: Array<RolloutAction>;
    createdAt: string;
    updatedAt: string;
};

/**
 * FlagState
 */
export type FlagState = {
    key: string;
    envId: string;
    valueType: FlagValueType;
    value?: unknown;
    rules: Array<Rule>;
    rollout: Rollout | null;
    updatedAt: string;
};

/**
 * SetValueRequest
 */
export type SetValueRequest = {
    value?: unknown;
    /**
     * Instead of the value: the name of one of the flag's or config's declared `variants`, resolved to its value when written (send one of the two).
     */
    variant?: string;
};

/**
 * SetRulesRequest
 */
export type SetRulesRequest = {
    rules: Array<Rule>;
};

/**
 * CreateConfigRequest
 *
 * Creates the config and its state (value = defaultValue, the given rules) in every environment of the project. `clientVisible` defaults to false.
 */
export type CreateConfigRequest = {
    key: string;
    name: string;
    description?: string;
    defaultValue?: unknown;
    /**
     * Instead of the value: the name of one of the flag's or config's declared `variants`, resolved to its value when written (send one of the two).
     */
    defaultVariant?: string;
    variants?: Variants;
    schema?: ConfigSchema;
    rules?: Array<Rule>;
    clientVisible?: boolean;
    tags?: Array<string>;
    maintainer?: string;
    metadata?: FlagMetadata;
};

/**
 * Config
 */
export type Config = {
    id: string;
    projectId: string;
    key: string;
    name: string;
    description: string | null;
    defaultValue?: unknown;
    /**
     * Client keys (`pub_…`, shipped in web pages) may evaluate it.
     */
    clientVisible: boolean;
    /**
     * Free labels for finding and grouping flags (`team:checkout`, `experiment`).
     */
    tags: Array<string>;
    /**
     * Who answers for it: a person's email or a team name.
     */
    maintainer: string | null;
    metadata: FlagMetadata;
    variants: Variants;
    schema: ConfigSchema | null;
    /**
     * Set while archived: hidden from lists by default, no new rollouts, every environment serves its base value with reason `DISABLED`.
     */
    archivedAt: string | null;
    createdAt: string;
    updatedAt: string;
};

/**
 * ConfigState
 */
export type ConfigState = {
    key: string;
    envId: string;
    value?: unknown;
    rules: Array<Rule>;
    rollout: Rollout | null;
    updatedAt: string;
};

/**
 * RolloutRampPhase
 *
 * `active`: ramping; `paused`: paused by a person; `approval_gate`: held before a step that requires approval; `rolled_back`: paused at 0% by a rollback; `completed`, `cancelled`: ended (a cancelled rollout admits 0%).
 */
export type RolloutRampPhase = 'active' | 'paused' | 'approval_gate' | 'rolled_back' | 'completed' | 'cancelled';

/**
 * RolloutRampKind
 */
export type RolloutRampKind = 'done' | 'planned';

/**
 * RolloutRampSegment
 *
 * A stretch of the staircase: `percent` admitted from `from` (inclusive) to `to`.
 */
export type RolloutRampSegment = {
    from: string;
    to: string;
    /**
     * Traffic admitted over [from, to).
     */
    percent: number;
    phase: RolloutRampPhase;
    kind: RolloutRampKind;
};

/**
 * RolloutRampMarkCause
 *
 * A done mark: the recorded change (`created`, `edited`, `paused`, `resumed`, `advanced`, `approval_gate` (the scheduler stopped before a gated step), `approved`, `rolled_back` (by an alert or an operator), `completed`, `cancelled`), or `current` when the audit log does not show how the rollout reached its present state. A planned mark: `step` (a step is entered), `completed` (the step that reaches 100%), `approval_gate` (the scheduler will stop before a gated step) or `resumed` (a resume returns to the percent rolled back from).
 */
export type RolloutRampMarkCause = 'created' | 'edited' | 'paused' | 'resumed' | 'advanced' | 'approval_gate' | 'approved' | 'rolled_back' | 'completed' | 'cancelled' | 'current' | 'step';

/**
 * RolloutRampWait
 *
 * A planned mark: what it waits for; null for a done mark.
 */
export type RolloutRampWait = 'schedule' | 'approval' | 'resume' | 'advance';

/**
 * RolloutRampMark
 *
 * A point where the ramp changed (done) or is expected to change (planned). A planned change that waits for a person is placed at the earliest time it could happen.
 */
export type RolloutRampMark = {
    at: string;
    /**
     * Traffic admitted after the change.
     */
    percent: number;
    kind: RolloutRampKind;
    cause: RolloutRampMarkCause;
    /**
     * The ramp step (0-based) the rollout is at after the change; null off a plan.
     */
    step: number | null;
    waitsFor: RolloutRampWait | null;
    /**
     * A planned stop before a step that requires approval.
     */
    gate: boolean;
};

/**
 * RolloutRamp
 *
 * The rollout’s ramp on a time line, as of the request: the past from its recorded transitions (its audit rows: the actual times, percents, pauses, approval gates, rollbacks and resumes; `done`), the future projected from its plan snapshot by the scheduler’s own rules (exact holds, blackout days as local dates in the plan’s time zone, stops at approval gates; `planned`). Done segments end at the request’s time; planned ones start there.
 */
export type RolloutRamp = {
    segments: Array<RolloutRampSegment>;
    marks: Array<RolloutRampMark>;
    /**
     * The instant the ramp was computed at (the server’s clock): done segments end here, planned ones start here.
     */
    now: string;
    /**
     * The rollout’s creation: the left edge of the ramp.
     */
    start: string;
    /**
     * A little after the last planned change (or now): the right edge of the ramp.
     */
    end: string;
};

/**
 * GuardDecision
 *
 * What a check of a guarded step now would decide (the scheduler checks once a minute).
 */
export type GuardDecision = 'advance' | 'hold' | 'rollback' | 'pause';

/**
 * GuardMetricKind
 *
 * `count`: events per exposed unit (errors, crashes; compared as a rate ratio); `mean`: the mean of a value tracked with each event (latency; compared as a difference).
 */
export type GuardMetricKind = 'count' | 'mean';

/**
 * GuardMetricWorse
 *
 * Which way a change is a regression: `higher` for errors and latency, `lower` for conversions.
 */
export type GuardMetricWorse = 'higher' | 'lower';

/**
 * GuardMetricStatus
 */
export type GuardMetricStatus = {
    key: string;
    kind: GuardMetricKind;
    worse: GuardMetricWorse;
    margin: number;
    action: GuardMetricAction;
    /**
     * The evidence against "no worse than the margin" so far (1 without data).
     */
    eValue: number;
    /**
     * The evidence that stops the step: 1/α with α split across the step's metrics.
     */
    threshold: number;
    /**
     * A count metric's rate ratio (treatment over control; no interval), a mean metric's difference and its always-valid interval; null before both arms have data.
     */
    estimate: {
        value: number;
        lower: number | null;
        upper: number | null;
    } | null;
    /**
     * The evidence and the estimate at the end of each minute with samples since the step began, oldest first (at most 240 points, evenly thinned).
     */
    series: Array<{
        at: string;
        eValue: number;
        /**
         * A count metric's rate ratio (treatment over control; no interval), a mean metric's difference and its always-valid interval; null before both arms have data.
         */
        estimate: {
            value: number;
            lower: number | null;
            upper: number | null;
        } | null;
    }>;
};

/**
 * RolloutGuard
 *
 * A rollout's guard as of now (docs/guards.md): the gate's checklist and each metric's evidence over time, and the check that last stopped it.
 */
export type RolloutGuard = {
    rolloutId: string;
    /**
     * The guarded step the rollout holds at; null when it holds at none (not started, paused, unguarded step).
     */
    step: {
        index: number;
        percent: number;
        holdForSeconds: number;
        /**
         * When the step's analysis began (entering it, or the last resume).
         */
        since: string;
        heldSeconds: number;
        guard: StepGuard;
    } | null;
    decision: GuardDecision | null;
    /**
     * What a holding step still waits for.
     */
    waitingFor: Array<'hold' | 'units'>;
    checks: {
        holdPassed: boolean;
        units: {
            treatment: number;
            control: number;
            min: number;
        };
        /**
         * The always-valid p-value of the arms' split (1 when it looks as expected).
         */
        srmP: number;
        /**
         * `srmP` is above 0.001: the split is as the bands promise.
         */
        srmOk: boolean;
        metrics: Array<GuardMetricStatus>;
    } | null;
    lastStop: GuardStop | null;
};

/**
 * PutRolloutRequest
 *
 * Creates the rollout, or edits the live one. `planKey: null` detaches the plan; omitting it keeps the attachment. Omitting `newValue` (and `newVariant`) on a primitive with rules makes the rollout gate those rules.
 */
export type PutRolloutRequest = {
    percent: number;
    planKey?: string | null;
    seed?: string;
    bucketField?: string;
    newValue?: unknown;
    /**
     * Instead of `newValue`: the name of one of the flag's or config's declared `variants`, resolved to its value when written (send one of the two).
     */
    newVariant?: string;
};

/**
 * ProposalStatus
 */
export type ProposalStatus = 'pending' | 'applied' | 'cancelled' | 'expired';

/**
 * ProposalKind
 */
export type ProposalKind = 'rollout.put' | 'rollout.delete' | 'rollout.pause' | 'rollout.resume' | 'rollout.cancel' | 'rollout.advance' | 'target_ids.add' | 'target_ids.remove' | 'target_ids.replace';

/**
 * ProposalRequest
 *
 * The request the API key sent: method, path (under /api/v1), validated body, and its If-Match and X-Audit-Reason headers when present.
 */
export type ProposalRequest = {
    method: 'PUT' | 'POST' | 'DELETE';
    path: string;
    body?: unknown;
    headers?: {
        [key: string]: string;
    };
};

/**
 * Proposal
 *
 * A mutation by an approval-required API key, held until an admin applies or cancels it; pending proposals expire 7 days after `createdAt`. `baseVersion` is the environment version it was made against: applying after the environment moved is `409 version_drift`.
 */
export type Proposal = {
    id: string;
    status: ProposalStatus;
    kind: ProposalKind;
    envId: string;
    resourceType: PrimitiveKind;
    resourceKey: string;
    request: ProposalRequest;
    baseVersion: number;
    createdAt: string;
    expiresAt: string;
    createdByTokenId: string;
    appliedAt: string | null;
    appliedByUserId: string | null;
    cancelledAt: string | null;
    cancelledByUserId: string | null;
};

/**
 * TargetIdsRequest
 */
export type TargetIdsRequest = {
    targetIds: Array<string>;
};

/**
 * TargetIdsAdded
 */
export type TargetIdsAdded = {
    added: number;
    count: number;
};

/**
 * TargetIdsRemoved
 */
export type TargetIdsRemoved = {
    removed: number;
    count: number;
};

/**
 * ReplaceTargetIdsRequest
 */
export type ReplaceTargetIdsRequest = {
    targetIds: Array<string>;
};

/**
 * TargetIdsCount
 */
export type TargetIdsCount = {
    count: number;
};

/**
 * TargetIdPage
 *
 * `nextCursor` is present only when the page is full.
 */
export type TargetIdPage = {
    items: Array<string>;
    nextCursor?: string;
};

/**
 * TargetIdContains
 */
export type TargetIdContains = {
    contains: boolean;
};

/**
 * RolloutPlan
 */
export type RolloutPlan = {
    id: string;
    projectId: string;
    key: string;
    name: string;
    description?: string;
    rampSteps: Array<RampStep>;
    cadence: Cadence;
    blackoutDaysOfWeek: Array<number>;
    blackoutTimezone: string;
    createdAt: string;
    updatedAt: string;
};

/**
 * StepGuardInput
 *
 * Watches the step's metrics, the admitted contexts against the mirror band of the same size, and advances only when the hold has passed, each arm has its units and nothing regressed. Only on steps of an auto plan before the last.
 */
export type StepGuardInput = {
    metrics: Array<{
        key: string;
        /**
         * The change tolerated before it counts as a regression: relative for a count metric (0.1: 10 % more events per unit), in the value's unit for a mean metric. Default 0.
         */
        margin?: number;
        action?: GuardMetricAction;
    }>;
    /**
     * Exposed units each arm needs before the step may advance (default 1,000).
     */
    minUnitsPerArm?: number;
    /**
     * At this many times its hold without enough units the step pauses (`guard`) instead of advancing (default 3).
     */
    maxHoldFactor?: number;
};

/**
 * RampStepInput
 *
 * `holdForSeconds`: 60 to 2,592,000 s (30 days) on every step but the last, which holds 0.
 */
export type RampStepInput = {
    percent: number;
    holdForSeconds: number;
    requiresApproval?: boolean;
    guard?: StepGuardInput;
    holdFromConvergence?: HoldFromConvergence;
};

/**
 * CreateRolloutPlanRequest
 *
 * `cadence` defaults to manual, `blackoutDaysOfWeek` to [] (0 = Sunday … 6 = Saturday), `blackoutTimezone` to UTC.
 */
export type CreateRolloutPlanRequest = {
    key: string;
    name: string;
    description?: string;
    rampSteps: Array<RampStepInput>;
    cadence?: Cadence;
    blackoutDaysOfWeek?: Array<number>;
    blackoutTimezone?: string;
};

/**
 * UpdateRolloutPlanRequest
 *
 * Any plan field but the key. Live rollouts keep their snapshot.
 */
export type UpdateRolloutPlanRequest = {
    name?: string;
    description?: string;
    rampSteps?: Array<RampStepInput>;
    cadence?: Cadence;
    blackoutDaysOfWeek?: Array<number>;
    blackoutTimezone?: string;
};

/**
 * RolloutMigrationWarning
 *
 * A flag imported with per-rule rollout percentages: the first such rule (hoistedRuleIndex) became the env-scoped rollout; the others (ruleIndices) could not.
 */
export type RolloutMigrationWarning = {
    flagKey: string;
    envId: string;
    rolloutId: string;
    ruleIndices: Array<number>;
    hoistedRuleIndex: number;
};

/**
 * RulesetRollout
 *
 * `newValue` absent: the rollout gates the primitive’s rules instead of serving a value.
 */
export type RulesetRollout = {
    id: string;
    status: RolloutStatus;
    percent: number;
    seed: string;
    bucketField: string;
    newValue?: unknown;
    targetIds: Array<string>;
    /**
     * Present while the rollout holds at a guarded step (docs/guards.md): SDKs report its arms to `POST /envs/{envId}/guard-metrics`.
     */
    guard?: {
        /**
         * When the step's analysis began (entering the step, or the last resume): a new value starts the SDK's unit counts over.
         */
        since: string;
        /**
         * The SDK events the step's metrics watch.
         */
        events: Array<string>;
    };
};

/**
 * RulesetPrimitive
 */
export type RulesetPrimitive = {
    kind: PrimitiveKind;
    key: string;
    value?: unknown;
    rules: Array<Rule>;
    rollout: RulesetRollout | null;
    /**
     * Present on an archived flag or config: everyone gets `value`, reason `DISABLED`.
     */
    archived?: true;
    metadata?: FlagMetadata;
    variants?: Variants;
};

/**
 * SegmentRule
 *
 * All conditions must match (AND); a context matching any rule (OR) is in the segment. A condition may reference other segments (`in_segment`), never in a cycle.
 */
export type SegmentRule = {
    description?: string;
    conditions: Array<Condition>;
};

/**
 * RulesetSegment
 *
 * A segment used by the environment's rules, directly or through another segment.
 */
export type RulesetSegment = {
    key: string;
    rules: Array<SegmentRule>;
    included: Array<string>;
    excluded: Array<string>;
};

/**
 * Ruleset
 *
 * Everything an SDK needs to evaluate the environment locally (live rollouts only).
 */
export type Ruleset = {
    envId: string;
    version: number;
    primitives: Array<RulesetPrimitive>;
    segments?: Array<RulesetSegment>;
};

/**
 * EvaluateRequest
 *
 * Omit `keys` to evaluate every flag and config of the environment.
 */
export type EvaluateRequest = {
    context: {
        [key: string]: unknown;
    };
    keys?: Array<string>;
};

/**
 * EvaluationReason
 *
 * OpenFeature resolution reasons: `STATIC` when the flag or config has no rule and no live rollout; `TARGETING_MATCH` for a matching rule or a target ID on the rollout's allow-list; `SPLIT` when the rollout's percentage decided (admitted: the new value; not admitted: the base value); `DEFAULT` for the base value after rules that did not match; `DISABLED` for an archived flag or config serving its last value; `ERROR` when its rules (in practice, the segments they name) needed more than the evaluation's work budget (the base value is served, variant `default`).
 */
export type EvaluationReason = 'STATIC' | 'TARGETING_MATCH' | 'SPLIT' | 'DISABLED' | 'DEFAULT' | 'ERROR';

/**
 * EvaluationResult
 *
 * `branch` names the part of the definition that served the value: `default`, `rule-<n>` (from 1), `target-id`, `rollout-new` or `rollout-base`. `variant` is the name of the served value among the flag's or config's declared `variants`; when it declares none, or the value is none of them, it is the branch.
 */
export type EvaluationResult = {
    kind: PrimitiveKind;
    value?: unknown;
    reason: EvaluationReason;
    variant: string;
    branch: string;
    bucket: number | null;
    /**
     * The live rollout's percentage, null without a live rollout.
     */
    rolloutPercent: number | null;
};

/**
 * EvaluateResponse
 *
 * Keys that name no flag or config are left out of `results`.
 */
export type EvaluateResponse = {
    version: number;
    results: {
        [key: string]: EvaluationResult;
    };
};

/**
 * CreateRollbackSecretRequest
 *
 * Unique among the live secrets of the environment.
 */
export type CreateRollbackSecretRequest = {
    name: string;
};

/**
 * MintedRollbackWebhookSecret
 *
 * The raw `token` (svcrb_ + 32 characters) is returned once, here; only its SHA-256 is stored.
 */
export type MintedRollbackWebhookSecret = {
    id: string;
    name: string;
    tokenPrefix: string;
    createdAt: string;
    lastFiredAt: string | null;
    revokedAt: string | null;
    token: string;
    warning: string;
};

/**
 * RollbackWebhookSecret
 *
 * `lastFiredAt` is updated at most once a minute per secret.
 */
export type RollbackWebhookSecret = {
    id: string;
    name: string;
    tokenPrefix: string;
    createdAt: string;
    lastFiredAt: string | null;
    revokedAt: string | null;
};

/**
 * RollbackFireBody
 *
 * Optional. Alertmanager and Grafana (`alerts[0].generatorURL`), PagerDuty v3 (`event.data.html_url`) and generic (`alert_url`, legacy `link`) payloads have their alert URL recorded; any other body is accepted.
 */
export type RollbackFireBody = {
    [key: string]: unknown;
};

/**
 * RollbackFireResponse
 *
 * `currentStatus` is the status when the fire arrived; `newStatus` (omitted on a no-op) the status after it.
 */
export type RollbackFireResponse = {
    noop: boolean;
    currentStatus: RolloutStatus;
    newStatus?: RolloutStatus;
};

/**
 * RollbackFireOutcome
 */
export type RollbackFireOutcome = 'transitioned' | 'noop_already_rolled_back' | 'noop_terminal_state' | 'error_unauthorized' | 'error_not_found' | 'error_rate_limited' | 'error_invalid_request';

/**
 * RollbackFireEvent
 *
 * `payloadFingerprint` is the hex SHA-256 of the raw request body.
 */
export type RollbackFireEvent = {
    id: string;
    rolloutId: string | null;
    secretId: string | null;
    secretName: string | null;
    primitiveKind: PrimitiveKind;
    primitiveKey: string;
    outcome: RollbackFireOutcome;
    sourceIp: string;
    parsedMonitorUrl: string | null;
    payloadFingerprint: string;
    firedAt: string;
};

/**
 * RollbackFirePage
 *
 * Newest first; `nextCursor` is present only when the page is full.
 */
export type RollbackFirePage = {
    fires: Array<RollbackFireEvent>;
    nextCursor?: string;
};

/**
 * CreateApiKeyRequest
 *
 * Omitted restrictions default to unrestricted: both actions, every environment, every resource, any IP. `sdk` and `client` keys need `environments` with exactly one environment and take only the `read` action; `allowedOrigins` is for client keys.
 */
export type CreateApiKeyRequest = {
    name: string;
    kind?: ApiKeyKind;
    actions?: Array<TokenAction>;
    environments?: Array<string>;
    resources?: Array<string>;
    ipAllowlist?: Array<string>;
    /**
     * Requests a minute this key may make (its own token bucket, beside its organization's). Default 600; for a client key 30,000, the cap of all its visitors together (each client address has a bucket of its own, and the organization's client keys an aggregate of their own).
     */
    rateLimitPerMin?: number;
    ttlSeconds?: number;
    requiresApproval?: boolean;
    /**
     * Client keys only: the web origins whose pages may evaluate with this key (CORS). Omitted: the server's default (`CORS_ALLOWED_ORIGINS`).
     */
    allowedOrigins?: Array<string>;
};

/**
 * MintedApiKey
 *
 * The raw `token` is returned once, here; only its SHA-256 is stored.
 */
export type MintedApiKey = {
    id: string;
    name: string;
    kind: ApiKeyKind;
    tokenPrefix: string;
    actions: Array<TokenAction>;
    environments: Array<string> | null;
    resources: Array<string> | null;
    ipAllowlist: Array<string> | null;
    rateLimitPerMin: number;
    expiresAt: string | null;
    requiresApproval: boolean;
    allowedOrigins: Array<string> | null;
    createdAt: string;
    createdByUserId: string | null;
    lastUsedAt: string | null;
    revokedAt: string | null;
    token: string;
    warning: string;
};

/**
 * ActorType
 */
export type ActorType = 'user' | 'api_token' | 'agent_token' | 'system' | 'rollback_webhook';

/**
 * AuditAction
 *
 * `rollout.approval_gate_reached`: the scheduler stopped before a step that requires approval (the row's reason names the step); the rollout is paused until someone resumes or advances it.
 */
export type AuditAction = 'org.created' | 'project.created' | 'project.updated' | 'project.deleted' | 'environment.created' | 'environment.deleted' | 'member.added' | 'member.role_changed' | 'member.removed' | 'invitation.created' | 'invitation.revoked' | 'invitation.accepted' | 'api_token.created' | 'api_token.revoked' | 'rollback_secret.created' | 'rollback_secret.revoked' | 'rollout_plan.created' | 'rollout_plan.updated' | 'rollout_plan.deleted' | 'guard_metric.created' | 'guard_metric.deleted' | 'flag.created' | 'flag.update_value' | 'flag.update_rules' | 'flag.updated' | 'flag.archived' | 'flag.restored' | 'flag.deleted' | 'config.created' | 'config.update_value' | 'config.update_rules' | 'config.updated' | 'config.archived' | 'config.restored' | 'config.deleted' | 'segment.created' | 'segment.updated' | 'segment.deleted' | 'segment.target_ids_added' | 'segment.target_ids_removed' | 'segment.target_ids_replaced' | 'webhook.created' | 'webhook.updated' | 'webhook.deleted' | 'rollout.created' | 'rollout.updated' | 'rollout.paused' | 'rollout.resumed' | 'rollout.advanced' | 'rollout.approval_gate_reached' | 'rollout.approval_resolved' | 'rollout.cancelled' | 'rollout.completed' | 'rollout.auto_rollback' | 'rollout.rolled_back' | 'rollout.rollback_converged' | 'rollout.target_ids_added' | 'rollout.target_ids_removed' | 'rollout.target_ids_replaced' | 'proposal.created' | 'proposal.applied' | 'proposal.cancelled' | 'proposal.expired';

/**
 * AuditEventSummary
 */
export type AuditEventSummary = {
    id: string;
    createdAt: string;
    actorType: ActorType;
    actorId: string | null;
    actorEmail?: string;
    actorName?: string;
    delegatorUserId: string | null;
    approverUserId: string | null;
    resourceType: string;
    resourceKey: string | null;
    resourceId: string | null;
    envId: string | null;
    action: AuditAction;
    version: number | null;
    reason: string | null;
};

/**
 * AuditEventPage
 */
export type AuditEventPage = {
    events: Array<AuditEventSummary>;
    nextCursor: string | null;
};

/**
 * AuditEventDetail
 *
 * `diff` is an RFC 6902 JSON Patch from `previousValue` to `newValue`.
 */
export type AuditEventDetail = {
    id: string;
    createdAt: string;
    actorType: ActorType;
    actorId: string | null;
    actorEmail?: string;
    actorName?: string;
    delegatorUserId: string | null;
    approverUserId: string | null;
    resourceType: string;
    resourceKey: string | null;
    resourceId: string | null;
    envId: string | null;
    action: AuditAction;
    version: number | null;
    reason: string | null;
    previousValue?: unknown;
    newValue?: unknown;
    diff?: unknown;
};

/**
 * AppliedProposal
 *
 * The applied proposal, with `result`: the body the direct call would have answered (a Rollout, target-ID counts; absent for DELETE).
 */
export type AppliedProposal = {
    id: string;
    status: ProposalStatus;
    kind: ProposalKind;
    envId: string;
    resourceType: PrimitiveKind;
    resourceKey: string;
    request: ProposalRequest;
    baseVersion: number;
    createdAt: string;
    expiresAt: string;
    createdByTokenId: string;
    appliedAt: string | null;
    appliedByUserId: string | null;
    cancelledAt: string | null;
    cancelledByUserId: string | null;
    result?: unknown;
};

/**
 * OfrepContext
 *
 * `targetingKey` is what a rollout buckets on when the context does not carry the rollout's own bucket field (e.g. `userId`); the other attributes are what rules match.
 */
export type OfrepContext = {
    targetingKey?: string;
    [key: string]: unknown;
};

/**
 * OfrepEvaluationRequest
 */
export type OfrepEvaluationRequest = {
    context: OfrepContext;
};

/**
 * OfrepMetadata
 */
export type OfrepMetadata = {
    [key: string]: boolean | string | number;
};

/**
 * OfrepEvaluationSuccess
 *
 * `metadata` carries the flag's custom metadata and, with a live rollout, `rolloutPercent` (and `bucket` when the context was bucketed).
 */
export type OfrepEvaluationSuccess = {
    key: string;
    value?: unknown;
    reason: 'STATIC' | 'TARGETING_MATCH' | 'SPLIT' | 'DEFAULT' | 'ERROR';
    variant: string;
    metadata?: OfrepMetadata;
};

/**
 * OfrepCodeDefault
 *
 * The protocol's `codeDefaultFlag`: an archived flag or config, which the provider answers with the caller's default value (no `value`, no `variant`).
 */
export type OfrepCodeDefault = {
    key: string;
    reason: 'DISABLED';
    metadata?: OfrepMetadata;
};

/**
 * OfrepErrorCode
 */
export type OfrepErrorCode = 'PARSE_ERROR' | 'TARGETING_KEY_MISSING' | 'INVALID_CONTEXT' | 'GENERAL';

/**
 * OfrepEvaluationFailure
 */
export type OfrepEvaluationFailure = {
    key: string;
    errorCode: OfrepErrorCode;
    errorDetails?: string;
    metadata?: OfrepMetadata;
};

/**
 * OfrepFlagNotFound
 */
export type OfrepFlagNotFound = {
    key: string;
    errorCode: 'FLAG_NOT_FOUND';
    errorDetails?: string;
    metadata?: OfrepMetadata;
};

/**
 * OfrepGeneralError
 */
export type OfrepGeneralError = {
    errorDetails?: string;
};

/**
 * OfrepEventStream
 *
 * A server-sent event stream announcing changes (OFREP ADR-0008). The URL carries a short-lived ticket for this key and environment: treat it as a secret.
 */
export type OfrepEventStream = {
    type: 'sse';
    url: string;
    inactivityDelaySec?: number;
};

/**
 * OfrepBulkEvaluationSuccess
 *
 * Every flag and config the key may see, evaluated for one context. `metadata.rulesetVersion` is the environment's ruleset version.
 */
export type OfrepBulkEvaluationSuccess = {
    flags: Array<OfrepEvaluationSuccess | OfrepCodeDefault | OfrepEvaluationFailure>;
    metadata?: OfrepMetadata;
    eventStreams?: Array<OfrepEventStream>;
};

/**
 * OfrepBulkEvaluationFailure
 */
export type OfrepBulkEvaluationFailure = {
    errorCode: OfrepErrorCode;
    errorDetails?: string;
};

/**
 * CreateSegmentRequest
 */
export type CreateSegmentRequest = {
    key: string;
    name: string;
    description?: string;
    rules?: Array<SegmentRule>;
};

/**
 * Segment
 *
 * A named audience of the project. A context is in it when the referring condition's attribute is one of its included target IDs; otherwise, unless that value is one of its excluded IDs, when it matches any of its rules.
 */
export type Segment = {
    id: string;
    projectId: string;
    key: string;
    name: string;
    description: string | null;
    rules: Array<SegmentRule>;
    includedCount: number;
    excludedCount: number;
    createdAt: string;
    updatedAt: string;
};

/**
 * UpdateSegmentRequest
 *
 * Omitted fields keep their value; `rules` replaces all rules.
 */
export type UpdateSegmentRequest = {
    name?: string;
    description?: string | null;
    rules?: Array<SegmentRule>;
};

/**
 * DeleteSegmentRequest
 *
 * `confirm` must be the segment's key, typed again.
 */
export type DeleteSegmentRequest = {
    confirm?: string;
};

/**
 * SegmentReferrers
 */
export type SegmentReferrers = {
    /**
     * `flag.<key>`, `config.<key>` and `segment.<key>` that reference it, each once.
     */
    referrers: Array<string>;
};

/**
 * WebhookEventType
 *
 * `rollout.paused` covers a person's pause and an approval gate (`data.pausedReason`); `rollout.rolled_back` an alert's rollback, a guard's and the manual one; `rollout.rollback_converged` when the SDK instances seen recently serve a rollback (`data.rollbackConvergence`); `proposal.approved` is a proposal applied, `proposal.rejected` one cancelled.
 */
export type WebhookEventType = 'rollout.created' | 'rollout.advanced' | 'rollout.paused' | 'rollout.resumed' | 'rollout.completed' | 'rollout.cancelled' | 'rollout.rolled_back' | 'rollout.rollback_converged' | 'proposal.created' | 'proposal.approved' | 'proposal.rejected' | 'flag.archived' | 'flag.deleted' | 'config.archived' | 'config.deleted';

/**
 * WebhookFormat
 *
 * `standard`: the event as JSON (`{type, timestamp, data}`), signed per Standard Webhooks; `slack`: a Slack incoming-webhook message (`{text, blocks}`), also signed.
 */
export type WebhookFormat = 'standard' | 'slack';

/**
 * CreateWebhookSubscriptionRequest
 *
 * `format` defaults to `standard`, `enabled` to true.
 */
export type CreateWebhookSubscriptionRequest = {
    name: string;
    url: string;
    events: Array<WebhookEventType>;
    format?: WebhookFormat;
    enabled?: boolean;
};

/**
 * CreatedWebhookSubscription
 */
export type CreatedWebhookSubscription = {
    id: string;
    projectId: string;
    name: string;
    url: string;
    events: Array<WebhookEventType>;
    format: WebhookFormat;
    enabled: boolean;
    createdAt: string;
    updatedAt: string;
    /**
     * The signing secret (`whsec_…`, base64), shown only now. Verify `webhook-signature` with any Standard Webhooks library.
     */
    secret: string;
};

/**
 * WebhookSubscription
 */
export type WebhookSubscription = {
    id: string;
    projectId: string;
    name: string;
    url: string;
    events: Array<WebhookEventType>;
    format: WebhookFormat;
    enabled: boolean;
    createdAt: string;
    updatedAt: string;
};

/**
 * UpdateWebhookSubscriptionRequest
 */
export type UpdateWebhookSubscriptionRequest = {
    name?: string;
    url?: string;
    events?: Array<WebhookEventType>;
    format?: WebhookFormat;
    enabled?: boolean;
};

/**
 * WebhookDeliveryStatus
 *
 * `pending`: not delivered yet (first try or a retry is due at `nextAttemptAt`); `succeeded`: a 2xx answer; `failed`: every attempt failed, no more retries; `dropped`: not sent (again) because more deliveries were pending for the subscription than its cap allows (the oldest are dropped) or the subscription was disabled; `lastError` says which.
 */
export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'dropped';

/**
 * WebhookDelivery
 */
export type WebhookDelivery = {
    /**
     * The `webhook-id` header: the same on every attempt, for the receiver to deduplicate.
     */
    id: string;
    subscriptionId: string;
    eventType: string;
    payload?: unknown;
    status: WebhookDeliveryStatus;
    attempts: number;
    nextAttemptAt: string | null;
    lastAttemptAt: string | null;
    responseStatus: number | null;
    lastError: string | null;
    createdAt: string;
};

/**
 * WebhookDeliveryPage
 *
 * Newest first. `nextCursor` is present only when the page is full.
 */
export type WebhookDeliveryPage = {
    items: Array<WebhookDelivery>;
    nextCursor?: string;
};

/**
 * UsageEntry
 */
export type UsageEntry = {
    kind: PrimitiveKind;
    key: string;
    /**
     * The branch that served the evaluations, the evaluation's `branch` (`default`, `rule-<n>`, `target-id`, `rollout-new`, `rollout-base`): its `variant` when the flag declares no variants.
     */
    variant: string;
    count: number;
};

/**
 * UsageReport
 *
 * Evaluation counts an SDK made locally between `windowStart` and `windowEnd` (at most one hour apart; `windowEnd` not in the future, and in the current or the previous UTC hour of the server's clock). Counts are added to the hour `windowEnd` falls in; keys the environment does not have are skipped, variants the flag or config cannot serve are dropped, and evaluations beyond the reporter's hourly cap are not counted.
 */
export type UsageReport = {
    windowStart: string;
    windowEnd: string;
    entries: Array<UsageEntry>;
};

/**
 * UsageReportAccepted
 *
 * What a usage report counted: `accepted + skipped + dropped` is the number of entries.
 */
export type UsageReportAccepted = {
    /**
     * Entries counted (in full, or scaled down when `overLimit` is not 0).
     */
    accepted: number;
    /**
     * Entries naming a flag or config the environment does not have, or the key may not report.
     */
    skipped: number;
    /**
     * Entries whose `variant` the flag or config cannot serve in this environment (not one of `default`, `target-id`, `rollout-new`, `rollout-base`, or `rule-<n>` with n at most its number of rules): not counted.
     */
    dropped: number;
    /**
     * Evaluations of accepted entries not counted because the reporter's hourly cap was reached (per key; for a client key, per key and client address).
     */
    overLimit: number;
};

/**
 * PrimitiveEnvUsage
 */
export type PrimitiveEnvUsage = {
    envId: string;
    envKey: string;
    lastEvaluatedAt: string | null;
    total: number;
    variants: Array<{
        variant: string;
        count: number;
    }>;
    /**
     * Hours with evaluations, oldest first.
     */
    hourly: Array<{
        hour: string;
        count: number;
    }>;
};

/**
 * PrimitiveUsage
 *
 * Evaluations over the last `days` days per environment, counted by SDKs (local evaluation) and by the server (`/evaluate`, OFREP).
 */
export type PrimitiveUsage = {
    kind: PrimitiveKind;
    key: string;
    days: number;
    environments: Array<PrimitiveEnvUsage>;
};

/**
 * InsightStatus
 *
 * `new`: created within `staleAfterDays` and not evaluated yet; `not_evaluated`: no evaluation in any environment for `staleAfterDays`; `ready_to_remove`: every environment serves the same value to everyone (no rules, no live rollout) and nothing changed for `readyAfterDays`; `in_use` otherwise.
 */
export type InsightStatus = 'in_use' | 'new' | 'not_evaluated' | 'ready_to_remove';

/**
 * CodeReferences
 *
 * One repository's latest type check of a key.
 */
export type CodeReferences = {
    repository: string;
    commit: string | null;
    checkedAt: string;
    references: number;
    locations: Array<string>;
};

/**
 * PrimitiveInsight
 */
export type PrimitiveInsight = {
    kind: PrimitiveKind;
    key: string;
    name: string;
    status: InsightStatus;
    createdAt: string;
    /**
     * The last change of its value, rules or rollout in any environment (or its creation).
     */
    lastChangedAt: string;
    lastEvaluatedAt: string | null;
    /**
     * Evaluations in the last `staleAfterDays` days, all environments.
     */
    evaluations: number;
    environments: Array<{
        envId: string;
        envKey: string;
        lastEvaluatedAt: string | null;
        evaluations: number;
    }>;
    /**
     * The latest report of each repository that checked the key, newest first.
     */
    codeReferences: Array<CodeReferences>;
    /**
     * No evaluation in any environment for `staleAfterDays` (status `not_evaluated`, or `ready_to_remove` without evaluations), checked by at least one repository, and no report that checked it found a reference.
     */
    safeToRemove: boolean;
};

/**
 * CodeReferenceCheck
 */
export type CodeReferenceCheck = {
    kind: PrimitiveKind;
    key: string;
    /**
     * Uses the check found: 0 means the code compiles without the key.
     */
    references: number;
    /**
     * Where the first uses are (`path:line`).
     */
    locations: Array<string>;
};

/**
 * CodeReferenceReport
 *
 * What a type check of a code base found about keys (`gradual flags stale --report`): for each key checked, how many uses fail to compile without it.
 */
export type CodeReferenceReport = {
    /**
     * The code base checked; a new report of it replaces the last.
     */
    repository: string;
    commit?: string;
    checks: Array<CodeReferenceCheck>;
};

/**
 * CodeReferenceReportAccepted
 */
export type CodeReferenceReportAccepted = {
    repository: string;
    commit: string | null;
    checkedAt: string;
    checks: number;
};

/**
 * GuardArm
 *
 * The arm of the context's bucket at the reported percent (docs/guards.md): `treatment` the admitted band, `control` its mirror.
 */
export type GuardArm = 'treatment' | 'control';

/**
 * GuardReport
 *
 * What the contexts of each guarded rollout's arms did between `windowStart` and `windowEnd` (at most 5 minutes apart, ending within the last 10 minutes of the server's clock), pre-aggregated in the process: no context and no single event leaves it. Counted in the minute `windowEnd` falls in.
 */
export type GuardReport = {
    windowStart: string;
    windowEnd: string;
    exposures: Array<{
        kind: 'flag' | 'config';
        key: string;
        /**
         * The rollout's percent the SDK evaluated with: samples count only for the step at that percent.
         */
        percent: number;
        arm: GuardArm;
        /**
         * Distinct contexts exposed in the window (the SDK's exposure de-duplication).
         */
        units: number;
    }>;
    events: Array<{
        kind: 'flag' | 'config';
        key: string;
        /**
         * The rollout's percent the SDK evaluated with: samples count only for the step at that percent.
         */
        percent: number;
        arm: GuardArm;
        event: string;
        count: number;
        /**
         * Σ of the events' values (0 for events without one).
         */
        sum: number;
        /**
         * Σ of their squares.
         */
        sumSquares: number;
    }>;
};

/**
 * GuardReportAccepted
 *
 * `accepted + skipped + dropped` is the number of entries, exposures and events together.
 */
export type GuardReportAccepted = {
    /**
     * Entries counted.
     */
    accepted: number;
    /**
     * Entries naming a flag or config the environment does not have, one the key may not see, or one without a live rollout.
     */
    skipped: number;
    /**
     * Entries for a rollout that is not holding at a guarded step of the reported percent (a step changed since the SDK evaluated): not counted.
     */
    dropped: number;
};

/**
 * PrometheusSource
 *
 * Where the server reads a metric instead of SDK events: counters in the Prometheus at PROMETHEUS_URL, labelled by arm, read once a minute (docs/guards.md). Units per arm still come from SDK exposures.
 */
export type PrometheusSource = {
    /**
     * A counter selector: per arm and minute, `sum(increase(<events>[1m]))` is a count metric's events, or a mean metric's number of observations. `{{arm}}` becomes `treatment` or `control`, `{{key}}` the flag or config key.
     */
    events: string;
    /**
     * A mean metric's counter of the values' sum (a summary or histogram's `_sum`). Only for mean metrics, which need it.
     */
    sum?: string;
    /**
     * A mean metric's counter of the values' squares' sum (their spread). Only for mean metrics, which need it.
     */
    sumSquares?: string;
};

/**
 * GuardMetric
 *
 * A metric that guarded ramp steps watch (docs/guards.md).
 */
export type GuardMetric = {
    key: string;
    name: string;
    description: string;
    kind: GuardMetricKind;
    worse: GuardMetricWorse;
    /**
     * The SDK event (`track(event, …)`) the metric counts or averages; not used when `prometheus` is set.
     */
    event: string;
    prometheus: PrometheusSource | null;
    createdAt: string;
    updatedAt: string;
};

/**
 * CreateGuardMetricRequest
 */
export type CreateGuardMetricRequest = {
    key: string;
    name: string;
    description?: string;
    kind: GuardMetricKind;
    worse: GuardMetricWorse;
    /**
     * Defaults to the key.
     */
    event?: string;
    prometheus?: PrometheusSource;
};

/**
 * RulesetAck
 *
 * An SDK instance saying which ruleset version it serves: sent when it applies a new one and about every 30 s (docs/convergence.md).
 */
export type RulesetAck = {
    /**
     * A random id the SDK instance draws once at start (a process, a pod).
     */
    instanceId: string;
    /**
     * The SDK and its version (`@gradual/sdk` 0.1.0).
     */
    sdk: {
        name: string;
        version: string;
    };
    /**
     * The application the instance belongs to (the SDK's `serviceName`).
     */
    service?: string;
    /**
     * The ruleset version the instance serves now: applied, not merely received.
     */
    version: number;
    /**
     * How the instance keeps its ruleset current.
     */
    mode: 'stream' | 'poll';
};

/**
 * SdkInstanceSeen
 */
export type SdkInstanceSeen = {
    instanceId: string;
    sdk: {
        name: string;
        version: string;
    };
    service: string | null;
    mode: 'stream' | 'poll';
    /**
     * The ruleset version it serves.
     */
    version: number;
    lastSeen: string;
};

/**
 * Convergence
 *
 * Which ruleset version the environment's SDK instances serve (docs/convergence.md).
 */
export type Convergence = {
    envId: string;
    /**
     * The environment's current ruleset version.
     */
    version: number;
    at: string;
    windowSeconds: number;
    /**
     * SDK instances that acknowledged within the window.
     */
    instances: number;
    /**
     * Of those, how many serve the current version.
     */
    current: number;
    /**
     * `current / instances` (null without instances).
     */
    currentShare: number | null;
    /**
     * The latest versions instances acknowledged, newest first (at most 5).
     */
    versions: Array<{
        version: number;
        /**
         * When the write that made this version committed (null when unknown).
         */
        committedAt: string | null;
        /**
         * Instances that acknowledged this version.
         */
        instances: number;
        /**
         * Median time from the commit to an instance's first acknowledgement of it.
         */
        p50Ms: number | null;
        p99Ms: number | null;
    }>;
    /**
     * Instances seen within the window on an older version, oldest version first (at most 50).
     */
    laggards: Array<SdkInstanceSeen>;
    bySdk: Array<{
        name: string;
        version: string;
        instances: number;
        current: number;
    }>;
};

/**
 * ManifestFlagType
 *
 * The OpenFeature CLI's flag types: a boolean or string flag as such; a number flag is `integer` when its default value and every variant are whole numbers, else `float`; a config is `object`.
 */
export type ManifestFlagType = 'boolean' | 'string' | 'integer' | 'float' | 'object';

/**
 * ManifestGradualExtension
 *
 * What Gradual knows beyond the OpenFeature manifest: the flag's kind and name, its declared variants (`gradual types` types a flag with variants as the union of their values), tags, maintainer, client visibility and a config's JSON Schema (its type in `gradual types`).
 */
export type ManifestGradualExtension = {
    kind: PrimitiveKind;
    name: string;
    valueType?: FlagValueType;
    variants: Variants;
    tags: Array<string>;
    maintainer: string | null;
    clientVisible: boolean;
    schema?: ConfigSchema;
};

/**
 * ManifestFlag
 */
export type ManifestFlag = {
    flagType: ManifestFlagType;
    defaultValue?: unknown;
    description?: string;
    'x-gradual': ManifestGradualExtension;
};

/**
 * OpenFeatureManifest
 *
 * The project's flags as an OpenFeature CLI flag manifest (docs/typed-flags.md): `flagType`, `defaultValue` and `description` as the CLI reads them, and Gradual's own fields under `x-gradual`.
 */
export type OpenFeatureManifest = {
    $schema: string;
    /**
     * By key: the project's live flags and configs the caller may read (a key a flag and a config share is the config's, as evaluation by key answers it).
     */
    flags: {
        [key: string]: ManifestFlag;
    };
};

/**
 * SyncFlagType
 *
 * As in the manifest: `integer` and `float` are number flags, `object` a config.
 */
export type SyncFlagType = 'boolean' | 'string' | 'integer' | 'float' | 'object';

/**
 * SyncFlag
 */
export type SyncFlag = {
    key: string;
    name: string;
    type: SyncFlagType;
    description?: string | null;
    defaultValue?: unknown;
};

/**
 * SyncManifest
 *
 * The project's live flags and configs the caller may read, as the OpenFeature CLI's `pull` reads them.
 */
export type SyncManifest = {
    flags: Array<SyncFlag>;
};

/**
 * SyncCreateFlagRequest
 *
 * A new flag (`boolean`, `string`, `integer`, `float`: a number flag) or config (`object`), as the OpenFeature CLI's `push` sends it; `name` defaults to the key.
 */
export type SyncCreateFlagRequest = {
    key: string;
    type: SyncFlagType;
    name?: string;
    description?: string | null;
    defaultValue?: unknown;
};

/**
 * SyncFlagResponse
 */
export type SyncFlagResponse = {
    flag: SyncFlag;
    updatedAt: string;
};

/**
 * SyncUpdateFlagRequest
 *
 * The name and description change; the type and default value are fixed at creation (`409 definition_fixed` when they differ; `integer` and `float` are the same number type). `key` must be the path's.
 */
export type SyncUpdateFlagRequest = {
    key: string;
    type: SyncFlagType;
    name?: string;
    description?: string | null;
    defaultValue?: unknown;
};

/**
 * LiveChange
 */
export type LiveChange = {
    resourceType: string;
    resourceKey: string | null;
    action: string;
};

/**
 * LiveChangeEvent
 *
 * The data of a `change` event of `GET /envs/{envId}/events` and `GET /orgs/{slug}/events`: a committed write in an environment, the version it produced, and the audited changes in it the caller may read.
 */
export type LiveChangeEvent = {
    envId: string;
    version: number;
    changes: Array<LiveChange>;
};

/**
 * LiveOrgChangeEvent
 *
 * The data of an `org-change` event of `GET /orgs/{slug}/events`: the audited changes of a committed write that move no environment’s version, of one project and environment. With `envId` null, changes outside any environment (definitions of flags and configs, segments, plans, webhook subscriptions, projects, members, API keys); `projectId` is null for organization-level rows. With `envId` set, the rows of that environment that leave its version as it is (an environment created or deleted, rollback secrets minted or revoked, proposals made, cancelled or expired); `projectId` is the environment’s project. A rollback fire that moved no rollout (refused, or the rollout already rolled back or ended) comes the same way as `{resourceType: 'rollout', resourceKey: <flag or config key>, action: 'rollback.fired'}`: it is in the environment’s fire history, not in the audit log.
 */
export type LiveOrgChangeEvent = {
    projectId: string | null;
    envId: string | null;
    changes: Array<LiveChange>;
};

export type RequestMagicLinkData = {
    /**
     * Request body
     */
    body: MagicLinkRequest;
    path?: never;
    query?: never;
    url: '/api/v1/auth/magic-link';
};

export type RequestMagicLinkErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
};

export type RequestMagicLinkError = RequestMagicLinkErrors[keyof RequestMagicLinkErrors];

export type RequestMagicLinkResponses = {
    /**
     * OK
     */
    200: MailSent;
};

export type RequestMagicLinkResponse = RequestMagicLinkResponses[keyof RequestMagicLinkResponses];

export type RedeemMagicLinkData = {
    body?: never;
    path?: never;
    query?: {
        /**
         * The token from the emailed link.
         */
        t?: string;
    };
    url: '/api/v1/auth/link';
};

export type RedeemMagicLinkErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Unexpected error
     */
    default: ErrorEnvelope;
};

export type RedeemMagicLinkError = RedeemMagicLinkErrors[keyof RedeemMagicLinkErrors];

export type RedeemMagicLinkResponses = {
    /**
     * Unexpected error
     */
    default: ErrorEnvelope;
};

export type RedeemMagicLinkResponse = RedeemMagicLinkResponses[keyof RedeemMagicLinkResponses];

export type SignupData = {
    /**
     * Request body
     */
    body: SignupRequest;
    path?: never;
    query?: never;
    url: '/api/v1/auth/signup';
};

export type SignupErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
};

export type SignupError = SignupErrors[keyof SignupErrors];

export type SignupResponses = {
    /**
     * OK
     */
    200: MailSent;
};

export type SignupResponse = SignupResponses[keyof SignupResponses];

export type GetInstallStateData = {
    body?: never;
    path?: never;
    query?: never;
    url: '/api/v1/auth/install-state';
};

export type GetInstallStateErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
};

export type GetInstallStateError = GetInstallStateErrors[keyof GetInstallStateErrors];

export type GetInstallStateResponses = {
    /**
     * OK
     */
    200: InstallState;
};

export type GetInstallStateResponse = GetInstallStateResponses[keyof GetInstallStateResponses];

export type GetClaimStateData = {
    body?: never;
    path?: never;
    query?: never;
    url: '/api/v1/auth/install-claim';
};

export type GetClaimStateErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
};

export type GetClaimStateError = GetClaimStateErrors[keyof GetClaimStateErrors];

export type GetClaimStateResponses = {
    /**
     * OK
     */
    200: ClaimState;
};

export type GetClaimStateResponse = GetClaimStateResponses[keyof GetClaimStateResponses];

export type ClaimInstallData = {
    /**
     * Request body
     */
    body: InstallClaimRequest;
    path?: never;
    query?: never;
    url: '/api/v1/auth/install-claim';
};

export type ClaimInstallErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
};

export type ClaimInstallError = ClaimInstallErrors[keyof ClaimInstallErrors];

export type ClaimInstallResponses = {
    /**
     * OK
     */
    200: Session;
};

export type ClaimInstallResponse = ClaimInstallResponses[keyof ClaimInstallResponses];

export type GetSessionData = {
    body?: never;
    path?: never;
    query?: never;
    url: '/api/v1/auth/me';
};

export type GetSessionErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type GetSessionError = GetSessionErrors[keyof GetSessionErrors];

export type GetSessionResponses = {
    /**
     * OK
     */
    200: Session;
};

export type GetSessionResponse = GetSessionResponses[keyof GetSessionResponses];

export type WhoamiData = {
    body?: never;
    path?: never;
    query?: never;
    url: '/api/v1/auth/whoami';
};

export type WhoamiErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type WhoamiError = WhoamiErrors[keyof WhoamiErrors];

export type WhoamiResponses = {
    /**
     * OK
     */
    200: Whoami;
};

export type WhoamiResponse = WhoamiResponses[keyof WhoamiResponses];

export type LogoutData = {
    body?: never;
    path?: never;
    query?: never;
    url: '/api/v1/auth/logout';
};

export type LogoutErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
};

export type LogoutError = LogoutErrors[keyof LogoutErrors];

export type LogoutResponses = {
    /**
     * No content
     */
    204: void;
};

export type LogoutResponse = LogoutResponses[keyof LogoutResponses];

export type CreateOrgData = {
    /**
     * Request body
     */
    body: CreateOrgRequest;
    headers?: {
        'x-audit-reason'?: string;
    };
    path?: never;
    query?: never;
    url: '/api/v1/orgs';
};

export type CreateOrgErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type CreateOrgError = CreateOrgErrors[keyof CreateOrgErrors];

export type CreateOrgResponses = {
    /**
     * Created
     */
    201: Org;
};

export type CreateOrgResponse = CreateOrgResponses[keyof CreateOrgResponses];

export type DeleteOrgData = {
    /**
     * Request body
     */
    body?: DeleteOrgRequest;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The slug of the resource.
         */
        slug: string;
    };
    query?: never;
    url: '/api/v1/orgs/{slug}';
};

export type DeleteOrgErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type DeleteOrgError = DeleteOrgErrors[keyof DeleteOrgErrors];

export type DeleteOrgResponses = {
    /**
     * No content
     */
    204: void;
};

export type DeleteOrgResponse = DeleteOrgResponses[keyof DeleteOrgResponses];

export type GetOrgData = {
    body?: never;
    path: {
        /**
         * The slug of the resource.
         */
        slug: string;
    };
    query?: never;
    url: '/api/v1/orgs/{slug}';
};

export type GetOrgErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type GetOrgError = GetOrgErrors[keyof GetOrgErrors];

export type GetOrgResponses = {
    /**
     * OK
     */
    200: Org;
};

export type GetOrgResponse = GetOrgResponses[keyof GetOrgResponses];

export type ListMembersData = {
    body?: never;
    path: {
        /**
         * The slug of the resource.
         */
        slug: string;
    };
    query?: never;
    url: '/api/v1/orgs/{slug}/members';
};

export type ListMembersErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type ListMembersError = ListMembersErrors[keyof ListMembersErrors];

export type ListMembersResponses = {
    /**
     * OK
     */
    200: Array<Member>;
};

export type ListMembersResponse = ListMembersResponses[keyof ListMembersResponses];

export type RemoveMemberData = {
    body?: never;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The slug of the resource.
         */
        slug: string;
        /**
         * The userId of the resource.
         */
        userId: string;
    };
    query?: never;
    url: '/api/v1/orgs/{slug}/members/{userId}';
};

export type RemoveMemberErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type RemoveMemberError = RemoveMemberErrors[keyof RemoveMemberErrors];

export type RemoveMemberResponses = {
    /**
     * No content
     */
    204: void;
};

export type RemoveMemberResponse = RemoveMemberResponses[keyof RemoveMemberResponses];

export type UpdateMemberData = {
    /**
     * Request body
     */
    body: UpdateMemberRequest;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The slug of the resource.
         */
        slug: string;
        /**
         * The userId of the resource.
         */
        userId: string;
    };
    query?: never;
    url: '/api/v1/orgs/{slug}/members/{userId}';
};

export type UpdateMemberErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type UpdateMemberError = UpdateMemberErrors[keyof UpdateMemberErrors];

export type UpdateMemberResponses = {
    /**
     * OK
     */
    200: Member;
};

export type UpdateMemberResponse = UpdateMemberResponses[keyof UpdateMemberResponses];

export type ListInvitationsData = {
    body?: never;
    path: {
        /**
         * The slug of the resource.
         */
        slug: string;
    };
    query?: never;
    url: '/api/v1/orgs/{slug}/invitations';
};

export type ListInvitationsErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type ListInvitationsError = ListInvitationsErrors[keyof ListInvitationsErrors];

export type ListInvitationsResponses = {
    /**
     * OK
     */
    200: Array<Invitation>;
};

export type ListInvitationsResponse = ListInvitationsResponses[keyof ListInvitationsResponses];

export type CreateInvitationData = {
    /**
     * Request body
     */
    body: CreateInvitationRequest;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The slug of the resource.
         */
        slug: string;
    };
    query?: never;
    url: '/api/v1/orgs/{slug}/invitations';
};

export type CreateInvitationErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * Gone
     */
    410: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type CreateInvitationError = CreateInvitationErrors[keyof CreateInvitationErrors];

export type CreateInvitationResponses = {
    /**
     * Created
     */
    201: Invitation;
};

export type CreateInvitationResponse = CreateInvitationResponses[keyof CreateInvitationResponses];

export type RevokeInvitationData = {
    body?: never;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The slug of the resource.
         */
        slug: string;
        /**
         * The id of the resource.
         */
        id: string;
    };
    query?: never;
    url: '/api/v1/orgs/{slug}/invitations/{id}';
};

export type RevokeInvitationErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Gone
     */
    410: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type RevokeInvitationError = RevokeInvitationErrors[keyof RevokeInvitationErrors];

export type RevokeInvitationResponses = {
    /**
     * No content
     */
    204: void;
};

export type RevokeInvitationResponse = RevokeInvitationResponses[keyof RevokeInvitationResponses];

export type GetInvitationData = {
    body?: never;
    path: {
        /**
         * The token of the resource.
         */
        token: string;
    };
    query?: never;
    url: '/api/v1/invitations/{token}';
};

export type GetInvitationErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Gone
     */
    410: ErrorEnvelope;
};

export type GetInvitationError = GetInvitationErrors[keyof GetInvitationErrors];

export type GetInvitationResponses = {
    /**
     * OK
     */
    200: InvitationPreview;
};

export type GetInvitationResponse = GetInvitationResponses[keyof GetInvitationResponses];

export type AcceptInvitationData = {
    /**
     * Request body
     */
    body: AcceptInvitationRequest;
    path: {
        /**
         * The token of the resource.
         */
        token: string;
    };
    query?: never;
    url: '/api/v1/invitations/{token}/accept';
};

export type AcceptInvitationErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * Gone
     */
    410: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
};

export type AcceptInvitationError = AcceptInvitationErrors[keyof AcceptInvitationErrors];

export type AcceptInvitationResponses = {
    /**
     * OK
     */
    200: Session;
};

export type AcceptInvitationResponse = AcceptInvitationResponses[keyof AcceptInvitationResponses];

export type ListProjectsData = {
    body?: never;
    path: {
        /**
         * The slug of the resource.
         */
        slug: string;
    };
    query?: never;
    url: '/api/v1/orgs/{slug}/projects';
};

export type ListProjectsErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type ListProjectsError = ListProjectsErrors[keyof ListProjectsErrors];

export type ListProjectsResponses = {
    /**
     * OK
     */
    200: Array<Project>;
};

export type ListProjectsResponse = ListProjectsResponses[keyof ListProjectsResponses];

export type CreateProjectData = {
    /**
     * Request body
     */
    body: CreateProjectRequest;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The slug of the resource.
         */
        slug: string;
    };
    query?: never;
    url: '/api/v1/orgs/{slug}/projects';
};

export type CreateProjectErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type CreateProjectError = CreateProjectErrors[keyof CreateProjectErrors];

export type CreateProjectResponses = {
    /**
     * Created
     */
    201: Project;
};

export type CreateProjectResponse = CreateProjectResponses[keyof CreateProjectResponses];

export type DeleteProjectData = {
    /**
     * Request body
     */
    body?: DeleteProjectRequest;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The id of the resource.
         */
        id: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}';
};

export type DeleteProjectErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type DeleteProjectError = DeleteProjectErrors[keyof DeleteProjectErrors];

export type DeleteProjectResponses = {
    /**
     * No content
     */
    204: void;
};

export type DeleteProjectResponse = DeleteProjectResponses[keyof DeleteProjectResponses];

export type GetProjectData = {
    body?: never;
    path: {
        /**
         * The id of the resource.
         */
        id: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}';
};

export type GetProjectErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type GetProjectError = GetProjectErrors[keyof GetProjectErrors];

export type GetProjectResponses = {
    /**
     * OK
     */
    200: Project;
};

export type GetProjectResponse = GetProjectResponses[keyof GetProjectResponses];

export type UpdateProjectData = {
    /**
     * Request body
     */
    body: UpdateProjectRequest;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The id of the resource.
         */
        id: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}';
};

export type UpdateProjectErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type UpdateProjectError = UpdateProjectErrors[keyof UpdateProjectErrors];

export type UpdateProjectResponses = {
    /**
     * OK
     */
    200: Project;
};

export type UpdateProjectResponse = UpdateProjectResponses[keyof UpdateProjectResponses];

export type ListEnvironmentsData = {
    body?: never;
    path: {
        /**
         * The id of the resource.
         */
        id: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/environments';
};

export type ListEnvironmentsErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type ListEnvironmentsError = ListEnvironmentsErrors[keyof ListEnvironmentsErrors];

export type ListEnvironmentsResponses = {
    /**
     * OK
     */
    200: Array<Environment>;
};

export type ListEnvironmentsResponse = ListEnvironmentsResponses[keyof ListEnvironmentsResponses];

export type CreateEnvironmentData = {
    /**
     * Request body
     */
    body: CreateEnvironmentRequest;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The id of the resource.
         */
        id: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/environments';
};

export type CreateEnvironmentErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type CreateEnvironmentError = CreateEnvironmentErrors[keyof CreateEnvironmentErrors];

export type CreateEnvironmentResponses = {
    /**
     * Created
     */
    201: Environment;
};

export type CreateEnvironmentResponse = CreateEnvironmentResponses[keyof CreateEnvironmentResponses];

export type DeleteEnvironmentData = {
    /**
     * Request body
     */
    body?: DeleteEnvironmentRequest;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}';
};

export type DeleteEnvironmentErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type DeleteEnvironmentError = DeleteEnvironmentErrors[keyof DeleteEnvironmentErrors];

export type DeleteEnvironmentResponses = {
    /**
     * No content
     */
    204: void;
};

export type DeleteEnvironmentResponse = DeleteEnvironmentResponses[keyof DeleteEnvironmentResponses];

export type GetEnvironmentData = {
    body?: never;
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}';
};

export type GetEnvironmentErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type GetEnvironmentError = GetEnvironmentErrors[keyof GetEnvironmentErrors];

export type GetEnvironmentResponses = {
    /**
     * OK
     */
    200: Environment;
};

export type GetEnvironmentResponse = GetEnvironmentResponses[keyof GetEnvironmentResponses];

export type ListFlagsData = {
    body?: never;
    path: {
        /**
         * The id of the resource.
         */
        id: string;
    };
    query?: {
        /**
         * `exclude` (default): live definitions only; `include`: all; `only`: archived ones.
         */
        archived?: 'exclude' | 'include' | 'only';
        /**
         * Only definitions carrying this tag.
         */
        tag?: string;
    };
    url: '/api/v1/projects/{id}/flags';
};

export type ListFlagsErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type ListFlagsError = ListFlagsErrors[keyof ListFlagsErrors];

export type ListFlagsResponses = {
    /**
     * OK
     */
    200: Array<Flag>;
};

export type ListFlagsResponse = ListFlagsResponses[keyof ListFlagsResponses];

export type CreateFlagData = {
    /**
     * Request body
     */
    body: CreateFlagRequest;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The id of the resource.
         */
        id: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/flags';
};

export type CreateFlagErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type CreateFlagError = CreateFlagErrors[keyof CreateFlagErrors];

export type CreateFlagResponses = {
    /**
     * Created
     */
    201: Flag;
};

export type CreateFlagResponse = CreateFlagResponses[keyof CreateFlagResponses];

export type DeleteFlagData = {
    /**
     * Request body
     */
    body?: DeletePrimitiveRequest;
    headers?: {
        'x-audit-reason'?: string;
        'if-match'?: string;
    };
    path: {
        /**
         * The id of the resource.
         */
        id: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/flags/{key}';
};

export type DeleteFlagErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * If-Match precondition failed
     */
    412: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type DeleteFlagError = DeleteFlagErrors[keyof DeleteFlagErrors];

export type DeleteFlagResponses = {
    /**
     * No content
     */
    204: void;
};

export type DeleteFlagResponse = DeleteFlagResponses[keyof DeleteFlagResponses];

export type GetFlagData = {
    body?: never;
    headers?: {
        'if-none-match'?: string;
    };
    path: {
        /**
         * The id of the resource.
         */
        id: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/flags/{key}';
};

export type GetFlagErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type GetFlagError = GetFlagErrors[keyof GetFlagErrors];

export type GetFlagResponses = {
    /**
     * OK
     */
    200: Flag;
};

export type GetFlagResponse = GetFlagResponses[keyof GetFlagResponses];

export type UpdateFlagData = {
    /**
     * Request body
     */
    body: UpdatePrimitiveRequest;
    headers?: {
        'x-audit-reason'?: string;
        'if-match'?: string;
    };
    path: {
        /**
         * The id of the resource.
         */
        id: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/flags/{key}';
};

export type UpdateFlagErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * If-Match precondition failed
     */
    412: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type UpdateFlagError = UpdateFlagErrors[keyof UpdateFlagErrors];

export type UpdateFlagResponses = {
    /**
     * OK
     */
    200: Flag;
};

export type UpdateFlagResponse = UpdateFlagResponses[keyof UpdateFlagResponses];

export type ArchiveFlagData = {
    body?: never;
    headers?: {
        'x-audit-reason'?: string;
        'if-match'?: string;
    };
    path: {
        /**
         * The id of the resource.
         */
        id: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/flags/{key}/archive';
};

export type ArchiveFlagErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * If-Match precondition failed
     */
    412: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type ArchiveFlagError = ArchiveFlagErrors[keyof ArchiveFlagErrors];

export type ArchiveFlagResponses = {
    /**
     * OK
     */
    200: Flag;
};

export type ArchiveFlagResponse = ArchiveFlagResponses[keyof ArchiveFlagResponses];

export type RestoreFlagData = {
    body?: never;
    headers?: {
        'x-audit-reason'?: string;
        'if-match'?: string;
    };
    path: {
        /**
         * The id of the resource.
         */
        id: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/flags/{key}/restore';
};

export type RestoreFlagErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * If-Match precondition failed
     */
    412: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type RestoreFlagError = RestoreFlagErrors[keyof RestoreFlagErrors];

export type RestoreFlagResponses = {
    /**
     * OK
     */
    200: Flag;
};

export type RestoreFlagResponse = RestoreFlagResponses[keyof RestoreFlagResponses];

export type ListFlagStatesData = {
    body?: never;
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/flags';
};

export type ListFlagStatesErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type ListFlagStatesError = ListFlagStatesErrors[keyof ListFlagStatesErrors];

export type ListFlagStatesResponses = {
    /**
     * OK
     */
    200: Array<FlagState>;
};

export type ListFlagStatesResponse = ListFlagStatesResponses[keyof ListFlagStatesResponses];

export type GetFlagStateData = {
    body?: never;
    headers?: {
        'if-none-match'?: string;
    };
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/flags/{key}';
};

export type GetFlagStateErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type GetFlagStateError = GetFlagStateErrors[keyof GetFlagStateErrors];

export type GetFlagStateResponses = {
    /**
     * OK
     */
    200: FlagState;
};

export type GetFlagStateResponse = GetFlagStateResponses[keyof GetFlagStateResponses];

export type SetFlagValueData = {
    /**
     * Request body
     */
    body: SetValueRequest;
    headers?: {
        'x-audit-reason'?: string;
        'if-match'?: string;
    };
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/flags/{key}/value';
};

export type SetFlagValueErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * If-Match precondition failed
     */
    412: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type SetFlagValueError = SetFlagValueErrors[keyof SetFlagValueErrors];

export type SetFlagValueResponses = {
    /**
     * OK
     */
    200: FlagState;
};

export type SetFlagValueResponse = SetFlagValueResponses[keyof SetFlagValueResponses];

export type SetFlagRulesData = {
    /**
     * Request body
     */
    body: SetRulesRequest;
    headers?: {
        'x-audit-reason'?: string;
        'if-match'?: string;
    };
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/flags/{key}/rules';
};

export type SetFlagRulesErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * If-Match precondition failed
     */
    412: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type SetFlagRulesError = SetFlagRulesErrors[keyof SetFlagRulesErrors];

export type SetFlagRulesResponses = {
    /**
     * OK
     */
    200: FlagState;
};

export type SetFlagRulesResponse = SetFlagRulesResponses[keyof SetFlagRulesResponses];

export type ListConfigsData = {
    body?: never;
    path: {
        /**
         * The id of the resource.
         */
        id: string;
    };
    query?: {
        /**
         * `exclude` (default): live definitions only; `include`: all; `only`: archived ones.
         */
        archived?: 'exclude' | 'include' | 'only';
        /**
         * Only definitions carrying this tag.
         */
        tag?: string;
    };
    url: '/api/v1/projects/{id}/configs';
};

export type ListConfigsErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type ListConfigsError = ListConfigsErrors[keyof ListConfigsErrors];

export type ListConfigsResponses = {
    /**
     * OK
     */
    200: Array<Config>;
};

export type ListConfigsResponse = ListConfigsResponses[keyof ListConfigsResponses];

export type CreateConfigData = {
    /**
     * Request body
     */
    body: CreateConfigRequest;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The id of the resource.
         */
        id: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/configs';
};

export type CreateConfigErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type CreateConfigError = CreateConfigErrors[keyof CreateConfigErrors];

export type CreateConfigResponses = {
    /**
     * Created
     */
    201: Config;
};

export type CreateConfigResponse = CreateConfigResponses[keyof CreateConfigResponses];

export type DeleteConfigData = {
    /**
     * Request body
     */
    body?: DeletePrimitiveRequest;
    headers?: {
        'x-audit-reason'?: string;
        'if-match'?: string;
    };
    path: {
        /**
         * The id of the resource.
         */
        id: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/configs/{key}';
};

export type DeleteConfigErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * If-Match precondition failed
     */
    412: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type DeleteConfigError = DeleteConfigErrors[keyof DeleteConfigErrors];

export type DeleteConfigResponses = {
    /**
     * No content
     */
    204: void;
};

export type DeleteConfigResponse = DeleteConfigResponses[keyof DeleteConfigResponses];

export type GetConfigData = {
    body?: never;
    headers?: {
        'if-none-match'?: string;
    };
    path: {
        /**
         * The id of the resource.
         */
        id: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/configs/{key}';
};

export type GetConfigErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type GetConfigError = GetConfigErrors[keyof GetConfigErrors];

export type GetConfigResponses = {
    /**
     * OK
     */
    200: Config;
};

export type GetConfigResponse = GetConfigResponses[keyof GetConfigResponses];

export type UpdateConfigData = {
    /**
     * Request body
     */
    body: UpdatePrimitiveRequest;
    headers?: {
        'x-audit-reason'?: string;
        'if-match'?: string;
    };
    path: {
        /**
         * The id of the resource.
         */
        id: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/configs/{key}';
};

export type UpdateConfigErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * If-Match precondition failed
     */
    412: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type UpdateConfigError = UpdateConfigErrors[keyof UpdateConfigErrors];

export type UpdateConfigResponses = {
    /**
     * OK
     */
    200: Config;
};

export type UpdateConfigResponse = UpdateConfigResponses[keyof UpdateConfigResponses];

export type ArchiveConfigData = {
    body?: never;
    headers?: {
        'x-audit-reason'?: string;
        'if-match'?: string;
    };
    path: {
        /**
         * The id of the resource.
         */
        id: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/configs/{key}/archive';
};

export type ArchiveConfigErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * If-Match precondition failed
     */
    412: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type ArchiveConfigError = ArchiveConfigErrors[keyof ArchiveConfigErrors];

export type ArchiveConfigResponses = {
    /**
     * OK
     */
    200: Config;
};

export type ArchiveConfigResponse = ArchiveConfigResponses[keyof ArchiveConfigResponses];

export type RestoreConfigData = {
    body?: never;
    headers?: {
        'x-audit-reason'?: string;
        'if-match'?: string;
    };
    path: {
        /**
         * The id of the resource.
         */
        id: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/configs/{key}/restore';
};

export type RestoreConfigErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * If-Match precondition failed
     */
    412: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type RestoreConfigError = RestoreConfigErrors[keyof RestoreConfigErrors];

export type RestoreConfigResponses = {
    /**
     * OK
     */
    200: Config;
};

export type RestoreConfigResponse = RestoreConfigResponses[keyof RestoreConfigResponses];

export type ListConfigStatesData = {
    body?: never;
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/configs';
};

export type ListConfigStatesErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type ListConfigStatesError = ListConfigStatesErrors[keyof ListConfigStatesErrors];

export type ListConfigStatesResponses = {
    /**
     * OK
     */
    200: Array<ConfigState>;
};

export type ListConfigStatesResponse = ListConfigStatesResponses[keyof ListConfigStatesResponses];

export type GetConfigStateData = {
    body?: never;
    headers?: {
        'if-none-match'?: string;
    };
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/configs/{key}';
};

export type GetConfigStateErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type GetConfigStateError = GetConfigStateErrors[keyof GetConfigStateErrors];

export type GetConfigStateResponses = {
    /**
     * OK
     */
    200: ConfigState;
};

export type GetConfigStateResponse = GetConfigStateResponses[keyof GetConfigStateResponses];

export type SetConfigValueData = {
    /**
     * Request body
     */
    body: SetValueRequest;
    headers?: {
        'x-audit-reason'?: string;
        'if-match'?: string;
    };
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/configs/{key}/value';
};

export type SetConfigValueErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * If-Match precondition failed
     */
    412: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type SetConfigValueError = SetConfigValueErrors[keyof SetConfigValueErrors];

export type SetConfigValueResponses = {
    /**
     * OK
     */
    200: ConfigState;
};

export type SetConfigValueResponse = SetConfigValueResponses[keyof SetConfigValueResponses];

export type SetConfigRulesData = {
    /**
     * Request body
     */
    body: SetRulesRequest;
    headers?: {
        'x-audit-reason'?: string;
        'if-match'?: string;
    };
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/configs/{key}/rules';
};

export type SetConfigRulesErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * If-Match precondition failed
     */
    412: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type SetConfigRulesError = SetConfigRulesErrors[keyof SetConfigRulesErrors];

export type SetConfigRulesResponses = {
    /**
     * OK
     */
    200: ConfigState;
};

export type SetConfigRulesResponse = SetConfigRulesResponses[keyof SetConfigRulesResponses];

export type DeleteFlagRolloutData = {
    body?: never;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/flags/{key}/rollout';
};

export type DeleteFlagRolloutErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type DeleteFlagRolloutError = DeleteFlagRolloutErrors[keyof DeleteFlagRolloutErrors];

export type DeleteFlagRolloutResponses = {
    /**
     * Accepted: diverted to an approval proposal
     */
    202: Proposal;
    /**
     * No content
     */
    204: void;
};

export type DeleteFlagRolloutResponse = DeleteFlagRolloutResponses[keyof DeleteFlagRolloutResponses];

export type GetFlagRolloutData = {
    body?: never;
    headers?: {
        'if-none-match'?: string;
    };
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/flags/{key}/rollout';
};

export type GetFlagRolloutErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type GetFlagRolloutError = GetFlagRolloutErrors[keyof GetFlagRolloutErrors];

export type GetFlagRolloutResponses = {
    /**
     * OK
     */
    200: Rollout;
};

export type GetFlagRolloutResponse = GetFlagRolloutResponses[keyof GetFlagRolloutResponses];

export type PutFlagRolloutData = {
    /**
     * Request body
     */
    body: PutRolloutRequest;
    headers?: {
        'x-audit-reason'?: string;
        'if-match'?: string;
    };
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/flags/{key}/rollout';
};

export type PutFlagRolloutErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * If-Match precondition failed
     */
    412: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type PutFlagRolloutError = PutFlagRolloutErrors[keyof PutFlagRolloutErrors];

export type PutFlagRolloutResponses = {
    /**
     * OK
     */
    200: Rollout;
    /**
     * Accepted: diverted to an approval proposal
     */
    202: Proposal;
};

export type PutFlagRolloutResponse = PutFlagRolloutResponses[keyof PutFlagRolloutResponses];

export type GetFlagRolloutRampData = {
    body?: never;
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/flags/{key}/rollout/ramp';
};

export type GetFlagRolloutRampErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type GetFlagRolloutRampError = GetFlagRolloutRampErrors[keyof GetFlagRolloutRampErrors];

export type GetFlagRolloutRampResponses = {
    /**
     * OK
     */
    200: RolloutRamp;
};

export type GetFlagRolloutRampResponse = GetFlagRolloutRampResponses[keyof GetFlagRolloutRampResponses];

export type GetFlagRolloutGuardData = {
    body?: never;
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/flags/{key}/rollout/guard';
};

export type GetFlagRolloutGuardErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type GetFlagRolloutGuardError = GetFlagRolloutGuardErrors[keyof GetFlagRolloutGuardErrors];

export type GetFlagRolloutGuardResponses = {
    /**
     * OK
     */
    200: RolloutGuard;
};

export type GetFlagRolloutGuardResponse = GetFlagRolloutGuardResponses[keyof GetFlagRolloutGuardResponses];

export type PauseFlagRolloutData = {
    body?: never;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/flags/{key}/rollout/pause';
};

export type PauseFlagRolloutErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type PauseFlagRolloutError = PauseFlagRolloutErrors[keyof PauseFlagRolloutErrors];

export type PauseFlagRolloutResponses = {
    /**
     * OK
     */
    200: Rollout;
    /**
     * Accepted: diverted to an approval proposal
     */
    202: Proposal;
};

export type PauseFlagRolloutResponse = PauseFlagRolloutResponses[keyof PauseFlagRolloutResponses];

export type ResumeFlagRolloutData = {
    body?: never;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/flags/{key}/rollout/resume';
};

export type ResumeFlagRolloutErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type ResumeFlagRolloutError = ResumeFlagRolloutErrors[keyof ResumeFlagRolloutErrors];

export type ResumeFlagRolloutResponses = {
    /**
     * OK
     */
    200: Rollout;
    /**
     * Accepted: diverted to an approval proposal
     */
    202: Proposal;
};

export type ResumeFlagRolloutResponse = ResumeFlagRolloutResponses[keyof ResumeFlagRolloutResponses];

export type CancelFlagRolloutData = {
    body?: never;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/flags/{key}/rollout/cancel';
};

export type CancelFlagRolloutErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type CancelFlagRolloutError = CancelFlagRolloutErrors[keyof CancelFlagRolloutErrors];

export type CancelFlagRolloutResponses = {
    /**
     * OK
     */
    200: Rollout;
    /**
     * Accepted: diverted to an approval proposal
     */
    202: Proposal;
};

export type CancelFlagRolloutResponse = CancelFlagRolloutResponses[keyof CancelFlagRolloutResponses];

export type AdvanceFlagRolloutData = {
    body?: never;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/flags/{key}/rollout/advance';
};

export type AdvanceFlagRolloutErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type AdvanceFlagRolloutError = AdvanceFlagRolloutErrors[keyof AdvanceFlagRolloutErrors];

export type AdvanceFlagRolloutResponses = {
    /**
     * OK
     */
    200: Rollout;
    /**
     * Accepted: diverted to an approval proposal
     */
    202: Proposal;
};

export type AdvanceFlagRolloutResponse = AdvanceFlagRolloutResponses[keyof AdvanceFlagRolloutResponses];

export type RollbackFlagRolloutData = {
    body?: never;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/flags/{key}/rollout/rollback';
};

export type RollbackFlagRolloutErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type RollbackFlagRolloutError = RollbackFlagRolloutErrors[keyof RollbackFlagRolloutErrors];

export type RollbackFlagRolloutResponses = {
    /**
     * OK
     */
    200: Rollout;
};

export type RollbackFlagRolloutResponse = RollbackFlagRolloutResponses[keyof RollbackFlagRolloutResponses];

export type AddFlagTargetIdsData = {
    /**
     * Request body
     */
    body: TargetIdsRequest;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/flags/{key}/rollout/target-ids/add';
};

export type AddFlagTargetIdsErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type AddFlagTargetIdsError = AddFlagTargetIdsErrors[keyof AddFlagTargetIdsErrors];

export type AddFlagTargetIdsResponses = {
    /**
     * OK
     */
    200: TargetIdsAdded;
    /**
     * Accepted: diverted to an approval proposal
     */
    202: Proposal;
};

export type AddFlagTargetIdsResponse = AddFlagTargetIdsResponses[keyof AddFlagTargetIdsResponses];

export type RemoveFlagTargetIdsData = {
    /**
     * Request body
     */
    body: TargetIdsRequest;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/flags/{key}/rollout/target-ids/remove';
};

export type RemoveFlagTargetIdsErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type RemoveFlagTargetIdsError = RemoveFlagTargetIdsErrors[keyof RemoveFlagTargetIdsErrors];

export type RemoveFlagTargetIdsResponses = {
    /**
     * OK
     */
    200: TargetIdsRemoved;
    /**
     * Accepted: diverted to an approval proposal
     */
    202: Proposal;
};

export type RemoveFlagTargetIdsResponse = RemoveFlagTargetIdsResponses[keyof RemoveFlagTargetIdsResponses];

export type ReplaceFlagTargetIdsData = {
    /**
     * Request body
     */
    body: ReplaceTargetIdsRequest;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/flags/{key}/rollout/target-ids/replace';
};

export type ReplaceFlagTargetIdsErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type ReplaceFlagTargetIdsError = ReplaceFlagTargetIdsErrors[keyof ReplaceFlagTargetIdsErrors];

export type ReplaceFlagTargetIdsResponses = {
    /**
     * OK
     */
    200: TargetIdsCount;
    /**
     * Accepted: diverted to an approval proposal
     */
    202: Proposal;
};

export type ReplaceFlagTargetIdsResponse = ReplaceFlagTargetIdsResponses[keyof ReplaceFlagTargetIdsResponses];

export type ListFlagTargetIdsData = {
    body?: never;
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: {
        cursor?: string;
        limit?: number;
    };
    url: '/api/v1/envs/{envId}/flags/{key}/rollout/target-ids';
};

export type ListFlagTargetIdsErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type ListFlagTargetIdsError = ListFlagTargetIdsErrors[keyof ListFlagTargetIdsErrors];

export type ListFlagTargetIdsResponses = {
    /**
     * OK
     */
    200: TargetIdPage;
};

export type ListFlagTargetIdsResponse = ListFlagTargetIdsResponses[keyof ListFlagTargetIdsResponses];

export type CheckFlagTargetIdData = {
    body?: never;
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The key of the resource.
         */
        key: string;
        /**
         * The targetId of the resource.
         */
        targetId: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/flags/{key}/rollout/target-ids/contains/{targetId}';
};

export type CheckFlagTargetIdErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type CheckFlagTargetIdError = CheckFlagTargetIdErrors[keyof CheckFlagTargetIdErrors];

export type CheckFlagTargetIdResponses = {
    /**
     * OK
     */
    200: TargetIdContains;
};

export type CheckFlagTargetIdResponse = CheckFlagTargetIdResponses[keyof CheckFlagTargetIdResponses];

export type DeleteConfigRolloutData = {
    body?: never;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/configs/{key}/rollout';
};

export type DeleteConfigRolloutErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type DeleteConfigRolloutError = DeleteConfigRolloutErrors[keyof DeleteConfigRolloutErrors];

export type DeleteConfigRolloutResponses = {
    /**
     * Accepted: diverted to an approval proposal
     */
    202: Proposal;
    /**
     * No content
     */
    204: void;
};

export type DeleteConfigRolloutResponse = DeleteConfigRolloutResponses[keyof DeleteConfigRolloutResponses];

export type GetConfigRolloutData = {
    body?: never;
    headers?: {
        'if-none-match'?: string;
    };
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/configs/{key}/rollout';
};

export type GetConfigRolloutErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type GetConfigRolloutError = GetConfigRolloutErrors[keyof GetConfigRolloutErrors];

export type GetConfigRolloutResponses = {
    /**
     * OK
     */
    200: Rollout;
};

export type GetConfigRolloutResponse = GetConfigRolloutResponses[keyof GetConfigRolloutResponses];

export type PutConfigRolloutData = {
    /**
     * Request body
     */
    body: PutRolloutRequest;
    headers?: {
        'x-audit-reason'?: string;
        'if-match'?: string;
    };
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/configs/{key}/rollout';
};

export type PutConfigRolloutErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * If-Match precondition failed
     */
    412: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type PutConfigRolloutError = PutConfigRolloutErrors[keyof PutConfigRolloutErrors];

export type PutConfigRolloutResponses = {
    /**
     * OK
     */
    200: Rollout;
    /**
     * Accepted: diverted to an approval proposal
     */
    202: Proposal;
};

export type PutConfigRolloutResponse = PutConfigRolloutResponses[keyof PutConfigRolloutResponses];

export type GetConfigRolloutRampData = {
    body?: never;
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/configs/{key}/rollout/ramp';
};

export type GetConfigRolloutRampErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type GetConfigRolloutRampError = GetConfigRolloutRampErrors[keyof GetConfigRolloutRampErrors];

export type GetConfigRolloutRampResponses = {
    /**
     * OK
     */
    200: RolloutRamp;
};

export type GetConfigRolloutRampResponse = GetConfigRolloutRampResponses[keyof GetConfigRolloutRampResponses];

export type GetConfigRolloutGuardData = {
    body?: never;
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/configs/{key}/rollout/guard';
};

export type GetConfigRolloutGuardErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type GetConfigRolloutGuardError = GetConfigRolloutGuardErrors[keyof GetConfigRolloutGuardErrors];

export type GetConfigRolloutGuardResponses = {
    /**
     * OK
     */
    200: RolloutGuard;
};

export type GetConfigRolloutGuardResponse = GetConfigRolloutGuardResponses[keyof GetConfigRolloutGuardResponses];

export type PauseConfigRolloutData = {
    body?: never;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/configs/{key}/rollout/pause';
};

export type PauseConfigRolloutErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type PauseConfigRolloutError = PauseConfigRolloutErrors[keyof PauseConfigRolloutErrors];

export type PauseConfigRolloutResponses = {
    /**
     * OK
     */
    200: Rollout;
    /**
     * Accepted: diverted to an approval proposal
     */
    202: Proposal;
};

export type PauseConfigRolloutResponse = PauseConfigRolloutResponses[keyof PauseConfigRolloutResponses];

export type ResumeConfigRolloutData = {
    body?: never;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/configs/{key}/rollout/resume';
};

export type ResumeConfigRolloutErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type ResumeConfigRolloutError = ResumeConfigRolloutErrors[keyof ResumeConfigRolloutErrors];

export type ResumeConfigRolloutResponses = {
    /**
     * OK
     */
    200: Rollout;
    /**
     * Accepted: diverted to an approval proposal
     */
    202: Proposal;
};

export type ResumeConfigRolloutResponse = ResumeConfigRolloutResponses[keyof ResumeConfigRolloutResponses];

export type CancelConfigRolloutData = {
    body?: never;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/configs/{key}/rollout/cancel';
};

export type CancelConfigRolloutErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type CancelConfigRolloutError = CancelConfigRolloutErrors[keyof CancelConfigRolloutErrors];

export type CancelConfigRolloutResponses = {
    /**
     * OK
     */
    200: Rollout;
    /**
     * Accepted: diverted to an approval proposal
     */
    202: Proposal;
};

export type CancelConfigRolloutResponse = CancelConfigRolloutResponses[keyof CancelConfigRolloutResponses];

export type AdvanceConfigRolloutData = {
    body?: never;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/configs/{key}/rollout/advance';
};

export type AdvanceConfigRolloutErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type AdvanceConfigRolloutError = AdvanceConfigRolloutErrors[keyof AdvanceConfigRolloutErrors];

export type AdvanceConfigRolloutResponses = {
    /**
     * OK
     */
    200: Rollout;
    /**
     * Accepted: diverted to an approval proposal
     */
    202: Proposal;
};

export type AdvanceConfigRolloutResponse = AdvanceConfigRolloutResponses[keyof AdvanceConfigRolloutResponses];

export type RollbackConfigRolloutData = {
    body?: never;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/configs/{key}/rollout/rollback';
};

export type RollbackConfigRolloutErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type RollbackConfigRolloutError = RollbackConfigRolloutErrors[keyof RollbackConfigRolloutErrors];

export type RollbackConfigRolloutResponses = {
    /**
     * OK
     */
    200: Rollout;
};

export type RollbackConfigRolloutResponse = RollbackConfigRolloutResponses[keyof RollbackConfigRolloutResponses];

export type AddConfigTargetIdsData = {
    /**
     * Request body
     */
    body: TargetIdsRequest;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/configs/{key}/rollout/target-ids/add';
};

export type AddConfigTargetIdsErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type AddConfigTargetIdsError = AddConfigTargetIdsErrors[keyof AddConfigTargetIdsErrors];

export type AddConfigTargetIdsResponses = {
    /**
     * OK
     */
    200: TargetIdsAdded;
    /**
     * Accepted: diverted to an approval proposal
     */
    202: Proposal;
};

export type AddConfigTargetIdsResponse = AddConfigTargetIdsResponses[keyof AddConfigTargetIdsResponses];

export type RemoveConfigTargetIdsData = {
    /**
     * Request body
     */
    body: TargetIdsRequest;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/configs/{key}/rollout/target-ids/remove';
};

export type RemoveConfigTargetIdsErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type RemoveConfigTargetIdsError = RemoveConfigTargetIdsErrors[keyof RemoveConfigTargetIdsErrors];

export type RemoveConfigTargetIdsResponses = {
    /**
     * OK
     */
    200: TargetIdsRemoved;
    /**
     * Accepted: diverted to an approval proposal
     */
    202: Proposal;
};

export type RemoveConfigTargetIdsResponse = RemoveConfigTargetIdsResponses[keyof RemoveConfigTargetIdsResponses];

export type ReplaceConfigTargetIdsData = {
    /**
     * Request body
     */
    body: ReplaceTargetIdsRequest;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/configs/{key}/rollout/target-ids/replace';
};

export type ReplaceConfigTargetIdsErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type ReplaceConfigTargetIdsError = ReplaceConfigTargetIdsErrors[keyof ReplaceConfigTargetIdsErrors];

export type ReplaceConfigTargetIdsResponses = {
    /**
     * OK
     */
    200: TargetIdsCount;
    /**
     * Accepted: diverted to an approval proposal
     */
    202: Proposal;
};

export type ReplaceConfigTargetIdsResponse = ReplaceConfigTargetIdsResponses[keyof ReplaceConfigTargetIdsResponses];

export type ListConfigTargetIdsData = {
    body?: never;
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: {
        cursor?: string;
        limit?: number;
    };
    url: '/api/v1/envs/{envId}/configs/{key}/rollout/target-ids';
};

export type ListConfigTargetIdsErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type ListConfigTargetIdsError = ListConfigTargetIdsErrors[keyof ListConfigTargetIdsErrors];

export type ListConfigTargetIdsResponses = {
    /**
     * OK
     */
    200: TargetIdPage;
};

export type ListConfigTargetIdsResponse = ListConfigTargetIdsResponses[keyof ListConfigTargetIdsResponses];

export type CheckConfigTargetIdData = {
    body?: never;
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The key of the resource.
         */
        key: string;
        /**
         * The targetId of the resource.
         */
        targetId: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/configs/{key}/rollout/target-ids/contains/{targetId}';
};

export type CheckConfigTargetIdErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type CheckConfigTargetIdError = CheckConfigTargetIdErrors[keyof CheckConfigTargetIdErrors];

export type CheckConfigTargetIdResponses = {
    /**
     * OK
     */
    200: TargetIdContains;
};

export type CheckConfigTargetIdResponse = CheckConfigTargetIdResponses[keyof CheckConfigTargetIdResponses];

export type ListRolloutPlansData = {
    body?: never;
    path: {
        /**
         * The id of the resource.
         */
        id: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/rollout-plans';
};

export type ListRolloutPlansErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type ListRolloutPlansError = ListRolloutPlansErrors[keyof ListRolloutPlansErrors];

export type ListRolloutPlansResponses = {
    /**
     * OK
     */
    200: Array<RolloutPlan>;
};

export type ListRolloutPlansResponse = ListRolloutPlansResponses[keyof ListRolloutPlansResponses];

export type CreateRolloutPlanData = {
    /**
     * Request body
     */
    body: CreateRolloutPlanRequest;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The id of the resource.
         */
        id: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/rollout-plans';
};

export type CreateRolloutPlanErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type CreateRolloutPlanError = CreateRolloutPlanErrors[keyof CreateRolloutPlanErrors];

export type CreateRolloutPlanResponses = {
    /**
     * Created
     */
    201: RolloutPlan;
};

export type CreateRolloutPlanResponse = CreateRolloutPlanResponses[keyof CreateRolloutPlanResponses];

export type DeleteRolloutPlanData = {
    body?: never;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The id of the resource.
         */
        id: string;
        /**
         * The planKey of the resource.
         */
        planKey: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/rollout-plans/{planKey}';
};

export type DeleteRolloutPlanErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type DeleteRolloutPlanError = DeleteRolloutPlanErrors[keyof DeleteRolloutPlanErrors];

export type DeleteRolloutPlanResponses = {
    /**
     * No content
     */
    204: void;
};

export type DeleteRolloutPlanResponse = DeleteRolloutPlanResponses[keyof DeleteRolloutPlanResponses];

export type GetRolloutPlanData = {
    body?: never;
    headers?: {
        'if-none-match'?: string;
    };
    path: {
        /**
         * The id of the resource.
         */
        id: string;
        /**
         * The planKey of the resource.
         */
        planKey: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/rollout-plans/{planKey}';
};

export type GetRolloutPlanErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type GetRolloutPlanError = GetRolloutPlanErrors[keyof GetRolloutPlanErrors];

export type GetRolloutPlanResponses = {
    /**
     * OK
     */
    200: RolloutPlan;
};

export type GetRolloutPlanResponse = GetRolloutPlanResponses[keyof GetRolloutPlanResponses];

export type UpdateRolloutPlanData = {
    /**
     * Request body
     */
    body: UpdateRolloutPlanRequest;
    headers?: {
        'x-audit-reason'?: string;
        'if-match'?: string;
    };
    path: {
        /**
         * The id of the resource.
         */
        id: string;
        /**
         * The planKey of the resource.
         */
        planKey: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/rollout-plans/{planKey}';
};

export type UpdateRolloutPlanErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * If-Match precondition failed
     */
    412: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type UpdateRolloutPlanError = UpdateRolloutPlanErrors[keyof UpdateRolloutPlanErrors];

export type UpdateRolloutPlanResponses = {
    /**
     * OK
     */
    200: RolloutPlan;
};

export type UpdateRolloutPlanResponse = UpdateRolloutPlanResponses[keyof UpdateRolloutPlanResponses];

export type ListRolloutMigrationWarningsData = {
    body?: never;
    path: {
        /**
         * The slug of the resource.
         */
        slug: string;
    };
    query?: never;
    url: '/api/v1/orgs/{slug}/rollouts/migration-warnings';
};

export type ListRolloutMigrationWarningsErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type ListRolloutMigrationWarningsError = ListRolloutMigrationWarningsErrors[keyof ListRolloutMigrationWarningsErrors];

export type ListRolloutMigrationWarningsResponses = {
    /**
     * OK
     */
    200: Array<RolloutMigrationWarning>;
};

export type ListRolloutMigrationWarningsResponse = ListRolloutMigrationWarningsResponses[keyof ListRolloutMigrationWarningsResponses];

export type GetRulesetData = {
    body?: never;
    headers?: {
        'if-none-match'?: string;
    };
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/ruleset';
};

export type GetRulesetErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
    /**
     * Temporarily unavailable
     */
    503: ErrorEnvelope;
};

export type GetRulesetError = GetRulesetErrors[keyof GetRulesetErrors];

export type GetRulesetResponses = {
    /**
     * OK
     */
    200: Ruleset;
};

export type GetRulesetResponse = GetRulesetResponses[keyof GetRulesetResponses];

export type StreamRulesetData = {
    body?: never;
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/ruleset/stream';
};

export type StreamRulesetErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type StreamRulesetError = StreamRulesetErrors[keyof StreamRulesetErrors];

export type StreamRulesetResponses = {
    /**
     * OK
     */
    200: unknown;
};

export type EvaluateData = {
    /**
     * Request body
     */
    body: EvaluateRequest;
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/evaluate';
};

export type EvaluateErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type EvaluateError = EvaluateErrors[keyof EvaluateErrors];

export type EvaluateResponses = {
    /**
     * OK
     */
    200: EvaluateResponse;
};

export type EvaluateResponse2 = EvaluateResponses[keyof EvaluateResponses];

export type ListRollbackSecretsData = {
    body?: never;
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/rollback-webhook-secrets';
};

export type ListRollbackSecretsErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type ListRollbackSecretsError = ListRollbackSecretsErrors[keyof ListRollbackSecretsErrors];

export type ListRollbackSecretsResponses = {
    /**
     * OK
     */
    200: Array<RollbackWebhookSecret>;
};

export type ListRollbackSecretsResponse = ListRollbackSecretsResponses[keyof ListRollbackSecretsResponses];

export type CreateRollbackSecretData = {
    /**
     * Request body
     */
    body: CreateRollbackSecretRequest;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/rollback-webhook-secrets';
};

export type CreateRollbackSecretErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type CreateRollbackSecretError = CreateRollbackSecretErrors[keyof CreateRollbackSecretErrors];

export type CreateRollbackSecretResponses = {
    /**
     * Created
     */
    201: MintedRollbackWebhookSecret;
};

export type CreateRollbackSecretResponse = CreateRollbackSecretResponses[keyof CreateRollbackSecretResponses];

export type RevokeRollbackSecretData = {
    body?: never;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The id of the resource.
         */
        id: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/rollback-webhook-secrets/{id}';
};

export type RevokeRollbackSecretErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type RevokeRollbackSecretError = RevokeRollbackSecretErrors[keyof RevokeRollbackSecretErrors];

export type RevokeRollbackSecretResponses = {
    /**
     * No content
     */
    204: void;
};

export type RevokeRollbackSecretResponse = RevokeRollbackSecretResponses[keyof RevokeRollbackSecretResponses];

export type FireFlagRollbackData = {
    /**
     * Request body
     */
    body?: RollbackFireBody;
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/webhooks/rollback/envs/{envId}/flags/{key}';
};

export type FireFlagRollbackErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type FireFlagRollbackError = FireFlagRollbackErrors[keyof FireFlagRollbackErrors];

export type FireFlagRollbackResponses = {
    /**
     * OK
     */
    200: RollbackFireResponse;
};

export type FireFlagRollbackResponse = FireFlagRollbackResponses[keyof FireFlagRollbackResponses];

export type FireConfigRollbackData = {
    /**
     * Request body
     */
    body?: RollbackFireBody;
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/webhooks/rollback/envs/{envId}/configs/{key}';
};

export type FireConfigRollbackErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type FireConfigRollbackError = FireConfigRollbackErrors[keyof FireConfigRollbackErrors];

export type FireConfigRollbackResponses = {
    /**
     * OK
     */
    200: RollbackFireResponse;
};

export type FireConfigRollbackResponse = FireConfigRollbackResponses[keyof FireConfigRollbackResponses];

export type ListRollbackFiresData = {
    body?: never;
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
    };
    query?: {
        cursor?: string;
        limit?: number;
    };
    url: '/api/v1/envs/{envId}/rollback-fires';
};

export type ListRollbackFiresErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type ListRollbackFiresError = ListRollbackFiresErrors[keyof ListRollbackFiresErrors];

export type ListRollbackFiresResponses = {
    /**
     * OK
     */
    200: RollbackFirePage;
};

export type ListRollbackFiresResponse = ListRollbackFiresResponses[keyof ListRollbackFiresResponses];

export type ListRollbackSecretFiresData = {
    body?: never;
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The id of the resource.
         */
        id: string;
    };
    query?: {
        cursor?: string;
        limit?: number;
    };
    url: '/api/v1/envs/{envId}/rollback-webhook-secrets/{id}/fires';
};

export type ListRollbackSecretFiresErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type ListRollbackSecretFiresError = ListRollbackSecretFiresErrors[keyof ListRollbackSecretFiresErrors];

export type ListRollbackSecretFiresResponses = {
    /**
     * OK
     */
    200: RollbackFirePage;
};

export type ListRollbackSecretFiresResponse = ListRollbackSecretFiresResponses[keyof ListRollbackSecretFiresResponses];

export type ListFlagRollbackFiresData = {
    body?: never;
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The flagKey of the resource.
         */
        flagKey: string;
    };
    query?: {
        cursor?: string;
        limit?: number;
    };
    url: '/api/v1/envs/{envId}/flags/{flagKey}/rollout/fires';
};

export type ListFlagRollbackFiresErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type ListFlagRollbackFiresError = ListFlagRollbackFiresErrors[keyof ListFlagRollbackFiresErrors];

export type ListFlagRollbackFiresResponses = {
    /**
     * OK
     */
    200: RollbackFirePage;
};

export type ListFlagRollbackFiresResponse = ListFlagRollbackFiresResponses[keyof ListFlagRollbackFiresResponses];

export type ListConfigRollbackFiresData = {
    body?: never;
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
        /**
         * The configKey of the resource.
         */
        configKey: string;
    };
    query?: {
        cursor?: string;
        limit?: number;
    };
    url: '/api/v1/envs/{envId}/configs/{configKey}/rollout/fires';
};

export type ListConfigRollbackFiresErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type ListConfigRollbackFiresError = ListConfigRollbackFiresErrors[keyof ListConfigRollbackFiresErrors];

export type ListConfigRollbackFiresResponses = {
    /**
     * OK
     */
    200: RollbackFirePage;
};

export type ListConfigRollbackFiresResponse = ListConfigRollbackFiresResponses[keyof ListConfigRollbackFiresResponses];

export type ListApiKeysData = {
    body?: never;
    path: {
        /**
         * The slug of the resource.
         */
        slug: string;
    };
    query?: never;
    url: '/api/v1/orgs/{slug}/api-keys';
};

export type ListApiKeysErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type ListApiKeysError = ListApiKeysErrors[keyof ListApiKeysErrors];

export type ListApiKeysResponses = {
    /**
     * OK
     */
    200: Array<ApiKey>;
};

export type ListApiKeysResponse = ListApiKeysResponses[keyof ListApiKeysResponses];

export type CreateApiKeyData = {
    /**
     * Request body
     */
    body: CreateApiKeyRequest;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The slug of the resource.
         */
        slug: string;
    };
    query?: never;
    url: '/api/v1/orgs/{slug}/api-keys';
};

export type CreateApiKeyErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type CreateApiKeyError = CreateApiKeyErrors[keyof CreateApiKeyErrors];

export type CreateApiKeyResponses = {
    /**
     * Created
     */
    201: MintedApiKey;
};

export type CreateApiKeyResponse = CreateApiKeyResponses[keyof CreateApiKeyResponses];

export type RevokeApiKeyData = {
    body?: never;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The slug of the resource.
         */
        slug: string;
        /**
         * The id of the resource.
         */
        id: string;
    };
    query?: never;
    url: '/api/v1/orgs/{slug}/api-keys/{id}';
};

export type RevokeApiKeyErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type RevokeApiKeyError = RevokeApiKeyErrors[keyof RevokeApiKeyErrors];

export type RevokeApiKeyResponses = {
    /**
     * No content
     */
    204: void;
};

export type RevokeApiKeyResponse = RevokeApiKeyResponses[keyof RevokeApiKeyResponses];

export type ListAuditEventsData = {
    body?: never;
    path: {
        /**
         * The slug of the resource.
         */
        slug: string;
    };
    query?: {
        resourceType?: string;
        resourceKey?: string;
        envId?: string;
        includeProjectRows?: 'true' | 'false';
        actorId?: string;
        cursor?: string;
        limit?: number;
    };
    url: '/api/v1/orgs/{slug}/audit';
};

export type ListAuditEventsErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type ListAuditEventsError = ListAuditEventsErrors[keyof ListAuditEventsErrors];

export type ListAuditEventsResponses = {
    /**
     * OK
     */
    200: AuditEventPage;
};

export type ListAuditEventsResponse = ListAuditEventsResponses[keyof ListAuditEventsResponses];

export type GetAuditEventData = {
    body?: never;
    path: {
        /**
         * The id of the resource.
         */
        id: string;
    };
    query?: never;
    url: '/api/v1/audit/events/{id}';
};

export type GetAuditEventErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type GetAuditEventError = GetAuditEventErrors[keyof GetAuditEventErrors];

export type GetAuditEventResponses = {
    /**
     * OK
     */
    200: AuditEventDetail;
};

export type GetAuditEventResponse = GetAuditEventResponses[keyof GetAuditEventResponses];

export type GetProposalData = {
    body?: never;
    path: {
        /**
         * The id of the resource.
         */
        id: string;
    };
    query?: never;
    url: '/api/v1/proposals/{id}';
};

export type GetProposalErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type GetProposalError = GetProposalErrors[keyof GetProposalErrors];

export type GetProposalResponses = {
    /**
     * OK
     */
    200: Proposal;
};

export type GetProposalResponse = GetProposalResponses[keyof GetProposalResponses];

export type ListProposalsData = {
    body?: never;
    path: {
        /**
         * The slug of the resource.
         */
        slug: string;
    };
    query?: {
        /**
         * ProposalStatus
         */
        status?: 'pending' | 'applied' | 'cancelled' | 'expired';
        limit?: number;
    };
    url: '/api/v1/orgs/{slug}/proposals';
};

export type ListProposalsErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type ListProposalsError = ListProposalsErrors[keyof ListProposalsErrors];

export type ListProposalsResponses = {
    /**
     * OK
     */
    200: Array<Proposal>;
};

export type ListProposalsResponse = ListProposalsResponses[keyof ListProposalsResponses];

export type ApplyProposalData = {
    body?: never;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The id of the resource.
         */
        id: string;
    };
    query?: never;
    url: '/api/v1/proposals/{id}/apply';
};

export type ApplyProposalErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * Gone
     */
    410: ErrorEnvelope;
    /**
     * If-Match precondition failed
     */
    412: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type ApplyProposalError = ApplyProposalErrors[keyof ApplyProposalErrors];

export type ApplyProposalResponses = {
    /**
     * OK
     */
    200: AppliedProposal;
};

export type ApplyProposalResponse = ApplyProposalResponses[keyof ApplyProposalResponses];

export type CancelProposalData = {
    body?: never;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The id of the resource.
         */
        id: string;
    };
    query?: never;
    url: '/api/v1/proposals/{id}/cancel';
};

export type CancelProposalErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Gone
     */
    410: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type CancelProposalError = CancelProposalErrors[keyof CancelProposalErrors];

export type CancelProposalResponses = {
    /**
     * OK
     */
    200: Proposal;
};

export type CancelProposalResponse = CancelProposalResponses[keyof CancelProposalResponses];

export type StreamEnvironmentEventsData = {
    body?: never;
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/events';
};

export type StreamEnvironmentEventsErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type StreamEnvironmentEventsError = StreamEnvironmentEventsErrors[keyof StreamEnvironmentEventsErrors];

export type StreamEnvironmentEventsResponses = {
    /**
     * OK
     */
    200: unknown;
};

export type StreamOrgEventsData = {
    body?: never;
    path: {
        /**
         * The slug of the resource.
         */
        slug: string;
    };
    query?: never;
    url: '/api/v1/orgs/{slug}/events';
};

export type StreamOrgEventsErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type StreamOrgEventsError = StreamOrgEventsErrors[keyof StreamOrgEventsErrors];

export type StreamOrgEventsResponses = {
    /**
     * OK
     */
    200: unknown;
};

export type OfrepEvaluateFlagData = {
    /**
     * Request body
     */
    body: OfrepEvaluationRequest;
    path: {
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/ofrep/v1/evaluate/flags/{key}';
};

export type OfrepEvaluateFlagErrors = {
    /**
     * Invalid request
     */
    400: OfrepEvaluationFailure;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: OfrepFlagNotFound;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
    /**
     * 500
     */
    500: OfrepGeneralError;
};

export type OfrepEvaluateFlagError = OfrepEvaluateFlagErrors[keyof OfrepEvaluateFlagErrors];

export type OfrepEvaluateFlagResponses = {
    /**
     * OK
     */
    200: OfrepEvaluationSuccess | OfrepCodeDefault;
};

export type OfrepEvaluateFlagResponse = OfrepEvaluateFlagResponses[keyof OfrepEvaluateFlagResponses];

export type OfrepEvaluateFlagsData = {
    /**
     * Request body
     */
    body: OfrepEvaluationRequest;
    headers?: {
        'if-none-match'?: string;
    };
    path?: never;
    query?: {
        flagConfigEtag?: string;
        flagConfigLastModified?: string;
    };
    url: '/api/v1/ofrep/v1/evaluate/flags';
};

export type OfrepEvaluateFlagsErrors = {
    /**
     * Invalid request
     */
    400: OfrepBulkEvaluationFailure;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
    /**
     * 500
     */
    500: OfrepGeneralError;
};

export type OfrepEvaluateFlagsError = OfrepEvaluateFlagsErrors[keyof OfrepEvaluateFlagsErrors];

export type OfrepEvaluateFlagsResponses = {
    /**
     * OK
     */
    200: OfrepBulkEvaluationSuccess;
};

export type OfrepEvaluateFlagsResponse = OfrepEvaluateFlagsResponses[keyof OfrepEvaluateFlagsResponses];

export type OfrepEventStreamData = {
    body?: never;
    path?: never;
    query: {
        ticket: string;
    };
    url: '/api/v1/ofrep/v1/events';
};

export type OfrepEventStreamErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type OfrepEventStreamError = OfrepEventStreamErrors[keyof OfrepEventStreamErrors];

export type OfrepEventStreamResponses = {
    /**
     * OK
     */
    200: unknown;
};

export type ListSegmentsData = {
    body?: never;
    path: {
        /**
         * The id of the resource.
         */
        id: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/segments';
};

export type ListSegmentsErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type ListSegmentsError = ListSegmentsErrors[keyof ListSegmentsErrors];

export type ListSegmentsResponses = {
    /**
     * OK
     */
    200: Array<Segment>;
};

export type ListSegmentsResponse = ListSegmentsResponses[keyof ListSegmentsResponses];

export type CreateSegmentData = {
    /**
     * Request body
     */
    body: CreateSegmentRequest;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The id of the resource.
         */
        id: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/segments';
};

export type CreateSegmentErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type CreateSegmentError = CreateSegmentErrors[keyof CreateSegmentErrors];

export type CreateSegmentResponses = {
    /**
     * Created
     */
    201: Segment;
};

export type CreateSegmentResponse = CreateSegmentResponses[keyof CreateSegmentResponses];

export type DeleteSegmentData = {
    /**
     * Request body
     */
    body?: DeleteSegmentRequest;
    headers?: {
        'x-audit-reason'?: string;
        'if-match'?: string;
    };
    path: {
        /**
         * The id of the resource.
         */
        id: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/segments/{key}';
};

export type DeleteSegmentErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * If-Match precondition failed
     */
    412: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type DeleteSegmentError = DeleteSegmentErrors[keyof DeleteSegmentErrors];

export type DeleteSegmentResponses = {
    /**
     * No content
     */
    204: void;
};

export type DeleteSegmentResponse = DeleteSegmentResponses[keyof DeleteSegmentResponses];

export type GetSegmentData = {
    body?: never;
    headers?: {
        'if-none-match'?: string;
    };
    path: {
        /**
         * The id of the resource.
         */
        id: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/segments/{key}';
};

export type GetSegmentErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type GetSegmentError = GetSegmentErrors[keyof GetSegmentErrors];

export type GetSegmentResponses = {
    /**
     * OK
     */
    200: Segment;
};

export type GetSegmentResponse = GetSegmentResponses[keyof GetSegmentResponses];

export type UpdateSegmentData = {
    /**
     * Request body
     */
    body: UpdateSegmentRequest;
    headers?: {
        'x-audit-reason'?: string;
        'if-match'?: string;
    };
    path: {
        /**
         * The id of the resource.
         */
        id: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/segments/{key}';
};

export type UpdateSegmentErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * If-Match precondition failed
     */
    412: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type UpdateSegmentError = UpdateSegmentErrors[keyof UpdateSegmentErrors];

export type UpdateSegmentResponses = {
    /**
     * OK
     */
    200: Segment;
};

export type UpdateSegmentResponse = UpdateSegmentResponses[keyof UpdateSegmentResponses];

export type GetSegmentReferrersData = {
    body?: never;
    path: {
        /**
         * The id of the resource.
         */
        id: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/segments/{key}/referrers';
};

export type GetSegmentReferrersErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type GetSegmentReferrersError = GetSegmentReferrersErrors[keyof GetSegmentReferrersErrors];

export type GetSegmentReferrersResponses = {
    /**
     * OK
     */
    200: SegmentReferrers;
};

export type GetSegmentReferrersResponse = GetSegmentReferrersResponses[keyof GetSegmentReferrersResponses];

export type AddSegmentIncludedData = {
    /**
     * Request body
     */
    body: TargetIdsRequest;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The id of the resource.
         */
        id: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/segments/{key}/included/add';
};

export type AddSegmentIncludedErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type AddSegmentIncludedError = AddSegmentIncludedErrors[keyof AddSegmentIncludedErrors];

export type AddSegmentIncludedResponses = {
    /**
     * OK
     */
    200: TargetIdsAdded;
};

export type AddSegmentIncludedResponse = AddSegmentIncludedResponses[keyof AddSegmentIncludedResponses];

export type RemoveSegmentIncludedData = {
    /**
     * Request body
     */
    body: TargetIdsRequest;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The id of the resource.
         */
        id: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/segments/{key}/included/remove';
};

export type RemoveSegmentIncludedErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type RemoveSegmentIncludedError = RemoveSegmentIncludedErrors[keyof RemoveSegmentIncludedErrors];

export type RemoveSegmentIncludedResponses = {
    /**
     * OK
     */
    200: TargetIdsRemoved;
};

export type RemoveSegmentIncludedResponse = RemoveSegmentIncludedResponses[keyof RemoveSegmentIncludedResponses];

export type ReplaceSegmentIncludedData = {
    /**
     * Request body
     */
    body: ReplaceTargetIdsRequest;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The id of the resource.
         */
        id: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/segments/{key}/included/replace';
};

export type ReplaceSegmentIncludedErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type ReplaceSegmentIncludedError = ReplaceSegmentIncludedErrors[keyof ReplaceSegmentIncludedErrors];

export type ReplaceSegmentIncludedResponses = {
    /**
     * OK
     */
    200: TargetIdsCount;
};

export type ReplaceSegmentIncludedResponse = ReplaceSegmentIncludedResponses[keyof ReplaceSegmentIncludedResponses];

export type ListSegmentIncludedData = {
    body?: never;
    path: {
        /**
         * The id of the resource.
         */
        id: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: {
        cursor?: string;
        limit?: number;
    };
    url: '/api/v1/projects/{id}/segments/{key}/included';
};

export type ListSegmentIncludedErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type ListSegmentIncludedError = ListSegmentIncludedErrors[keyof ListSegmentIncludedErrors];

export type ListSegmentIncludedResponses = {
    /**
     * OK
     */
    200: TargetIdPage;
};

export type ListSegmentIncludedResponse = ListSegmentIncludedResponses[keyof ListSegmentIncludedResponses];

export type CheckSegmentIncludedData = {
    body?: never;
    path: {
        /**
         * The id of the resource.
         */
        id: string;
        /**
         * The key of the resource.
         */
        key: string;
        /**
         * The targetId of the resource.
         */
        targetId: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/segments/{key}/included/contains/{targetId}';
};

export type CheckSegmentIncludedErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type CheckSegmentIncludedError = CheckSegmentIncludedErrors[keyof CheckSegmentIncludedErrors];

export type CheckSegmentIncludedResponses = {
    /**
     * OK
     */
    200: TargetIdContains;
};

export type CheckSegmentIncludedResponse = CheckSegmentIncludedResponses[keyof CheckSegmentIncludedResponses];

export type AddSegmentExcludedData = {
    /**
     * Request body
     */
    body: TargetIdsRequest;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The id of the resource.
         */
        id: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/segments/{key}/excluded/add';
};

export type AddSegmentExcludedErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type AddSegmentExcludedError = AddSegmentExcludedErrors[keyof AddSegmentExcludedErrors];

export type AddSegmentExcludedResponses = {
    /**
     * OK
     */
    200: TargetIdsAdded;
};

export type AddSegmentExcludedResponse = AddSegmentExcludedResponses[keyof AddSegmentExcludedResponses];

export type RemoveSegmentExcludedData = {
    /**
     * Request body
     */
    body: TargetIdsRequest;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The id of the resource.
         */
        id: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/segments/{key}/excluded/remove';
};

export type RemoveSegmentExcludedErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type RemoveSegmentExcludedError = RemoveSegmentExcludedErrors[keyof RemoveSegmentExcludedErrors];

export type RemoveSegmentExcludedResponses = {
    /**
     * OK
     */
    200: TargetIdsRemoved;
};

export type RemoveSegmentExcludedResponse = RemoveSegmentExcludedResponses[keyof RemoveSegmentExcludedResponses];

export type ReplaceSegmentExcludedData = {
    /**
     * Request body
     */
    body: ReplaceTargetIdsRequest;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The id of the resource.
         */
        id: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/segments/{key}/excluded/replace';
};

export type ReplaceSegmentExcludedErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type ReplaceSegmentExcludedError = ReplaceSegmentExcludedErrors[keyof ReplaceSegmentExcludedErrors];

export type ReplaceSegmentExcludedResponses = {
    /**
     * OK
     */
    200: TargetIdsCount;
};

export type ReplaceSegmentExcludedResponse = ReplaceSegmentExcludedResponses[keyof ReplaceSegmentExcludedResponses];

export type ListSegmentExcludedData = {
    body?: never;
    path: {
        /**
         * The id of the resource.
         */
        id: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: {
        cursor?: string;
        limit?: number;
    };
    url: '/api/v1/projects/{id}/segments/{key}/excluded';
};

export type ListSegmentExcludedErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type ListSegmentExcludedError = ListSegmentExcludedErrors[keyof ListSegmentExcludedErrors];

export type ListSegmentExcludedResponses = {
    /**
     * OK
     */
    200: TargetIdPage;
};

export type ListSegmentExcludedResponse = ListSegmentExcludedResponses[keyof ListSegmentExcludedResponses];

export type CheckSegmentExcludedData = {
    body?: never;
    path: {
        /**
         * The id of the resource.
         */
        id: string;
        /**
         * The key of the resource.
         */
        key: string;
        /**
         * The targetId of the resource.
         */
        targetId: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/segments/{key}/excluded/contains/{targetId}';
};

export type CheckSegmentExcludedErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type CheckSegmentExcludedError = CheckSegmentExcludedErrors[keyof CheckSegmentExcludedErrors];

export type CheckSegmentExcludedResponses = {
    /**
     * OK
     */
    200: TargetIdContains;
};

export type CheckSegmentExcludedResponse = CheckSegmentExcludedResponses[keyof CheckSegmentExcludedResponses];

export type ListWebhookSubscriptionsData = {
    body?: never;
    path: {
        /**
         * The id of the resource.
         */
        id: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/webhook-subscriptions';
};

export type ListWebhookSubscriptionsErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type ListWebhookSubscriptionsError = ListWebhookSubscriptionsErrors[keyof ListWebhookSubscriptionsErrors];

export type ListWebhookSubscriptionsResponses = {
    /**
     * OK
     */
    200: Array<WebhookSubscription>;
};

export type ListWebhookSubscriptionsResponse = ListWebhookSubscriptionsResponses[keyof ListWebhookSubscriptionsResponses];

export type CreateWebhookSubscriptionData = {
    /**
     * Request body
     */
    body: CreateWebhookSubscriptionRequest;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The id of the resource.
         */
        id: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/webhook-subscriptions';
};

export type CreateWebhookSubscriptionErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type CreateWebhookSubscriptionError = CreateWebhookSubscriptionErrors[keyof CreateWebhookSubscriptionErrors];

export type CreateWebhookSubscriptionResponses = {
    /**
     * Created
     */
    201: CreatedWebhookSubscription;
};

export type CreateWebhookSubscriptionResponse = CreateWebhookSubscriptionResponses[keyof CreateWebhookSubscriptionResponses];

export type DeleteWebhookSubscriptionData = {
    body?: never;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The id of the resource.
         */
        id: string;
        /**
         * The subscriptionId of the resource.
         */
        subscriptionId: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/webhook-subscriptions/{subscriptionId}';
};

export type DeleteWebhookSubscriptionErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type DeleteWebhookSubscriptionError = DeleteWebhookSubscriptionErrors[keyof DeleteWebhookSubscriptionErrors];

export type DeleteWebhookSubscriptionResponses = {
    /**
     * No content
     */
    204: void;
};

export type DeleteWebhookSubscriptionResponse = DeleteWebhookSubscriptionResponses[keyof DeleteWebhookSubscriptionResponses];

export type GetWebhookSubscriptionData = {
    body?: never;
    path: {
        /**
         * The id of the resource.
         */
        id: string;
        /**
         * The subscriptionId of the resource.
         */
        subscriptionId: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/webhook-subscriptions/{subscriptionId}';
};

export type GetWebhookSubscriptionErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type GetWebhookSubscriptionError = GetWebhookSubscriptionErrors[keyof GetWebhookSubscriptionErrors];

export type GetWebhookSubscriptionResponses = {
    /**
     * OK
     */
    200: WebhookSubscription;
};

export type GetWebhookSubscriptionResponse = GetWebhookSubscriptionResponses[keyof GetWebhookSubscriptionResponses];

export type UpdateWebhookSubscriptionData = {
    /**
     * Request body
     */
    body: UpdateWebhookSubscriptionRequest;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The id of the resource.
         */
        id: string;
        /**
         * The subscriptionId of the resource.
         */
        subscriptionId: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/webhook-subscriptions/{subscriptionId}';
};

export type UpdateWebhookSubscriptionErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type UpdateWebhookSubscriptionError = UpdateWebhookSubscriptionErrors[keyof UpdateWebhookSubscriptionErrors];

export type UpdateWebhookSubscriptionResponses = {
    /**
     * OK
     */
    200: WebhookSubscription;
};

export type UpdateWebhookSubscriptionResponse = UpdateWebhookSubscriptionResponses[keyof UpdateWebhookSubscriptionResponses];

export type TestWebhookSubscriptionData = {
    body?: never;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The id of the resource.
         */
        id: string;
        /**
         * The subscriptionId of the resource.
         */
        subscriptionId: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/webhook-subscriptions/{subscriptionId}/test';
};

export type TestWebhookSubscriptionErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type TestWebhookSubscriptionError = TestWebhookSubscriptionErrors[keyof TestWebhookSubscriptionErrors];

export type TestWebhookSubscriptionResponses = {
    /**
     * Accepted: diverted to an approval proposal
     */
    202: WebhookDelivery;
};

export type TestWebhookSubscriptionResponse = TestWebhookSubscriptionResponses[keyof TestWebhookSubscriptionResponses];

export type ListWebhookDeliveriesData = {
    body?: never;
    path: {
        /**
         * The id of the resource.
         */
        id: string;
        /**
         * The subscriptionId of the resource.
         */
        subscriptionId: string;
    };
    query?: {
        /**
         * WebhookDeliveryStatus
         *
         * `pending`: not delivered yet (first try or a retry is due at `nextAttemptAt`); `succeeded`: a 2xx answer; `failed`: every attempt failed, no more retries; `dropped`: not sent (again) because more deliveries were pending for the subscription than its cap allows (the oldest are dropped) or the subscription was disabled; `lastError` says which.
         */
        status?: 'pending' | 'succeeded' | 'failed' | 'dropped';
        cursor?: string;
        limit?: number;
    };
    url: '/api/v1/projects/{id}/webhook-subscriptions/{subscriptionId}/deliveries';
};

export type ListWebhookDeliveriesErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type ListWebhookDeliveriesError = ListWebhookDeliveriesErrors[keyof ListWebhookDeliveriesErrors];

export type ListWebhookDeliveriesResponses = {
    /**
     * OK
     */
    200: WebhookDeliveryPage;
};

export type ListWebhookDeliveriesResponse = ListWebhookDeliveriesResponses[keyof ListWebhookDeliveriesResponses];

export type ReportUsageData = {
    /**
     * Request body
     */
    body: UsageReport;
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/usage';
};

export type ReportUsageErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type ReportUsageError = ReportUsageErrors[keyof ReportUsageErrors];

export type ReportUsageResponses = {
    /**
     * Accepted: diverted to an approval proposal
     */
    202: UsageReportAccepted;
};

export type ReportUsageResponse = ReportUsageResponses[keyof ReportUsageResponses];

export type GetFlagUsageData = {
    body?: never;
    path: {
        /**
         * The id of the resource.
         */
        id: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: {
        /**
         * How many days back (default 7).
         */
        days?: number;
    };
    url: '/api/v1/projects/{id}/flags/{key}/usage';
};

export type GetFlagUsageErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type GetFlagUsageError = GetFlagUsageErrors[keyof GetFlagUsageErrors];

export type GetFlagUsageResponses = {
    /**
     * OK
     */
    200: PrimitiveUsage;
};

export type GetFlagUsageResponse = GetFlagUsageResponses[keyof GetFlagUsageResponses];

export type GetConfigUsageData = {
    body?: never;
    path: {
        /**
         * The id of the resource.
         */
        id: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: {
        /**
         * How many days back (default 7).
         */
        days?: number;
    };
    url: '/api/v1/projects/{id}/configs/{key}/usage';
};

export type GetConfigUsageErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type GetConfigUsageError = GetConfigUsageErrors[keyof GetConfigUsageErrors];

export type GetConfigUsageResponses = {
    /**
     * OK
     */
    200: PrimitiveUsage;
};

export type GetConfigUsageResponse = GetConfigUsageResponses[keyof GetConfigUsageResponses];

export type ListInsightsData = {
    body?: never;
    path: {
        /**
         * The id of the resource.
         */
        id: string;
    };
    query?: {
        /**
         * Default 7.
         */
        staleAfterDays?: number;
        /**
         * Default 30.
         */
        readyAfterDays?: number;
        /**
         * InsightStatus
         *
         * `new`: created within `staleAfterDays` and not evaluated yet; `not_evaluated`: no evaluation in any environment for `staleAfterDays`; `ready_to_remove`: every environment serves the same value to everyone (no rules, no live rollout) and nothing changed for `readyAfterDays`; `in_use` otherwise.
         */
        status?: 'in_use' | 'new' | 'not_evaluated' | 'ready_to_remove';
    };
    url: '/api/v1/projects/{id}/insights';
};

export type ListInsightsErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type ListInsightsError = ListInsightsErrors[keyof ListInsightsErrors];

export type ListInsightsResponses = {
    /**
     * OK
     */
    200: Array<PrimitiveInsight>;
};

export type ListInsightsResponse = ListInsightsResponses[keyof ListInsightsResponses];

export type ReportCodeReferencesData = {
    /**
     * Request body
     */
    body: CodeReferenceReport;
    path: {
        /**
         * The id of the resource.
         */
        id: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/code-references';
};

export type ReportCodeReferencesErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type ReportCodeReferencesError = ReportCodeReferencesErrors[keyof ReportCodeReferencesErrors];

export type ReportCodeReferencesResponses = {
    /**
     * OK
     */
    200: CodeReferenceReportAccepted;
};

export type ReportCodeReferencesResponse = ReportCodeReferencesResponses[keyof ReportCodeReferencesResponses];

export type ReportGuardMetricsData = {
    /**
     * Request body
     */
    body: GuardReport;
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/guard-metrics';
};

export type ReportGuardMetricsErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type ReportGuardMetricsError = ReportGuardMetricsErrors[keyof ReportGuardMetricsErrors];

export type ReportGuardMetricsResponses = {
    /**
     * Accepted: diverted to an approval proposal
     */
    202: GuardReportAccepted;
};

export type ReportGuardMetricsResponse = ReportGuardMetricsResponses[keyof ReportGuardMetricsResponses];

export type ListGuardMetricsData = {
    body?: never;
    path: {
        /**
         * The id of the resource.
         */
        id: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/guard-metrics';
};

export type ListGuardMetricsErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type ListGuardMetricsError = ListGuardMetricsErrors[keyof ListGuardMetricsErrors];

export type ListGuardMetricsResponses = {
    /**
     * OK
     */
    200: Array<GuardMetric>;
};

export type ListGuardMetricsResponse = ListGuardMetricsResponses[keyof ListGuardMetricsResponses];

export type CreateGuardMetricData = {
    /**
     * Request body
     */
    body: CreateGuardMetricRequest;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The id of the resource.
         */
        id: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/guard-metrics';
};

export type CreateGuardMetricErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type CreateGuardMetricError = CreateGuardMetricErrors[keyof CreateGuardMetricErrors];

export type CreateGuardMetricResponses = {
    /**
     * Created
     */
    201: GuardMetric;
};

export type CreateGuardMetricResponse = CreateGuardMetricResponses[keyof CreateGuardMetricResponses];

export type DeleteGuardMetricData = {
    body?: never;
    headers?: {
        'x-audit-reason'?: string;
    };
    path: {
        /**
         * The id of the resource.
         */
        id: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/guard-metrics/{key}';
};

export type DeleteGuardMetricErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type DeleteGuardMetricError = DeleteGuardMetricErrors[keyof DeleteGuardMetricErrors];

export type DeleteGuardMetricResponses = {
    /**
     * No content
     */
    204: void;
};

export type DeleteGuardMetricResponse = DeleteGuardMetricResponses[keyof DeleteGuardMetricResponses];

export type AckRulesetData = {
    /**
     * Request body
     */
    body: RulesetAck;
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
    };
    query?: never;
    url: '/api/v1/envs/{envId}/ruleset-acks';
};

export type AckRulesetErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type AckRulesetError = AckRulesetErrors[keyof AckRulesetErrors];

export type AckRulesetResponses = {
    /**
     * No content
     */
    204: void;
};

export type AckRulesetResponse = AckRulesetResponses[keyof AckRulesetResponses];

export type GetConvergenceData = {
    body?: never;
    path: {
        /**
         * The envId of the resource.
         */
        envId: string;
    };
    query?: {
        /**
         * Instances count when they acknowledged within this many minutes (default 5).
         */
        windowMinutes?: number;
    };
    url: '/api/v1/envs/{envId}/convergence';
};

export type GetConvergenceErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type GetConvergenceError = GetConvergenceErrors[keyof GetConvergenceErrors];

export type GetConvergenceResponses = {
    /**
     * OK
     */
    200: Convergence;
};

export type GetConvergenceResponse = GetConvergenceResponses[keyof GetConvergenceResponses];

export type GetManifestData = {
    body?: never;
    headers?: {
        'if-none-match'?: string;
    };
    path: {
        /**
         * The id of the resource.
         */
        id: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/manifest';
};

export type GetManifestErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type GetManifestError = GetManifestErrors[keyof GetManifestErrors];

export type GetManifestResponses = {
    /**
     * OK
     */
    200: OpenFeatureManifest;
};

export type GetManifestResponse = GetManifestResponses[keyof GetManifestResponses];

export type SyncGetManifestData = {
    body?: never;
    path: {
        /**
         * The id of the resource.
         */
        id: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/openfeature/v0/manifest';
};

export type SyncGetManifestErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type SyncGetManifestError = SyncGetManifestErrors[keyof SyncGetManifestErrors];

export type SyncGetManifestResponses = {
    /**
     * OK
     */
    200: SyncManifest;
};

export type SyncGetManifestResponse = SyncGetManifestResponses[keyof SyncGetManifestResponses];

export type SyncCreateFlagData = {
    /**
     * Request body
     */
    body: SyncCreateFlagRequest;
    path: {
        /**
         * The id of the resource.
         */
        id: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/openfeature/v0/manifest/flags';
};

export type SyncCreateFlagErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type SyncCreateFlagError = SyncCreateFlagErrors[keyof SyncCreateFlagErrors];

export type SyncCreateFlagResponses = {
    /**
     * Created
     */
    201: SyncFlagResponse;
};

export type SyncCreateFlagResponse = SyncCreateFlagResponses[keyof SyncCreateFlagResponses];

export type SyncUpdateFlagData = {
    /**
     * Request body
     */
    body: SyncUpdateFlagRequest;
    path: {
        /**
         * The id of the resource.
         */
        id: string;
        /**
         * The key of the resource.
         */
        key: string;
    };
    query?: never;
    url: '/api/v1/projects/{id}/openfeature/v0/manifest/flags/{key}';
};

export type SyncUpdateFlagErrors = {
    /**
     * Invalid request
     */
    400: ErrorEnvelope;
    /**
     * Not authenticated
     */
    401: ErrorEnvelope;
    /**
     * Not authorized
     */
    403: ErrorEnvelope;
    /**
     * Not found, or another tenant’s resource
     */
    404: ErrorEnvelope;
    /**
     * Conflict
     */
    409: ErrorEnvelope;
    /**
     * Request body too large
     */
    413: ErrorEnvelope;
    /**
     * Unsupported body charset or content encoding
     */
    415: ErrorEnvelope;
    /**
     * Rate limited (see Retry-After)
     */
    429: ErrorEnvelope;
};

export type SyncUpdateFlagError = SyncUpdateFlagErrors[keyof SyncUpdateFlagErrors];

export type SyncUpdateFlagResponses = {
    /**
     * OK
     */
    200: SyncFlagResponse;
};

export type SyncUpdateFlagResponse = SyncUpdateFlagResponses[keyof SyncUpdateFlagResponses];
