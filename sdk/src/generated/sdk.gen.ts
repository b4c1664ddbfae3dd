// GENERATED from openapi.yaml by `npm run sdk:generate`. Do not edit by hand.

import { client } from './client.gen.js';
import type { Client, Options as Options2, TDataShape } from './client/index.js';
import type { AcceptInvitationData, AcceptInvitationErrors, AcceptInvitationResponses, AckRulesetData, AckRulesetErrors, AckRulesetResponses, AddConfigTargetIdsData, AddConfigTargetIdsErrors, AddConfigTargetIdsResponses, AddFlagTargetIdsData, AddFlagTargetIdsErrors, AddFlagTargetIdsResponses, AddSegmentExcludedData, AddSegmentExcludedErrors, AddSegmentExcludedResponses, AddSegmentIncludedData, AddSegmentIncludedErrors, AddSegmentIncludedResponses, AdvanceConfigRolloutData, AdvanceConfigRolloutErrors, AdvanceConfigRolloutResponses, AdvanceFlagRolloutData, AdvanceFlagRolloutErrors, AdvanceFlagRolloutResponses, ApplyProposalData, ApplyProposalErrors, ApplyProposalResponses, ArchiveConfigData, ArchiveConfigErrors, ArchiveConfigResponses, ArchiveFlagData, ArchiveFlagErrors, ArchiveFlagResponses, CancelConfigRolloutData, CancelConfigRolloutErrors, CancelConfigRolloutResponses, CancelFlagRolloutData, CancelFlagRolloutErrors, CancelFlagRolloutResponses, CancelProposalData, CancelProposalErrors, CancelProposalResponses, CheckConfigTargetIdData, CheckConfigTargetIdErrors, CheckConfigTargetIdResponses, CheckFlagTargetIdData, CheckFlagTargetIdErrors, CheckFlagTargetIdResponses, CheckSegmentExcludedData, CheckSegmentExcludedErrors, CheckSegmentExcludedResponses, CheckSegmentIncludedData, CheckSegmentIncludedErrors, CheckSegmentIncludedResponses, ClaimInstallData, ClaimInstallErrors, ClaimInstallResponses, CreateApiKeyData, CreateApiKeyErrors, CreateApiKeyResponses, CreateConfigData, CreateConfigErrors, CreateConfigResponses, CreateEnvironmentData, CreateEnvironmentErrors, CreateEnvironmentResponses, CreateFlagData, CreateFlagErrors, CreateFlagResponses, CreateGuardMetricData, CreateGuardMetricErrors, CreateGuardMetricResponses, CreateInvitationData, CreateInvitationErrors, CreateInvitationResponses, CreateOrgData, CreateOrgErrors, CreateOrgResponses, CreateProjectData, CreateProjectErrors, CreateProjectResponses, CreateRollbackSecretData, CreateRollbackSecretErrors, CreateRollbackSecretResponses, CreateRolloutPlanData, CreateRolloutPlanErrors, CreateRolloutPlanResponses, CreateSegmentData, CreateSegmentErrors, CreateSegmentResponses, CreateWebhookSubscriptionData, CreateWebhookSubscriptionErrors, CreateWebhookSubscriptionResponses, DeleteConfigData, DeleteConfigErrors, DeleteConfigResponses, DeleteConfigRolloutData, DeleteConfigRolloutErrors, DeleteConfigRolloutResponses, DeleteEnvironmentData, DeleteEnvironmentErrors, DeleteEnvironmentResponses, DeleteFlagData, DeleteFlagErrors, DeleteFlagResponses, DeleteFlagRolloutData, DeleteFlagRolloutErrors, DeleteFlagRolloutResponses, DeleteGuardMetricData, DeleteGuardMetricErrors, DeleteGuardMetricResponses, DeleteOrgData, DeleteOrgErrors, DeleteOrgResponses, DeleteProjectData, DeleteProjectErrors, DeleteProjectResponses, DeleteRolloutPlanData, DeleteRolloutPlanErrors, DeleteRolloutPlanResponses, DeleteSegmentData, DeleteSegmentErrors, DeleteSegmentResponses, DeleteWebhookSubscriptionData, DeleteWebhookSubscriptionErrors, DeleteWebhookSubscriptionResponses, EvaluateData, EvaluateErrors, EvaluateResponses, FireConfigRollbackData, FireConfigRollbackErrors, FireConfigRollbackResponses, FireFlagRollbackData, FireFlagRollbackErrors, FireFlagRollbackResponses, GetAuditEventData, GetAuditEventErrors, GetAuditEventResponses, GetClaimStateData, GetClaimStateErrors, GetClaimStateResponses, GetConfigData, GetConfigErrors, GetConfigResponses, GetConfigRolloutData, GetConfigRolloutErrors, GetConfigRolloutGuardData, GetConfigRolloutGuardErrors, GetConfigRolloutGuardResponses, GetConfigRolloutRampData, GetConfigRolloutRampErrors, GetConfigRolloutRampResponses, GetConfigRolloutResponses, GetConfigStateData, GetConfigStateErrors, GetConfigStateResponses, GetConfigUsageData, GetConfigUsageErrors, GetConfigUsageResponses, GetConvergenceData, GetConvergenceErrors, GetConvergenceResponses, GetEnvironmentData, GetEnvironmentErrors, GetEnvironmentResponses, GetFlagData, GetFlagErrors, GetFlagResponses, GetFlagRolloutData, GetFlagRolloutErrors, GetFlagRolloutGuardData, GetFlagRolloutGuardErrors, GetFlagRolloutGuardResponses, GetFlagRolloutRampData, GetFlagRolloutRampErrors, GetFlagRolloutRampResponses, GetFlagRolloutResponses, GetFlagStateData, GetFlagStateErrors, GetFlagStateResponses, GetFlagUsageData, GetFlagUsageErrors, GetFlagUsageResponses, GetInstallStateData, GetInstallStateErrors, GetInstallStateResponses, GetInvitationData, GetInvitationErrors, GetInvitationResponses, GetManifestData, GetManifestErrors, GetManifestResponses, GetOrgData, GetOrgErrors, GetOrgResponses, GetProjectData, GetProjectErrors, GetProjectResponses, GetProposalData, GetProposalErrors, GetProposalResponses, GetRolloutPlanData, GetRolloutPlanErrors, GetRolloutPlanResponses, GetRulesetData, GetRulesetErrors, GetRulesetResponses, GetSegmentData, GetSegmentErrors, GetSegmentReferrersData, GetSegmentReferrersErrors, GetSegmentReferrersResponses, GetSegmentResponses, GetSessionData, GetSessionErrors, GetSessionResponses, GetWebhookSubscriptionData, GetWebhookSubscriptionErrors, GetWebhookSubscriptionResponses, ListApiKeysData, ListApiKeysErrors, ListApiKeysResponses, ListAuditEventsData, ListAuditEventsErrors, ListAuditEventsResponses, ListConfigRollbackFiresData, ListConfigRollbackFiresErrors, ListConfigRollbackFiresResponses, ListConfigsData, ListConfigsErrors, ListConfigsResponses, ListConfigStatesData, ListConfigStatesErrors, ListConfigStatesResponses, ListConfigTargetIdsData, ListConfigTargetIdsErrors, ListConfigTargetIdsResponses, ListEnvironmentsData, ListEnvironmentsErrors, ListEnvironmentsResponses, ListFlagRollbackFiresData, ListFlagRollbackFiresErrors, ListFlagRollbackFiresResponses, ListFlagsData, ListFlagsErrors, ListFlagsResponses, ListFlagStatesData, ListFlagStatesErrors, ListFlagStatesResponses, ListFlagTargetIdsData, ListFlagTargetIdsErrors, ListFlagTargetIdsResponses, ListGuardMetricsData, ListGuardMetricsErrors, ListGuardMetricsResponses, ListInsightsData, ListInsightsErrors, ListInsightsResponses, ListInvitationsData, ListInvitationsErrors, ListInvitationsResponses, ListMembersData, ListMembersErrors, ListMembersResponses, ListProjectsData, ListProjectsErrors, ListProjectsResponses, ListProposalsData, ListProposalsErrors, ListProposalsResponses, ListRollbackFiresData, ListRollbackFiresErrors, ListRollbackFiresResponses, ListRollbackSecretFiresData, ListRollbackSecretFiresErrors, ListRollbackSecretFiresResponses, ListRollbackSecretsData, ListRollbackSecretsErrors, ListRollbackSecretsResponses, ListRolloutMigrationWarningsData, ListRolloutMigrationWarningsErrors, ListRolloutMigrationWarningsResponses, ListRolloutPlansData, ListRolloutPlansErrors, ListRolloutPlansResponses, ListSegmentExcludedData, ListSegmentExcludedErrors, ListSegmentExcludedResponses, ListSegmentIncludedData, ListSegmentIncludedErrors, ListSegmentIncludedResponses, ListSegmentsData, ListSegmentsErrors, ListSegmentsResponses, ListWebhookDeliveriesData, ListWebhookDeliveriesErrors, ListWebhookDeliveriesResponses, ListWebhookSubscriptionsData, ListWebhookSubscriptionsErrors, ListWebhookSubscriptionsResponses, LogoutData, LogoutErrors, LogoutResponses, OfrepEvaluateFlagData, OfrepEvaluateFlagErrors, OfrepEvaluateFlagResponses, OfrepEvaluateFlagsData, OfrepEvaluateFlagsErrors, OfrepEvaluateFlagsResponses, OfrepEventStreamData, OfrepEventStreamErrors, OfrepEventStreamResponses, PauseConfigRolloutData, PauseConfigRolloutErrors, PauseConfigRolloutResponses, PauseFlagRolloutData, PauseFlagRolloutErrors, PauseFlagRolloutResponses, PutConfigRolloutData, PutConfigRolloutErrors, PutConfigRolloutResponses, PutFlagRolloutData, PutFlagRolloutErrors, PutFlagRolloutResponses, RedeemMagicLinkData, RedeemMagicLinkErrors, RedeemMagicLinkResponses, RemoveConfigTargetIdsData, RemoveConfigTargetIdsErrors, RemoveConfigTargetIdsResponses, RemoveFlagTargetIdsData, RemoveFlagTargetIdsErrors, RemoveFlagTargetIdsResponses, RemoveMemberData, RemoveMemberErrors, RemoveMemberResponses, RemoveSegmentExcludedData, RemoveSegmentExcludedErrors, RemoveSegmentExcludedResponses, RemoveSegmentIncludedData, RemoveSegmentIncludedErrors, RemoveSegmentIncludedResponses, ReplaceConfigTargetIdsData, ReplaceConfigTargetIdsErrors, ReplaceConfigTargetIdsResponses, ReplaceFlagTargetIdsData, ReplaceFlagTargetIdsErrors, ReplaceFlagTargetIdsResponses, ReplaceSegmentExcludedData, ReplaceSegmentExcludedErrors, ReplaceSegmentExcludedResponses, ReplaceSegmentIncludedData, ReplaceSegmentIncludedErrors, ReplaceSegmentIncludedResponses, ReportCodeReferencesData, ReportCodeReferencesErrors, ReportCodeReferencesResponses, ReportGuardMetricsData, ReportGuardMetricsErrors, ReportGuardMetricsResponses, ReportUsageData, ReportUsageErrors, ReportUsageResponses, RequestMagicLinkData, RequestMagicLinkErrors, RequestMagicLinkResponses, RestoreConfigData, RestoreConfigErrors, RestoreConfigResponses, RestoreFlagData, RestoreFlagErrors, RestoreFlagResponses, ResumeConfigRolloutData, ResumeConfigRolloutErrors, ResumeConfigRolloutResponses, ResumeFlagRolloutData, ResumeFlagRolloutErrors, ResumeFlagRolloutResponses, RevokeApiKeyData, RevokeApiKeyErrors, RevokeApiKeyResponses, RevokeInvitationData, RevokeInvitationErrors, RevokeInvitationResponses, RevokeRollbackSecretData, RevokeRollbackSecretErrors, RevokeRollbackSecretResponses, RollbackConfigRolloutData, RollbackConfigRolloutErrors, RollbackConfigRolloutResponses, RollbackFlagRolloutData, RollbackFlagRolloutErrors, RollbackFlagRolloutResponses, SetConfigRulesData, SetConfigRulesErrors, SetConfigRulesResponses, SetConfigValueData, SetConfigValueErrors, SetConfigValueResponses, SetFlagRulesData, SetFlagRulesErrors, SetFlagRulesResponses, SetFlagValueData, SetFlagValueErrors, SetFlagValueResponses, SignupData, SignupErrors, SignupResponses, StreamEnvironmentEventsData, StreamEnvironmentEventsErrors, StreamEnvironmentEventsResponses, StreamOrgEventsData, StreamOrgEventsErrors, StreamOrgEventsResponses, StreamRulesetData, StreamRulesetErrors, StreamRulesetResponses, SyncCreateFlagData, SyncCreateFlagErrors, SyncCreateFlagResponses, SyncGetManifestData, SyncGetManifestErrors, SyncGetManifestResponses, SyncUpdateFlagData, SyncUpdateFlagErrors, SyncUpdateFlagResponses, TestWebhookSubscriptionData, TestWebhookSubscriptionErrors, TestWebhookSubscriptionResponses, UpdateConfigData, UpdateConfigErrors, UpdateConfigResponses, UpdateFlagData, UpdateFlagErrors, UpdateFlagResponses, UpdateMemberData, UpdateMemberErrors, UpdateMemberResponses, UpdateProjectData, UpdateProjectErrors, UpdateProjectResponses, UpdateRolloutPlanData, UpdateRolloutPlanErrors, UpdateRolloutPlanResponses, UpdateSegmentData, UpdateSegmentErrors, UpdateSegmentResponses, UpdateWebhookSubscriptionData, UpdateWebhookSubscriptionErrors, UpdateWebhookSubscriptionResponses, WhoamiData, WhoamiErrors, WhoamiResponses } from './types.gen.js';

export type Options<TData extends TDataShape = TDataShape, ThrowOnError extends boolean = boolean, TResponse = unknown> = Options2<TData, ThrowOnError, TResponse> & {
    /**
     * You can provide a client instance returned by `createClient()` instead of
     * individual options. This might be also useful if you want to implement a
     * custom client.
     */
    client?: Client;
    /**
     * You can pass arbitrary values through the `meta` object. This can be
     * used to access values that aren't defined as part of the SDK function.
     */
    meta?: Record<string, unknown>;
};

/**
 * Email a sign-in link
 *
 * Always answers `{sent: true}`, whether or not the address is known. A link (single use, valid 15 minutes) is mailed to an existing user, or to an address with a pending invitation; nothing is mailed for other addresses, nor past 20 requests an hour per client address, 5 an hour per address from one client address, or a second mail to the address within a minute (the link mailed earlier stays valid).
 */
export const requestMagicLink = <ThrowOnError extends boolean = false>(options: Options<RequestMagicLinkData, ThrowOnError>) => (options.client ?? client).post<RequestMagicLinkResponses, RequestMagicLinkErrors, ThrowOnError>({
    url: '/api/v1/auth/magic-link',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Redeem an emailed sign-in link
 *
 * The link a sign-in or signup mail carries. Answers 303 to `/app/` with the `svc_session` cookie, or 303 to `/app/signin?error=<code>` with `magic_link_already_used`, `magic_link_expired`, `magic_link_invalid` or `no_invitation`. A new address with a pending invitation is created and joins the inviting organization(s); a signup link creates its organization.
 */
export const redeemMagicLink = <ThrowOnError extends boolean = false>(options?: Options<RedeemMagicLinkData, ThrowOnError>) => (options?.client ?? client).get<RedeemMagicLinkResponses, RedeemMagicLinkErrors, ThrowOnError>({ url: '/api/v1/auth/link', ...options });

/**
 * Sign up with a new organization
 *
 * Mounted on the hosted topology, or on self-hosted when `SERVICE_PUBLIC_SIGNUP=1`; otherwise 404. Mails a link (same limits as `/auth/magic-link`); the user and the organization, with a slug derived from `orgName`, are created when it is redeemed. `409 slug_unavailable` when that slug is taken now.
 */
export const signup = <ThrowOnError extends boolean = false>(options: Options<SignupData, ThrowOnError>) => (options.client ?? client).post<SignupResponses, SignupErrors, ThrowOnError>({
    url: '/api/v1/auth/signup',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Whether this instance has been claimed and whether public signup is on
 *
 * Mounted on the hosted topology, or on self-hosted when `SERVICE_PUBLIC_SIGNUP=1`; otherwise 404.
 */
export const getInstallState = <ThrowOnError extends boolean = false>(options?: Options<GetInstallStateData, ThrowOnError>) => (options?.client ?? client).get<GetInstallStateResponses, GetInstallStateErrors, ThrowOnError>({ url: '/api/v1/auth/install-state', ...options });

/**
 * Whether this self-hosted instance can still be claimed
 *
 * Self-hosted only (404 elsewhere), like `POST /auth/install-claim`. The dashboard asks it to offer the claim form on a fresh instance, where `/auth/install-state` is not mounted.
 */
export const getClaimState = <ThrowOnError extends boolean = false>(options?: Options<GetClaimStateData, ThrowOnError>) => (options?.client ?? client).get<GetClaimStateResponses, GetClaimStateErrors, ThrowOnError>({ url: '/api/v1/auth/install-claim', ...options });

/**
 * Claim a fresh self-hosted instance
 *
 * Creates the first user, their organization and owner membership in one transaction, and signs them in (sets `svc_session`). Self-hosted only; `409 already_claimed` once any organization exists.
 */
export const claimInstall = <ThrowOnError extends boolean = false>(options: Options<ClaimInstallData, ThrowOnError>) => (options.client ?? client).post<ClaimInstallResponses, ClaimInstallErrors, ThrowOnError>({
    url: '/api/v1/auth/install-claim',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * The current session
 *
 * The current session
 */
export const getSession = <ThrowOnError extends boolean = false>(options?: Options<GetSessionData, ThrowOnError>) => (options?.client ?? client).get<GetSessionResponses, GetSessionErrors, ThrowOnError>({
    security: [{
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }],
    url: '/api/v1/auth/me',
    ...options
});

/**
 * Who the credentials are (an API key or a session)
 *
 * For an API key: the key (scopes, `requiresApproval`, rate limit, expiry; never the token) and its organization, so scripts and agents can check what a key may do before writing. For a session: the same body as `GET /auth/me`. A client key (`pub_…`, public by design) gets `403 scope_denied`: it names neither itself nor its organization.
 */
export const whoami = <ThrowOnError extends boolean = false>(options?: Options<WhoamiData, ThrowOnError>) => (options?.client ?? client).get<WhoamiResponses, WhoamiErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/auth/whoami',
    ...options
});

/**
 * End the current session
 *
 * Deletes the session and clears the cookie. Idempotent: answers 204 without a session too.
 */
export const logout = <ThrowOnError extends boolean = false>(options?: Options<LogoutData, ThrowOnError>) => (options?.client ?? client).post<LogoutResponses, LogoutErrors, ThrowOnError>({
    security: [{
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }],
    url: '/api/v1/auth/logout',
    ...options
});

/**
 * Create an organization
 *
 * The caller becomes its owner. The slug is derived from the name when omitted.
 */
export const createOrg = <ThrowOnError extends boolean = false>(options: Options<CreateOrgData, ThrowOnError>) => (options.client ?? client).post<CreateOrgResponses, CreateOrgErrors, ThrowOnError>({
    security: [{
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }],
    url: '/api/v1/orgs',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Delete an organization and everything in it
 *
 * Owner only. The body repeats the slug: `{"confirm": "<slug>"}`; missing or different is `400 invalid_confirmation` (`fields.confirm`). Projects, environments, flags, configs, rollouts, plans, API keys, rollback secrets and fire history, invitations, memberships, proposals and the audit log of the organization are deleted in one transaction; users stay.
 */
export const deleteOrg = <ThrowOnError extends boolean = false>(options: Options<DeleteOrgData, ThrowOnError>) => (options.client ?? client).delete<DeleteOrgResponses, DeleteOrgErrors, ThrowOnError>({
    security: [{
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }],
    url: '/api/v1/orgs/{slug}',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Get an organization
 *
 * Get an organization
 */
export const getOrg = <ThrowOnError extends boolean = false>(options: Options<GetOrgData, ThrowOnError>) => (options.client ?? client).get<GetOrgResponses, GetOrgErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/orgs/{slug}',
    ...options
});

/**
 * List the members of an organization
 *
 * Any member. Ordered by email.
 */
export const listMembers = <ThrowOnError extends boolean = false>(options: Options<ListMembersData, ThrowOnError>) => (options.client ?? client).get<ListMembersResponses, ListMembersErrors, ThrowOnError>({
    security: [{
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }],
    url: '/api/v1/orgs/{slug}/members',
    ...options
});

/**
 * Remove a member from an organization
 *
 * Admin or owner; any member may remove themselves (leave). Only an owner removes an owner. `409 last_owner_cannot_demote_or_remove` for the last owner.
 */
export const removeMember = <ThrowOnError extends boolean = false>(options: Options<RemoveMemberData, ThrowOnError>) => (options.client ?? client).delete<RemoveMemberResponses, RemoveMemberErrors, ThrowOnError>({
    security: [{
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }],
    url: '/api/v1/orgs/{slug}/members/{userId}',
    ...options
});

/**
 * Change a member's role
 *
 * Admin or owner. Only an owner grants the owner role or changes an owner. `409 last_owner_cannot_demote_or_remove` for the last owner.
 */
export const updateMember = <ThrowOnError extends boolean = false>(options: Options<UpdateMemberData, ThrowOnError>) => (options.client ?? client).patch<UpdateMemberResponses, UpdateMemberErrors, ThrowOnError>({
    security: [{
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }],
    url: '/api/v1/orgs/{slug}/members/{userId}',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * List the invitations of an organization
 *
 * Admin or owner. Pending, used and expired invitations, newest first (revoked ones are gone).
 */
export const listInvitations = <ThrowOnError extends boolean = false>(options: Options<ListInvitationsData, ThrowOnError>) => (options.client ?? client).get<ListInvitationsResponses, ListInvitationsErrors, ThrowOnError>({
    security: [{
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }],
    url: '/api/v1/orgs/{slug}/invitations',
    ...options
});

/**
 * Invite someone to an organization
 *
 * Admin or owner (only an owner invites an owner). Mails `PUBLIC_URL/app/invite/<token>`; the invitation expires after 7 days. `409 already_member`, `409 invitation_pending` (a live invitation exists for that address), `410 invitation_email_locked` (the address belongs to a deleted user).
 */
export const createInvitation = <ThrowOnError extends boolean = false>(options: Options<CreateInvitationData, ThrowOnError>) => (options.client ?? client).post<CreateInvitationResponses, CreateInvitationErrors, ThrowOnError>({
    security: [{
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }],
    url: '/api/v1/orgs/{slug}/invitations',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Revoke an invitation
 *
 * Admin or owner. Its link stops working (404). 204 also when already revoked; `410 invitation_used` once accepted.
 */
export const revokeInvitation = <ThrowOnError extends boolean = false>(options: Options<RevokeInvitationData, ThrowOnError>) => (options.client ?? client).delete<RevokeInvitationResponses, RevokeInvitationErrors, ThrowOnError>({
    security: [{
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }],
    url: '/api/v1/orgs/{slug}/invitations/{id}',
    ...options
});

/**
 * Preview an invitation
 *
 * Unauthenticated: the token from the invitation link is the credential. `404 not_found` for an unknown or revoked token.
 */
export const getInvitation = <ThrowOnError extends boolean = false>(options: Options<GetInvitationData, ThrowOnError>) => (options.client ?? client).get<GetInvitationResponses, GetInvitationErrors, ThrowOnError>({ url: '/api/v1/invitations/{token}', ...options });

/**
 * Accept an invitation and sign in
 *
 * Unauthenticated: the token is the credential. Creates the user if new, adds the membership, marks the invitation used and starts a session (sets `svc_session`), in one transaction. `409 already_member`; `410 invitation_used`, `invitation_expired`, `invitation_email_locked`.
 */
export const acceptInvitation = <ThrowOnError extends boolean = false>(options: Options<AcceptInvitationData, ThrowOnError>) => (options.client ?? client).post<AcceptInvitationResponses, AcceptInvitationErrors, ThrowOnError>({
    url: '/api/v1/invitations/{token}/accept',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * List the projects of an organization
 *
 * An API key restricted to environments lists the projects those environments belong to.
 */
export const listProjects = <ThrowOnError extends boolean = false>(options: Options<ListProjectsData, ThrowOnError>) => (options.client ?? client).get<ListProjectsResponses, ListProjectsErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/orgs/{slug}/projects',
    ...options
});

/**
 * Create a project
 *
 * Admin or owner. `targetIdField` (default `userId`) is the context attribute rollouts bucket on. API keys restricted to environments or resources may not (`403 token_env_out_of_scope` / `token_resource_out_of_scope`).
 */
export const createProject = <ThrowOnError extends boolean = false>(options: Options<CreateProjectData, ThrowOnError>) => (options.client ?? client).post<CreateProjectResponses, CreateProjectErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/orgs/{slug}/projects',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Delete a project and everything in it
 *
 * Admin or owner, signed in or with an unrestricted API key (approval-required keys get `403 approval_not_supported`). The body repeats the key: `{"confirm": "<project key>"}`; missing or different is `400 invalid_confirmation` (`fields.confirm`). Its environments, flags, configs, segments, rollouts and target IDs, plans, rollback secrets and fire history, webhook subscriptions and deliveries, usage and the proposals of its environments are deleted, API keys bound to its environments alone are revoked, in one transaction with the audit row `project.deleted` (the organization's audit log keeps its history); streams of its environments end.
 */
export const deleteProject = <ThrowOnError extends boolean = false>(options: Options<DeleteProjectData, ThrowOnError>) => (options.client ?? client).delete<DeleteProjectResponses, DeleteProjectErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Get a project
 *
 * An API key restricted to environments reads only projects holding one of them (`403 token_env_out_of_scope`).
 */
export const getProject = <ThrowOnError extends boolean = false>(options: Options<GetProjectData, ThrowOnError>) => (options.client ?? client).get<GetProjectResponses, GetProjectErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}',
    ...options
});

/**
 * Rename a project or change its target ID field
 *
 * Admin or owner. The key cannot change. An API key restricted to environments or resources gets `403 token_env_out_of_scope` or `token_resource_out_of_scope`: the change reaches every environment of the project.
 */
export const updateProject = <ThrowOnError extends boolean = false>(options: Options<UpdateProjectData, ThrowOnError>) => (options.client ?? client).patch<UpdateProjectResponses, UpdateProjectErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * List the environments of a project
 *
 * List the environments of a project
 */
export const listEnvironments = <ThrowOnError extends boolean = false>(options: Options<ListEnvironmentsData, ThrowOnError>) => (options.client ?? client).get<ListEnvironmentsResponses, ListEnvironmentsErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/environments',
    ...options
});

/**
 * Create an environment
 *
 * Admin or owner. Every flag and config of the project gets its state in the new environment (value = its default, no rules). The version starts at 0; the ruleset is served from the first write on. An API key restricted to environments or resources gets `403 token_env_out_of_scope` or `token_resource_out_of_scope`: the change reaches every environment of the project.
 */
export const createEnvironment = <ThrowOnError extends boolean = false>(options: Options<CreateEnvironmentData, ThrowOnError>) => (options.client ?? client).post<CreateEnvironmentResponses, CreateEnvironmentErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/environments',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Delete an environment and everything in it
 *
 * Admin or owner, signed in or with an API key unrestricted by environment (approval-required keys get `403 approval_not_supported`). The body repeats the key: `{"confirm": "<environment key>"}`; missing or different is `400 invalid_confirmation` (`fields.confirm`). The flags' and configs' states in it, its rollouts and target IDs, rollback secrets and fire history, usage and proposals are deleted, API keys bound to it alone are revoked (others lose it from their list), in one transaction with the audit row `environment.deleted` (the audit log keeps its history); its streams end. The definitions stay in the project's other environments.
 */
export const deleteEnvironment = <ThrowOnError extends boolean = false>(options: Options<DeleteEnvironmentData, ThrowOnError>) => (options.client ?? client).delete<DeleteEnvironmentResponses, DeleteEnvironmentErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Get an environment (with its current version)
 *
 * Get an environment (with its current version)
 */
export const getEnvironment = <ThrowOnError extends boolean = false>(options: Options<GetEnvironmentData, ThrowOnError>) => (options.client ?? client).get<GetEnvironmentResponses, GetEnvironmentErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}',
    ...options
});

/**
 * List the flag definitions of a project
 *
 * Archived definitions are left out unless `archived` says otherwise.
 */
export const listFlags = <ThrowOnError extends boolean = false>(options: Options<ListFlagsData, ThrowOnError>) => (options.client ?? client).get<ListFlagsResponses, ListFlagsErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/flags',
    ...options
});

/**
 * Create a flag
 *
 * Its state is created in every environment of the project: an API key restricted to environments gets `403 token_env_out_of_scope`; one restricted to resources needs a key its globs match. An archived one keeps its key until it is deleted (`409 key_in_use`).
 */
export const createFlag = <ThrowOnError extends boolean = false>(options: Options<CreateFlagData, ThrowOnError>) => (options.client ?? client).post<CreateFlagResponses, CreateFlagErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/flags',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Delete an archived flag
 *
 * Only an archived flag (`409 primitive_not_archived`), and only when no active or paused rollout and no pending proposal references it (`409 in_use` with the referrers in `fields`). The body repeats the key: `{"confirm": "<key>"}` (`400 invalid_confirmation`). Its states, rollouts, target IDs and usage are deleted in one transaction with the audit row `flag.deleted`; every environment gets a new version. Approval-required keys get `403 approval_not_supported`.
 */
export const deleteFlag = <ThrowOnError extends boolean = false>(options: Options<DeleteFlagData, ThrowOnError>) => (options.client ?? client).delete<DeleteFlagResponses, DeleteFlagErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/flags/{key}',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Get a flag definition (archived ones too)
 *
 * Sends a strong ETag for `If-Match` on the metadata, archive, restore and delete calls; `If-None-Match` answers 304.
 */
export const getFlag = <ThrowOnError extends boolean = false>(options: Options<GetFlagData, ThrowOnError>) => (options.client ?? client).get<GetFlagResponses, GetFlagErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/flags/{key}',
    ...options
});

/**
 * Update a flag's name, description, tags, maintainer, client visibility, metadata or variants
 *
 * Audit action `flag.updated` with the changed fields. `If-Match` with the definition's ETag guards against lost updates (`412 precondition_failed`). Reaches every environment of the project (an API key restricted to environments gets `403 token_env_out_of_scope`); approval-required keys get `403 approval_not_supported`. An archived flag's metadata can still be edited. `variants` that rename, change or remove a variant some environment's value, rule or live rollout (or the default value) uses answer `409 variant_in_use` with those names in `details.variants`.
 */
export const updateFlag = <ThrowOnError extends boolean = false>(options: Options<UpdateFlagData, ThrowOnError>) => (options.client ?? client).patch<UpdateFlagResponses, UpdateFlagErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/flags/{key}',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Archive a flag
 *
 * Hidden from lists by default; every environment then serves its base value to everyone with reason `DISABLED` (rules are kept but not applied), and its values, rules and rollouts cannot change (`409 primitive_archived`). Refused while a rollout of it is active or paused, or a pending proposal targets it: `409 in_use` with the referrers in `fields` (`rollout.<envKey>`, `proposal.<id>`). Audit action `flag.archived`; advances every environment's version. Archiving an archived flag answers it unchanged. Reaches every environment of the project (an API key restricted to environments gets `403 token_env_out_of_scope`); approval-required keys get `403 approval_not_supported`.
 */
export const archiveFlag = <ThrowOnError extends boolean = false>(options: Options<ArchiveFlagData, ThrowOnError>) => (options.client ?? client).post<ArchiveFlagResponses, ArchiveFlagErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/flags/{key}/archive',
    ...options
});

/**
 * Restore an archived flag
 *
 * Its rules apply again and it can be rolled out. Audit action `flag.restored`; advances every environment's version. Restoring a live flag answers it unchanged. Reaches every environment of the project (an API key restricted to environments gets `403 token_env_out_of_scope`); approval-required keys get `403 approval_not_supported`.
 */
export const restoreFlag = <ThrowOnError extends boolean = false>(options: Options<RestoreFlagData, ThrowOnError>) => (options.client ?? client).post<RestoreFlagResponses, RestoreFlagErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/flags/{key}/restore',
    ...options
});

/**
 * List the flags of an environment with their value, rules and rollout
 *
 * List the flags of an environment with their value, rules and rollout
 */
export const listFlagStates = <ThrowOnError extends boolean = false>(options: Options<ListFlagStatesData, ThrowOnError>) => (options.client ?? client).get<ListFlagStatesResponses, ListFlagStatesErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/flags',
    ...options
});

/**
 * Get one flag's value, rules and rollout in an environment
 *
 * Sends a strong ETag; `If-None-Match` answers 304.
 */
export const getFlagState = <ThrowOnError extends boolean = false>(options: Options<GetFlagStateData, ThrowOnError>) => (options.client ?? client).get<GetFlagStateResponses, GetFlagStateErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/flags/{key}',
    ...options
});

/**
 * Set a flag's base value in an environment
 *
 * Audit action `flag.update_value`; advances the environment version. An archived flag answers `409 primitive_archived`.
 */
export const setFlagValue = <ThrowOnError extends boolean = false>(options: Options<SetFlagValueData, ThrowOnError>) => (options.client ?? client).put<SetFlagValueResponses, SetFlagValueErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/flags/{key}/value',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Replace a flag's targeting rules in an environment
 *
 * The first matching rule wins. A segment condition names segments of the project (`400` naming the field when one does not exist). Audit action `flag.update_rules`; advances the environment version. An archived flag answers `409 primitive_archived`.
 */
export const setFlagRules = <ThrowOnError extends boolean = false>(options: Options<SetFlagRulesData, ThrowOnError>) => (options.client ?? client).put<SetFlagRulesResponses, SetFlagRulesErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/flags/{key}/rules',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * List the config definitions of a project
 *
 * Archived definitions are left out unless `archived` says otherwise.
 */
export const listConfigs = <ThrowOnError extends boolean = false>(options: Options<ListConfigsData, ThrowOnError>) => (options.client ?? client).get<ListConfigsResponses, ListConfigsErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/configs',
    ...options
});

/**
 * Create a config
 *
 * Its state is created in every environment of the project: an API key restricted to environments gets `403 token_env_out_of_scope`; one restricted to resources needs a key its globs match. An archived one keeps its key until it is deleted (`409 key_in_use`).
 */
export const createConfig = <ThrowOnError extends boolean = false>(options: Options<CreateConfigData, ThrowOnError>) => (options.client ?? client).post<CreateConfigResponses, CreateConfigErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/configs',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Delete an archived config
 *
 * Only an archived config (`409 primitive_not_archived`), and only when no active or paused rollout and no pending proposal references it (`409 in_use` with the referrers in `fields`). The body repeats the key: `{"confirm": "<key>"}` (`400 invalid_confirmation`). Its states, rollouts, target IDs and usage are deleted in one transaction with the audit row `config.deleted`; every environment gets a new version. Approval-required keys get `403 approval_not_supported`.
 */
export const deleteConfig = <ThrowOnError extends boolean = false>(options: Options<DeleteConfigData, ThrowOnError>) => (options.client ?? client).delete<DeleteConfigResponses, DeleteConfigErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/configs/{key}',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Get a config definition (archived ones too)
 *
 * Sends a strong ETag for `If-Match` on the metadata, archive, restore and delete calls; `If-None-Match` answers 304.
 */
export const getConfig = <ThrowOnError extends boolean = false>(options: Options<GetConfigData, ThrowOnError>) => (options.client ?? client).get<GetConfigResponses, GetConfigErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/configs/{key}',
    ...options
});

/**
 * Update a config's name, description, tags, maintainer, client visibility, metadata or variants
 *
 * Audit action `config.updated` with the changed fields. `If-Match` with the definition's ETag guards against lost updates (`412 precondition_failed`). Reaches every environment of the project (an API key restricted to environments gets `403 token_env_out_of_scope`); approval-required keys get `403 approval_not_supported`. An archived config's metadata can still be edited. `variants` that rename, change or remove a variant some environment's value, rule or live rollout (or the default value) uses answer `409 variant_in_use` with those names in `details.variants`.
 */
export const updateConfig = <ThrowOnError extends boolean = false>(options: Options<UpdateConfigData, ThrowOnError>) => (options.client ?? client).patch<UpdateConfigResponses, UpdateConfigErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/configs/{key}',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Archive a config
 *
 * Hidden from lists by default; every environment then serves its base value to everyone with reason `DISABLED` (rules are kept but not applied), and its values, rules and rollouts cannot change (`409 primitive_archived`). Refused while a rollout of it is active or paused, or a pending proposal targets it: `409 in_use` with the referrers in `fields` (`rollout.<envKey>`, `proposal.<id>`). Audit action `config.archived`; advances every environment's version. Archiving an archived config answers it unchanged. Reaches every environment of the project (an API key restricted to environments gets `403 token_env_out_of_scope`); approval-required keys get `403 approval_not_supported`.
 */
export const archiveConfig = <ThrowOnError extends boolean = false>(options: Options<ArchiveConfigData, ThrowOnError>) => (options.client ?? client).post<ArchiveConfigResponses, ArchiveConfigErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/configs/{key}/archive',
    ...options
});

/**
 * Restore an archived config
 *
 * Its rules apply again and it can be rolled out. Audit action `config.restored`; advances every environment's version. Restoring a live config answers it unchanged. Reaches every environment of the project (an API key restricted to environments gets `403 token_env_out_of_scope`); approval-required keys get `403 approval_not_supported`.
 */
export const restoreConfig = <ThrowOnError extends boolean = false>(options: Options<RestoreConfigData, ThrowOnError>) => (options.client ?? client).post<RestoreConfigResponses, RestoreConfigErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/configs/{key}/restore',
    ...options
});

/**
 * List the configs of an environment with their value, rules and rollout
 *
 * List the configs of an environment with their value, rules and rollout
 */
export const listConfigStates = <ThrowOnError extends boolean = false>(options: Options<ListConfigStatesData, ThrowOnError>) => (options.client ?? client).get<ListConfigStatesResponses, ListConfigStatesErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/configs',
    ...options
});

/**
 * Get one config's value, rules and rollout in an environment
 *
 * Sends a strong ETag; `If-None-Match` answers 304.
 */
export const getConfigState = <ThrowOnError extends boolean = false>(options: Options<GetConfigStateData, ThrowOnError>) => (options.client ?? client).get<GetConfigStateResponses, GetConfigStateErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/configs/{key}',
    ...options
});

/**
 * Set a config's base value in an environment
 *
 * Audit action `config.update_value`; advances the environment version. An archived config answers `409 primitive_archived`.
 */
export const setConfigValue = <ThrowOnError extends boolean = false>(options: Options<SetConfigValueData, ThrowOnError>) => (options.client ?? client).put<SetConfigValueResponses, SetConfigValueErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/configs/{key}/value',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Replace a config's targeting rules in an environment
 *
 * The first matching rule wins. A segment condition names segments of the project (`400` naming the field when one does not exist). Audit action `config.update_rules`; advances the environment version. An archived config answers `409 primitive_archived`.
 */
export const setConfigRules = <ThrowOnError extends boolean = false>(options: Options<SetConfigRulesData, ThrowOnError>) => (options.client ?? client).put<SetConfigRulesResponses, SetConfigRulesErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/configs/{key}/rules',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Cancel the flag's rollout (same as POST cancel)
 *
 * Cancels the flag's rollout, as POST cancel does. An approval-required API key gets `202` with the stored proposal instead (`Location: /api/v1/proposals/{id}`); nothing changes until an admin applies it. An archived flag or config answers `409 primitive_archived` (restore it first).
 */
export const deleteFlagRollout = <ThrowOnError extends boolean = false>(options: Options<DeleteFlagRolloutData, ThrowOnError>) => (options.client ?? client).delete<DeleteFlagRolloutResponses, DeleteFlagRolloutErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/flags/{key}/rollout',
    ...options
});

/**
 * Get the flag's rollout in an environment
 *
 * The live rollout (active or paused), else the most recent one. Sends a strong ETag.
 */
export const getFlagRollout = <ThrowOnError extends boolean = false>(options: Options<GetFlagRolloutData, ThrowOnError>) => (options.client ?? client).get<GetFlagRolloutResponses, GetFlagRolloutErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/flags/{key}/rollout',
    ...options
});

/**
 * Start or edit the flag's rollout
 *
 * Idempotent: a body that changes nothing returns the rollout unchanged (no audit row, no version bump). A PUT after a completed or cancelled rollout starts a new one. The seed is locked once percent is above 0 (`rollout_seed_locked`). Reaching 100% (by this PUT, advance, resume or a scheduled step) completes the rollout in the same transaction: its `newValue` overwrites the flag's base value in the environment (audited as `flag.update_value`), and evaluation ignores the rollout from then on. A rollout without `newValue` (gating the rules) leaves the base value as it is and stops gating the rules. An approval-required API key gets `202` with the stored proposal instead (`Location: /api/v1/proposals/{id}`); nothing changes until an admin applies it. An archived flag or config answers `409 primitive_archived` (restore it first).
 */
export const putFlagRollout = <ThrowOnError extends boolean = false>(options: Options<PutFlagRolloutData, ThrowOnError>) => (options.client ?? client).put<PutFlagRolloutResponses, PutFlagRolloutErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/flags/{key}/rollout',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Get the ramp of the flag's rollout: what happened and what the plan has in store
 *
 * The current rollout (as GET rollout finds it) on a time line as of now: `done` segments and marks from its recorded transitions (the audit rows of its state changes, with their actual times), `planned` ones projected from its plan snapshot the way the scheduler runs it (exact holds, blackout days in the plan’s time zone, a stop before each step that requires approval). Not cached: the projection moves with the clock. Needs read access, as GET rollout; `404` when there is no rollout.
 */
export const getFlagRolloutRamp = <ThrowOnError extends boolean = false>(options: Options<GetFlagRolloutRampData, ThrowOnError>) => (options.client ?? client).get<GetFlagRolloutRampResponses, GetFlagRolloutRampErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/flags/{key}/rollout/ramp',
    ...options
});

/**
 * Get the guard of the flag's rollout: the gate's checklist and each metric's evidence
 *
 * The current rollout (as GET rollout finds it) as its guard sees it now (docs/guards.md): the guarded step it holds at with the checks the scheduler makes once a minute (hold, units per arm, sample-ratio mismatch, each metric's evidence and estimate with their history by minute), and `lastStop`, the check that last stopped it. Not cached. Needs read access, as GET rollout; `404` when there is no rollout.
 */
export const getFlagRolloutGuard = <ThrowOnError extends boolean = false>(options: Options<GetFlagRolloutGuardData, ThrowOnError>) => (options.client ?? client).get<GetFlagRolloutGuardResponses, GetFlagRolloutGuardErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/flags/{key}/rollout/guard',
    ...options
});

/**
 * Pause the flag's rollout
 *
 * Admission continues at the held percent. Idempotent. An approval-required API key gets `202` with the stored proposal instead (`Location: /api/v1/proposals/{id}`); nothing changes until an admin applies it. An archived flag or config answers `409 primitive_archived` (restore it first).
 */
export const pauseFlagRollout = <ThrowOnError extends boolean = false>(options: Options<PauseFlagRolloutData, ThrowOnError>) => (options.client ?? client).post<PauseFlagRolloutResponses, PauseFlagRolloutErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/flags/{key}/rollout/pause',
    ...options
});

/**
 * Resume the flag's paused rollout
 *
 * From a user pause: the hold restarts. From an approval gate: the gated step is entered (`rollout.approval_resolved`). From an automatic rollback: back to the percent it was rolled back from. `409 rollout_not_paused` otherwise. An approval-required API key gets `202` with the stored proposal instead (`Location: /api/v1/proposals/{id}`); nothing changes until an admin applies it. An archived flag or config answers `409 primitive_archived` (restore it first).
 */
export const resumeFlagRollout = <ThrowOnError extends boolean = false>(options: Options<ResumeFlagRolloutData, ThrowOnError>) => (options.client ?? client).post<ResumeFlagRolloutResponses, ResumeFlagRolloutErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/flags/{key}/rollout/resume',
    ...options
});

/**
 * Cancel the flag's rollout
 *
 * Admission stops and the row is kept. Idempotent. An approval-required API key gets `202` with the stored proposal instead (`Location: /api/v1/proposals/{id}`); nothing changes until an admin applies it. An archived flag or config answers `409 primitive_archived` (restore it first).
 */
export const cancelFlagRollout = <ThrowOnError extends boolean = false>(options: Options<CancelFlagRolloutData, ThrowOnError>) => (options.client ?? client).post<CancelFlagRolloutResponses, CancelFlagRolloutErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/flags/{key}/rollout/cancel',
    ...options
});

/**
 * Advance the flag's rollout to its next ramp step
 *
 * Ignores holds, blackout days and approval gates (operator override). `409 rollout_already_at_final_step` when there is no next step. An approval-required API key gets `202` with the stored proposal instead (`Location: /api/v1/proposals/{id}`); nothing changes until an admin applies it. An archived flag or config answers `409 primitive_archived` (restore it first).
 */
export const advanceFlagRollout = <ThrowOnError extends boolean = false>(options: Options<AdvanceFlagRolloutData, ThrowOnError>) => (options.client ?? client).post<AdvanceFlagRolloutResponses, AdvanceFlagRolloutErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/flags/{key}/rollout/advance',
    ...options
});

/**
 * Roll back the flag's rollout now (kill switch)
 *
 * The same state change as an automatic rollback: the live rollout pauses at 0% (`pausedReason: auto_rollback`) and remembers the percent it admitted in `rolledBackFromPercent`, so POST resume returns to it. Audited as `rollout.rolled_back`; reaches SDKs like any write. `X-Audit-Reason` is required: without it (or with only spaces) the answer is `400 invalid_request` with `fields["x-audit-reason"]`, checked after the caller is authorized. Never diverted to a proposal: an approval-required API key with the write action rolls back directly, since stopping exposure must not wait for an approver. `409 rollout_nothing_to_roll_back` when the rollout is completed, cancelled or already rolled back.
 */
export const rollbackFlagRollout = <ThrowOnError extends boolean = false>(options: Options<RollbackFlagRolloutData, ThrowOnError>) => (options.client ?? client).post<RollbackFlagRolloutResponses, RollbackFlagRolloutErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/flags/{key}/rollout/rollback',
    ...options
});

/**
 * Add IDs to the flag rollout's allow-list
 *
 * Up to 100,000 IDs per request; duplicates are ignored and `added` counts only new IDs. An approval-required API key gets `202` with the stored proposal instead (`Location: /api/v1/proposals/{id}`); nothing changes until an admin applies it. An archived flag or config answers `409 primitive_archived` (restore it first).
 */
export const addFlagTargetIds = <ThrowOnError extends boolean = false>(options: Options<AddFlagTargetIdsData, ThrowOnError>) => (options.client ?? client).post<AddFlagTargetIdsResponses, AddFlagTargetIdsErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/flags/{key}/rollout/target-ids/add',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Remove IDs from the flag rollout's allow-list
 *
 * Up to 100,000 IDs per request; absent IDs are skipped. An approval-required API key gets `202` with the stored proposal instead (`Location: /api/v1/proposals/{id}`); nothing changes until an admin applies it. An archived flag or config answers `409 primitive_archived` (restore it first).
 */
export const removeFlagTargetIds = <ThrowOnError extends boolean = false>(options: Options<RemoveFlagTargetIdsData, ThrowOnError>) => (options.client ?? client).post<RemoveFlagTargetIdsResponses, RemoveFlagTargetIdsErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/flags/{key}/rollout/target-ids/remove',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Replace the flag rollout's whole allow-list atomically
 *
 * Up to 1,000,000 IDs (request bodies of the target-ID endpoints may reach 64 MiB). An approval-required API key gets `202` with the stored proposal instead (`Location: /api/v1/proposals/{id}`); nothing changes until an admin applies it. An archived flag or config answers `409 primitive_archived` (restore it first).
 */
export const replaceFlagTargetIds = <ThrowOnError extends boolean = false>(options: Options<ReplaceFlagTargetIdsData, ThrowOnError>) => (options.client ?? client).post<ReplaceFlagTargetIdsResponses, ReplaceFlagTargetIdsErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/flags/{key}/rollout/target-ids/replace',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * List the flag rollout's allow-list, ordered by ID
 *
 * `limit` 1–10,000 (default 1000); `nextCursor` is present only when the page is full.
 */
export const listFlagTargetIds = <ThrowOnError extends boolean = false>(options: Options<ListFlagTargetIdsData, ThrowOnError>) => (options.client ?? client).get<ListFlagTargetIdsResponses, ListFlagTargetIdsErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/flags/{key}/rollout/target-ids',
    ...options
});

/**
 * Whether an ID is on the flag rollout's allow-list
 *
 * Whether an ID is on the flag rollout's allow-list
 */
export const checkFlagTargetId = <ThrowOnError extends boolean = false>(options: Options<CheckFlagTargetIdData, ThrowOnError>) => (options.client ?? client).get<CheckFlagTargetIdResponses, CheckFlagTargetIdErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/flags/{key}/rollout/target-ids/contains/{targetId}',
    ...options
});

/**
 * Cancel the config's rollout (same as POST cancel)
 *
 * Cancels the config's rollout, as POST cancel does. An approval-required API key gets `202` with the stored proposal instead (`Location: /api/v1/proposals/{id}`); nothing changes until an admin applies it. An archived flag or config answers `409 primitive_archived` (restore it first).
 */
export const deleteConfigRollout = <ThrowOnError extends boolean = false>(options: Options<DeleteConfigRolloutData, ThrowOnError>) => (options.client ?? client).delete<DeleteConfigRolloutResponses, DeleteConfigRolloutErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/configs/{key}/rollout',
    ...options
});

/**
 * Get the config's rollout in an environment
 *
 * The live rollout (active or paused), else the most recent one. Sends a strong ETag.
 */
export const getConfigRollout = <ThrowOnError extends boolean = false>(options: Options<GetConfigRolloutData, ThrowOnError>) => (options.client ?? client).get<GetConfigRolloutResponses, GetConfigRolloutErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/configs/{key}/rollout',
    ...options
});

/**
 * Start or edit the config's rollout
 *
 * Idempotent: a body that changes nothing returns the rollout unchanged (no audit row, no version bump). A PUT after a completed or cancelled rollout starts a new one. The seed is locked once percent is above 0 (`rollout_seed_locked`). Reaching 100% (by this PUT, advance, resume or a scheduled step) completes the rollout in the same transaction: its `newValue` overwrites the config's base value in the environment (audited as `config.update_value`), and evaluation ignores the rollout from then on. A rollout without `newValue` (gating the rules) leaves the base value as it is and stops gating the rules. An approval-required API key gets `202` with the stored proposal instead (`Location: /api/v1/proposals/{id}`); nothing changes until an admin applies it. An archived flag or config answers `409 primitive_archived` (restore it first).
 */
export const putConfigRollout = <ThrowOnError extends boolean = false>(options: Options<PutConfigRolloutData, ThrowOnError>) => (options.client ?? client).put<PutConfigRolloutResponses, PutConfigRolloutErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/configs/{key}/rollout',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Get the ramp of the config's rollout: what happened and what the plan has in store
 *
 * The current rollout (as GET rollout finds it) on a time line as of now: `done` segments and marks from its recorded transitions (the audit rows of its state changes, with their actual times), `planned` ones projected from its plan snapshot the way the scheduler runs it (exact holds, blackout days in the plan’s time zone, a stop before each step that requires approval). Not cached: the projection moves with the clock. Needs read access, as GET rollout; `404` when there is no rollout.
 */
export const getConfigRolloutRamp = <ThrowOnError extends boolean = false>(options: Options<GetConfigRolloutRampData, ThrowOnError>) => (options.client ?? client).get<GetConfigRolloutRampResponses, GetConfigRolloutRampErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/configs/{key}/rollout/ramp',
    ...options
});

/**
 * Get the guard of the config's rollout: the gate's checklist and each metric's evidence
 *
 * The current rollout (as GET rollout finds it) as its guard sees it now (docs/guards.md): the guarded step it holds at with the checks the scheduler makes once a minute (hold, units per arm, sample-ratio mismatch, each metric's evidence and estimate with their history by minute), and `lastStop`, the check that last stopped it. Not cached. Needs read access, as GET rollout; `404` when there is no rollout.
 */
export const getConfigRolloutGuard = <ThrowOnError extends boolean = false>(options: Options<GetConfigRolloutGuardData, ThrowOnError>) => (options.client ?? client).get<GetConfigRolloutGuardResponses, GetConfigRolloutGuardErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/configs/{key}/rollout/guard',
    ...options
});

/**
 * Pause the config's rollout
 *
 * Admission continues at the held percent. Idempotent. An approval-required API key gets `202` with the stored proposal instead (`Location: /api/v1/proposals/{id}`); nothing changes until an admin applies it. An archived flag or config answers `409 primitive_archived` (restore it first).
 */
export const pauseConfigRollout = <ThrowOnError extends boolean = false>(options: Options<PauseConfigRolloutData, ThrowOnError>) => (options.client ?? client).post<PauseConfigRolloutResponses, PauseConfigRolloutErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/configs/{key}/rollout/pause',
    ...options
});

/**
 * Resume the config's paused rollout
 *
 * From a user pause: the hold restarts. From an approval gate: the gated step is entered (`rollout.approval_resolved`). From an automatic rollback: back to the percent it was rolled back from. `409 rollout_not_paused` otherwise. An approval-required API key gets `202` with the stored proposal instead (`Location: /api/v1/proposals/{id}`); nothing changes until an admin applies it. An archived flag or config answers `409 primitive_archived` (restore it first).
 */
export const resumeConfigRollout = <ThrowOnError extends boolean = false>(options: Options<ResumeConfigRolloutData, ThrowOnError>) => (options.client ?? client).post<ResumeConfigRolloutResponses, ResumeConfigRolloutErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/configs/{key}/rollout/resume',
    ...options
});

/**
 * Cancel the config's rollout
 *
 * Admission stops and the row is kept. Idempotent. An approval-required API key gets `202` with the stored proposal instead (`Location: /api/v1/proposals/{id}`); nothing changes until an admin applies it. An archived flag or config answers `409 primitive_archived` (restore it first).
 */
export const cancelConfigRollout = <ThrowOnError extends boolean = false>(options: Options<CancelConfigRolloutData, ThrowOnError>) => (options.client ?? client).post<CancelConfigRolloutResponses, CancelConfigRolloutErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/configs/{key}/rollout/cancel',
    ...options
});

/**
 * Advance the config's rollout to its next ramp step
 *
 * Ignores holds, blackout days and approval gates (operator override). `409 rollout_already_at_final_step` when there is no next step. An approval-required API key gets `202` with the stored proposal instead (`Location: /api/v1/proposals/{id}`); nothing changes until an admin applies it. An archived flag or config answers `409 primitive_archived` (restore it first).
 */
export const advanceConfigRollout = <ThrowOnError extends boolean = false>(options: Options<AdvanceConfigRolloutData, ThrowOnError>) => (options.client ?? client).post<AdvanceConfigRolloutResponses, AdvanceConfigRolloutErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/configs/{key}/rollout/advance',
    ...options
});

/**
 * Roll back the config's rollout now (kill switch)
 *
 * The same state change as an automatic rollback: the live rollout pauses at 0% (`pausedReason: auto_rollback`) and remembers the percent it admitted in `rolledBackFromPercent`, so POST resume returns to it. Audited as `rollout.rolled_back`; reaches SDKs like any write. `X-Audit-Reason` is required: without it (or with only spaces) the answer is `400 invalid_request` with `fields["x-audit-reason"]`, checked after the caller is authorized. Never diverted to a proposal: an approval-required API key with the write action rolls back directly, since stopping exposure must not wait for an approver. `409 rollout_nothing_to_roll_back` when the rollout is completed, cancelled or already rolled back.
 */
export const rollbackConfigRollout = <ThrowOnError extends boolean = false>(options: Options<RollbackConfigRolloutData, ThrowOnError>) => (options.client ?? client).post<RollbackConfigRolloutResponses, RollbackConfigRolloutErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/configs/{key}/rollout/rollback',
    ...options
});

/**
 * Add IDs to the config rollout's allow-list
 *
 * Up to 100,000 IDs per request; duplicates are ignored and `added` counts only new IDs. An approval-required API key gets `202` with the stored proposal instead (`Location: /api/v1/proposals/{id}`); nothing changes until an admin applies it. An archived flag or config answers `409 primitive_archived` (restore it first).
 */
export const addConfigTargetIds = <ThrowOnError extends boolean = false>(options: Options<AddConfigTargetIdsData, ThrowOnError>) => (options.client ?? client).post<AddConfigTargetIdsResponses, AddConfigTargetIdsErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/configs/{key}/rollout/target-ids/add',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Remove IDs from the config rollout's allow-list
 *
 * Up to 100,000 IDs per request; absent IDs are skipped. An approval-required API key gets `202` with the stored proposal instead (`Location: /api/v1/proposals/{id}`); nothing changes until an admin applies it. An archived flag or config answers `409 primitive_archived` (restore it first).
 */
export const removeConfigTargetIds = <ThrowOnError extends boolean = false>(options: Options<RemoveConfigTargetIdsData, ThrowOnError>) => (options.client ?? client).post<RemoveConfigTargetIdsResponses, RemoveConfigTargetIdsErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/configs/{key}/rollout/target-ids/remove',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Replace the config rollout's whole allow-list atomically
 *
 * Up to 1,000,000 IDs (request bodies of the target-ID endpoints may reach 64 MiB). An approval-required API key gets `202` with the stored proposal instead (`Location: /api/v1/proposals/{id}`); nothing changes until an admin applies it. An archived flag or config answers `409 primitive_archived` (restore it first).
 */
export const replaceConfigTargetIds = <ThrowOnError extends boolean = false>(options: Options<ReplaceConfigTargetIdsData, ThrowOnError>) => (options.client ?? client).post<ReplaceConfigTargetIdsResponses, ReplaceConfigTargetIdsErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/configs/{key}/rollout/target-ids/replace',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * List the config rollout's allow-list, ordered by ID
 *
 * `limit` 1–10,000 (default 1000); `nextCursor` is present only when the page is full.
 */
export const listConfigTargetIds = <ThrowOnError extends boolean = false>(options: Options<ListConfigTargetIdsData, ThrowOnError>) => (options.client ?? client).get<ListConfigTargetIdsResponses, ListConfigTargetIdsErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/configs/{key}/rollout/target-ids',
    ...options
});

/**
 * Whether an ID is on the config rollout's allow-list
 *
 * Whether an ID is on the config rollout's allow-list
 */
export const checkConfigTargetId = <ThrowOnError extends boolean = false>(options: Options<CheckConfigTargetIdData, ThrowOnError>) => (options.client ?? client).get<CheckConfigTargetIdResponses, CheckConfigTargetIdErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/configs/{key}/rollout/target-ids/contains/{targetId}',
    ...options
});

/**
 * List the rollout plans of a project
 *
 * List the rollout plans of a project
 */
export const listRolloutPlans = <ThrowOnError extends boolean = false>(options: Options<ListRolloutPlansData, ThrowOnError>) => (options.client ?? client).get<ListRolloutPlansResponses, ListRolloutPlansErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/rollout-plans',
    ...options
});

/**
 * Create a rollout plan
 *
 * Ramp: 1–32 steps, percents strictly increasing within (0, 100], non-final steps hold 60–2,592,000 s, the final step holds 0, `requiresApproval` only with cadence auto; failures answer `400 rollout_plan_invalid_ramp` with `fields`. API keys restricted to environments or resources may not create, edit or delete plans (`403 token_env_out_of_scope` / `token_resource_out_of_scope`).
 */
export const createRolloutPlan = <ThrowOnError extends boolean = false>(options: Options<CreateRolloutPlanData, ThrowOnError>) => (options.client ?? client).post<CreateRolloutPlanResponses, CreateRolloutPlanErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/rollout-plans',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Delete a rollout plan
 *
 * Idempotent on an already-deleted plan. `409 rollout_plan_in_use` while a live rollout references it. API keys restricted to environments or resources may not create, edit or delete plans (`403 token_env_out_of_scope` / `token_resource_out_of_scope`).
 */
export const deleteRolloutPlan = <ThrowOnError extends boolean = false>(options: Options<DeleteRolloutPlanData, ThrowOnError>) => (options.client ?? client).delete<DeleteRolloutPlanResponses, DeleteRolloutPlanErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/rollout-plans/{planKey}',
    ...options
});

/**
 * Get a rollout plan
 *
 * Get a rollout plan
 */
export const getRolloutPlan = <ThrowOnError extends boolean = false>(options: Options<GetRolloutPlanData, ThrowOnError>) => (options.client ?? client).get<GetRolloutPlanResponses, GetRolloutPlanErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/rollout-plans/{planKey}',
    ...options
});

/**
 * Edit a rollout plan
 *
 * Rollouts already attached keep their snapshot; rollouts attached afterwards use the new shape. API keys restricted to environments or resources may not create, edit or delete plans (`403 token_env_out_of_scope` / `token_resource_out_of_scope`).
 */
export const updateRolloutPlan = <ThrowOnError extends boolean = false>(options: Options<UpdateRolloutPlanData, ThrowOnError>) => (options.client ?? client).patch<UpdateRolloutPlanResponses, UpdateRolloutPlanErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/rollout-plans/{planKey}',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Rollouts affected by the migration from per-rule rollout percentages
 *
 * Session, admin or owner.
 */
export const listRolloutMigrationWarnings = <ThrowOnError extends boolean = false>(options: Options<ListRolloutMigrationWarningsData, ThrowOnError>) => (options.client ?? client).get<ListRolloutMigrationWarningsResponses, ListRolloutMigrationWarningsErrors, ThrowOnError>({
    security: [{
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }],
    url: '/api/v1/orgs/{slug}/rollouts/migration-warnings',
    ...options
});

/**
 * The ruleset an SDK evaluates locally
 *
 * Gzip when accepted, strong ETag, `If-None-Match` → 304. `503 ruleset_not_cached` (with `Retry-After: 1`) until the environment’s first write.
 */
export const getRuleset = <ThrowOnError extends boolean = false>(options: Options<GetRulesetData, ThrowOnError>) => (options.client ?? client).get<GetRulesetResponses, GetRulesetErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/ruleset',
    ...options
});

/**
 * Server-sent events announcing each new ruleset version
 *
 * An event `ruleset` with data `{"version": n}` on connect and after every committed write in the environment, from any server instance; a comment heartbeat every 15 s.
 */
export const streamRuleset = <ThrowOnError extends boolean = false>(options: Options<StreamRulesetData, ThrowOnError>) => (options.client ?? client).get<StreamRulesetResponses, StreamRulesetErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/ruleset/stream',
    ...options
});

/**
 * Evaluate flags and configs for one context on the server
 *
 * Uses the same evaluator as the SDK’s local evaluation.
 */
export const evaluate = <ThrowOnError extends boolean = false>(options: Options<EvaluateData, ThrowOnError>) => (options.client ?? client).post<EvaluateResponses, EvaluateErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/evaluate',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * List the rollback webhook secrets of an environment (revoked included)
 *
 * List the rollback webhook secrets of an environment (revoked included)
 */
export const listRollbackSecrets = <ThrowOnError extends boolean = false>(options: Options<ListRollbackSecretsData, ThrowOnError>) => (options.client ?? client).get<ListRollbackSecretsResponses, ListRollbackSecretsErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/rollback-webhook-secrets',
    ...options
});

/**
 * Mint a rollback webhook secret
 *
 * Session, admin or owner. At most 20 live secrets per environment (`quota_exceeded`).
 */
export const createRollbackSecret = <ThrowOnError extends boolean = false>(options: Options<CreateRollbackSecretData, ThrowOnError>) => (options.client ?? client).post<CreateRollbackSecretResponses, CreateRollbackSecretErrors, ThrowOnError>({
    security: [{
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }],
    url: '/api/v1/envs/{envId}/rollback-webhook-secrets',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Revoke a rollback webhook secret
 *
 * Session, admin or owner. 204 also when already revoked; the name can then be reused.
 */
export const revokeRollbackSecret = <ThrowOnError extends boolean = false>(options: Options<RevokeRollbackSecretData, ThrowOnError>) => (options.client ?? client).delete<RevokeRollbackSecretResponses, RevokeRollbackSecretErrors, ThrowOnError>({
    security: [{
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }],
    url: '/api/v1/envs/{envId}/rollback-webhook-secrets/{id}',
    ...options
});

/**
 * Fire an automatic rollback of a flag's rollout (for alerting tools)
 *
 * Authenticated by a rollback webhook secret of the environment (`Authorization: Bearer svcrb_…`). Pauses the live rollout at 0% (`auto_rollback`); repeated fires are no-ops. The URL is stable across pauses, resumes and new rollouts. Body optional, at most 16 KiB. Capped at 60 fires a minute per rollout and 300 per secret.
 */
export const fireFlagRollback = <ThrowOnError extends boolean = false>(options: Options<FireFlagRollbackData, ThrowOnError>) => (options.client ?? client).post<FireFlagRollbackResponses, FireFlagRollbackErrors, ThrowOnError>({
    security: [{ scheme: 'bearer', type: 'http' }],
    url: '/api/v1/webhooks/rollback/envs/{envId}/flags/{key}',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Fire an automatic rollback of a config's rollout (for alerting tools)
 *
 * Authenticated by a rollback webhook secret of the environment (`Authorization: Bearer svcrb_…`). Pauses the live rollout at 0% (`auto_rollback`); repeated fires are no-ops. The URL is stable across pauses, resumes and new rollouts. Body optional, at most 16 KiB. Capped at 60 fires a minute per rollout and 300 per secret.
 */
export const fireConfigRollback = <ThrowOnError extends boolean = false>(options: Options<FireConfigRollbackData, ThrowOnError>) => (options.client ?? client).post<FireConfigRollbackResponses, FireConfigRollbackErrors, ThrowOnError>({
    security: [{ scheme: 'bearer', type: 'http' }],
    url: '/api/v1/webhooks/rollback/envs/{envId}/configs/{key}',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Rollback fire history of an environment
 *
 * Newest first; `limit` 1–200 (default 50); `nextCursor` only when the page is full.
 */
export const listRollbackFires = <ThrowOnError extends boolean = false>(options: Options<ListRollbackFiresData, ThrowOnError>) => (options.client ?? client).get<ListRollbackFiresResponses, ListRollbackFiresErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/rollback-fires',
    ...options
});

/**
 * Rollback fire history of one secret
 *
 * Newest first; `limit` 1–200 (default 50); `nextCursor` only when the page is full.
 */
export const listRollbackSecretFires = <ThrowOnError extends boolean = false>(options: Options<ListRollbackSecretFiresData, ThrowOnError>) => (options.client ?? client).get<ListRollbackSecretFiresResponses, ListRollbackSecretFiresErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/rollback-webhook-secrets/{id}/fires',
    ...options
});

/**
 * Rollback fire history of a flag's rollouts
 *
 * Newest first; `limit` 1–200 (default 50); `nextCursor` only when the page is full.
 */
export const listFlagRollbackFires = <ThrowOnError extends boolean = false>(options: Options<ListFlagRollbackFiresData, ThrowOnError>) => (options.client ?? client).get<ListFlagRollbackFiresResponses, ListFlagRollbackFiresErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/flags/{flagKey}/rollout/fires',
    ...options
});

/**
 * Rollback fire history of a config's rollouts
 *
 * Newest first; `limit` 1–200 (default 50); `nextCursor` only when the page is full.
 */
export const listConfigRollbackFires = <ThrowOnError extends boolean = false>(options: Options<ListConfigRollbackFiresData, ThrowOnError>) => (options.client ?? client).get<ListConfigRollbackFiresResponses, ListConfigRollbackFiresErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/configs/{configKey}/rollout/fires',
    ...options
});

/**
 * List API keys (revoked included, never a token)
 *
 * List API keys (revoked included, never a token)
 */
export const listApiKeys = <ThrowOnError extends boolean = false>(options: Options<ListApiKeysData, ThrowOnError>) => (options.client ?? client).get<ListApiKeysResponses, ListApiKeysErrors, ThrowOnError>({
    security: [{
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }],
    url: '/api/v1/orgs/{slug}/api-keys',
    ...options
});

/**
 * Mint an API key
 *
 * Session, admin or owner. The raw token is in this response only.
 */
export const createApiKey = <ThrowOnError extends boolean = false>(options: Options<CreateApiKeyData, ThrowOnError>) => (options.client ?? client).post<CreateApiKeyResponses, CreateApiKeyErrors, ThrowOnError>({
    security: [{
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }],
    url: '/api/v1/orgs/{slug}/api-keys',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Revoke an API key
 *
 * Idempotent: 204 also when already revoked.
 */
export const revokeApiKey = <ThrowOnError extends boolean = false>(options: Options<RevokeApiKeyData, ThrowOnError>) => (options.client ?? client).delete<RevokeApiKeyResponses, RevokeApiKeyErrors, ThrowOnError>({
    security: [{
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }],
    url: '/api/v1/orgs/{slug}/api-keys/{id}',
    ...options
});

/**
 * List audit events, newest first
 *
 * Filters combine with AND, except `includeProjectRows=true`, which widens `envId` to the environment or no environment of its project (a flag’s history in one environment: its rollouts and values there, and its creation, details, archive and restore). `includeProjectRows` without `envId` is `400 invalid_request`. `nextCursor` is null on the last page. An API key restricted to environments lists only the rows of those environments (no organization- or project-level rows); one restricted to resources only the rows of the flags and configs its globs match.
 */
export const listAuditEvents = <ThrowOnError extends boolean = false>(options: Options<ListAuditEventsData, ThrowOnError>) => (options.client ?? client).get<ListAuditEventsResponses, ListAuditEventsErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/orgs/{slug}/audit',
    ...options
});

/**
 * Get one audit event with its previous and new values and their diff
 *
 * A row outside a restricted API key's environments or resources is `404 not_found`.
 */
export const getAuditEvent = <ThrowOnError extends boolean = false>(options: Options<GetAuditEventData, ThrowOnError>) => (options.client ?? client).get<GetAuditEventResponses, GetAuditEventErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/audit/events/{id}',
    ...options
});

/**
 * Get an approval proposal
 *
 * A session of any member of the org, or an API key with the read action (and the proposal’s environment and key in scope). A pending proposal past `expiresAt` reads as `expired`.
 */
export const getProposal = <ThrowOnError extends boolean = false>(options: Options<GetProposalData, ThrowOnError>) => (options.client ?? client).get<GetProposalResponses, GetProposalErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/proposals/{id}',
    ...options
});

/**
 * List the approval proposals of an organization, newest first
 *
 * Optionally filtered by `status`; `limit` 1–500 (default 100). API keys see only proposals in their environments and resources.
 */
export const listProposals = <ThrowOnError extends boolean = false>(options: Options<ListProposalsData, ThrowOnError>) => (options.client ?? client).get<ListProposalsResponses, ListProposalsErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/orgs/{slug}/proposals',
    ...options
});

/**
 * Apply a pending proposal
 *
 * Session, admin or owner. Runs the stored request exactly as the API key’s direct call would, in one transaction with the proposal becoming `applied`; its audit rows name the key as actor, the applying user as `approverUserId`, and carry the reason `proposal:<id>`. `409 version_drift` (with `details.liveVersion` and `details.proposedVersion`) when the environment changed since `baseVersion`; `410 proposal_gone` when the proposal is applied, cancelled or expired. The stored request’s own errors (e.g. `412`, `409 rollout_not_paused`) are answered as they are and leave the proposal pending.
 */
export const applyProposal = <ThrowOnError extends boolean = false>(options: Options<ApplyProposalData, ThrowOnError>) => (options.client ?? client).post<ApplyProposalResponses, ApplyProposalErrors, ThrowOnError>({
    security: [{
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }],
    url: '/api/v1/proposals/{id}/apply',
    ...options
});

/**
 * Cancel a pending proposal
 *
 * Session, admin or owner; or the API key that made the proposal (withdrawing it). `410 proposal_gone` when the proposal is applied, cancelled or expired.
 */
export const cancelProposal = <ThrowOnError extends boolean = false>(options: Options<CancelProposalData, ThrowOnError>) => (options.client ?? client).post<CancelProposalResponses, CancelProposalErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/proposals/{id}/cancel',
    ...options
});

/**
 * Server-sent events announcing each committed change in an environment
 *
 * An event `ready` with data `{"envId", "version"}` on connect, then an event `change` (id: the version) with data `{"envId", "version", "changes": [{"resourceType", "resourceKey", "action"}]}` after every committed write in the environment, from any source (API, scheduler, approval gates, rollback webhooks) and any server instance; a comment heartbeat every 15 s. `changes` lists the audited changes the caller may read, including the project-level ones of the same write that moved the environment (a flag created, archived or restored names the flag); an API key restricted to resources sees only theirs, and the list may be empty. Writes that move no version (rollback secrets, proposals) are not announced here; the organization stream has them as `org-change`. The data is the `LiveChangeEvent` schema. Same access as reading the environment; shares the ruleset stream’s caps and credential re-checks.
 */
export const streamEnvironmentEvents = <ThrowOnError extends boolean = false>(options: Options<StreamEnvironmentEventsData, ThrowOnError>) => (options.client ?? client).get<StreamEnvironmentEventsResponses, StreamEnvironmentEventsErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/events',
    ...options
});

/**
 * Server-sent events announcing committed changes across an organization
 *
 * An event `ready` with data `{"orgId"}` on connect, then an event `change` with the same data as the environment stream (`LiveChangeEvent`) for every committed write that moved the version of one of the organization’s environments and carries an audited change there the caller may read, and an event `org-change` (`LiveOrgChangeEvent`: `{"projectId", "envId", "changes"}`) for the audited changes of a committed write that move no environment’s version, per project and environment, when the caller may read one: with `envId` null, the rows outside any environment (a flag’s or config’s definition, segments, plans, webhook subscriptions, projects, members, API keys); with `envId` set, rows of that environment that leave its version as it is (an environment created or deleted, rollback secrets, proposals made, cancelled or expired). A `change` event lists the environment’s own rows; the project-level rows of the same write (a flag created or archived) are not repeated there but arrive as an `org-change`. Each audited change reaches the stream once. The audit log’s rules decide what a restricted API key sees: one restricted to environments gets the `change` and `org-change` events of those environments only (none with `envId` null); one restricted to resources only the changes of the flags and configs its globs match (their rollouts and proposals). Every server instance announces the writes of every other. Same access as the audit log.
 */
export const streamOrgEvents = <ThrowOnError extends boolean = false>(options: Options<StreamOrgEventsData, ThrowOnError>) => (options.client ?? client).get<StreamOrgEventsResponses, StreamOrgEventsErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/orgs/{slug}/events',
    ...options
});

/**
 * OFREP: evaluate one flag or config for a context
 *
 * Same evaluator as `POST /envs/{envId}/evaluate` and the SDK's local evaluation. `400` with an OFREP `errorCode`: `PARSE_ERROR` (not JSON), `INVALID_CONTEXT` (the context is not an object of JSON values), `TARGETING_KEY_MISSING` (a live rollout buckets on an attribute the context lacks, and it has no `targetingKey`). `404 FLAG_NOT_FOUND` for a key the API key cannot see. An archived flag or config answers `200` with reason `DISABLED` and no value (the protocol's `codeDefaultFlag`): the provider serves the caller's default. `401`/`403`/`429` carry the API's error envelope.
 */
export const ofrepEvaluateFlag = <ThrowOnError extends boolean = false>(options: Options<OfrepEvaluateFlagData, ThrowOnError>) => (options.client ?? client).post<OfrepEvaluateFlagResponses, OfrepEvaluateFlagErrors, ThrowOnError>({
    security: [{ scheme: 'bearer', type: 'http' }, { name: 'X-API-Key', type: 'apiKey' }],
    url: '/api/v1/ofrep/v1/evaluate/flags/{key}',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * OFREP: evaluate every flag and config for a context
 *
 * Strong `ETag` (the ruleset version, the key's view and the context); `If-None-Match` → `304`. `eventStreams` names a server-sent event stream that announces each new ruleset version with a `refetchEvaluation` event. A flag that cannot be evaluated for this context is an `OfrepEvaluationFailure` item; a context that is not an object is `400 INVALID_CONTEXT`.
 */
export const ofrepEvaluateFlags = <ThrowOnError extends boolean = false>(options: Options<OfrepEvaluateFlagsData, ThrowOnError>) => (options.client ?? client).post<OfrepEvaluateFlagsResponses, OfrepEvaluateFlagsErrors, ThrowOnError>({
    security: [{ scheme: 'bearer', type: 'http' }, { name: 'X-API-Key', type: 'apiKey' }],
    url: '/api/v1/ofrep/v1/evaluate/flags',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * OFREP: server-sent events announcing changes to the bulk evaluation
 *
 * The URL comes from a bulk evaluation's `eventStreams`; its `ticket` stands for the API key and environment (EventSource cannot send headers) and expires after an hour. On connect and after every committed write in the environment: an unnamed event whose data is `{"type":"refetchEvaluation","etag":"…"}`. Shares the ruleset streams' caps; ends when the key is revoked. `401` for an expired or forged ticket.
 */
export const ofrepEventStream = <ThrowOnError extends boolean = false>(options: Options<OfrepEventStreamData, ThrowOnError>) => (options.client ?? client).get<OfrepEventStreamResponses, OfrepEventStreamErrors, ThrowOnError>({ url: '/api/v1/ofrep/v1/events', ...options });

/**
 * List the segments of a project
 *
 * List the segments of a project
 */
export const listSegments = <ThrowOnError extends boolean = false>(options: Options<ListSegmentsData, ThrowOnError>) => (options.client ?? client).get<ListSegmentsResponses, ListSegmentsErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/segments',
    ...options
});

/**
 * Create a segment
 *
 * At most 500 segments per project (`403 quota_exceeded`, dimension `segments_per_project`). Conditions may reference other segments of the project with `in_segment` / `not_in_segment`: a missing one is `400` naming the field, a reference that closes a cycle is `409 segment_cycle` with the cycle in `details.cycle`, and one that would nest more than 5 segments (`a` names `b` names `c` …) is `409 segment_nesting_too_deep` with the chain in `details.chain`. Audit action `segment.created`. Approval-required keys get `403 approval_not_supported`.
 */
export const createSegment = <ThrowOnError extends boolean = false>(options: Options<CreateSegmentData, ThrowOnError>) => (options.client ?? client).post<CreateSegmentResponses, CreateSegmentErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/segments',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Delete a segment
 *
 * Refused while a flag or config (in any environment) or another segment references it: `409 in_use` with each referrer in `fields` as `<resourceType>.<resourceKey>` (`flag.new-checkout`, `segment.beta`). The body repeats the key: `{"confirm": "<segment key>"}` (`400 invalid_confirmation`). Its target IDs go with it. Audit action `segment.deleted`. Approval-required keys get `403 approval_not_supported`.
 */
export const deleteSegment = <ThrowOnError extends boolean = false>(options: Options<DeleteSegmentData, ThrowOnError>) => (options.client ?? client).delete<DeleteSegmentResponses, DeleteSegmentErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/segments/{key}',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Get a segment
 *
 * Sends a strong ETag for `If-Match`; `If-None-Match` answers 304.
 */
export const getSegment = <ThrowOnError extends boolean = false>(options: Options<GetSegmentData, ThrowOnError>) => (options.client ?? client).get<GetSegmentResponses, GetSegmentErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/segments/{key}',
    ...options
});

/**
 * Rename a segment or replace its rules
 *
 * A reference that closes a cycle is `409 segment_cycle` with the cycle in `details.cycle` (`["a", "b", "a"]`); one that would nest more than 5 segments is `409 segment_nesting_too_deep` with the chain in `details.chain`. `If-Match` with the segment's ETag guards against lost updates (`412 precondition_failed`). Audit action `segment.updated`. Advances the version (and ETag) of every environment of the project whose flags or configs use the segment, directly or through other segments, so streaming SDKs receive it like any other write. Approval-required keys get `403 approval_not_supported`; an API key restricted to environments gets `403 token_env_out_of_scope` (a segment reaches every environment).
 */
export const updateSegment = <ThrowOnError extends boolean = false>(options: Options<UpdateSegmentData, ThrowOnError>) => (options.client ?? client).patch<UpdateSegmentResponses, UpdateSegmentErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/segments/{key}',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * What references a segment
 *
 * The flags and configs whose rules (in any environment) and the segments whose rules name it.
 */
export const getSegmentReferrers = <ThrowOnError extends boolean = false>(options: Options<GetSegmentReferrersData, ThrowOnError>) => (options.client ?? client).get<GetSegmentReferrersResponses, GetSegmentReferrersErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/segments/{key}/referrers',
    ...options
});

/**
 * Add target IDs to a segment's included list
 *
 * Up to 100,000 IDs per request; duplicates are ignored and `added` counts only new IDs. Audit action `segment.target_ids_added`. Advances the version (and ETag) of every environment of the project whose flags or configs use the segment, directly or through other segments, so streaming SDKs receive it like any other write. Approval-required keys get `403 approval_not_supported`; an API key restricted to environments gets `403 token_env_out_of_scope` (a segment reaches every environment).
 */
export const addSegmentIncluded = <ThrowOnError extends boolean = false>(options: Options<AddSegmentIncludedData, ThrowOnError>) => (options.client ?? client).post<AddSegmentIncludedResponses, AddSegmentIncludedErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/segments/{key}/included/add',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Remove target IDs from a segment's included list
 *
 * Up to 100,000 IDs per request; absent IDs are skipped. Audit action `segment.target_ids_removed`. Advances the version (and ETag) of every environment of the project whose flags or configs use the segment, directly or through other segments, so streaming SDKs receive it like any other write. Approval-required keys get `403 approval_not_supported`; an API key restricted to environments gets `403 token_env_out_of_scope` (a segment reaches every environment).
 */
export const removeSegmentIncluded = <ThrowOnError extends boolean = false>(options: Options<RemoveSegmentIncludedData, ThrowOnError>) => (options.client ?? client).post<RemoveSegmentIncludedResponses, RemoveSegmentIncludedErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/segments/{key}/included/remove',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Replace a segment's whole included list atomically
 *
 * Up to 1,000,000 IDs (request bodies of the target-ID endpoints may reach 64 MiB). Audit action `segment.target_ids_replaced`. Advances the version (and ETag) of every environment of the project whose flags or configs use the segment, directly or through other segments, so streaming SDKs receive it like any other write. Approval-required keys get `403 approval_not_supported`; an API key restricted to environments gets `403 token_env_out_of_scope` (a segment reaches every environment).
 */
export const replaceSegmentIncluded = <ThrowOnError extends boolean = false>(options: Options<ReplaceSegmentIncludedData, ThrowOnError>) => (options.client ?? client).post<ReplaceSegmentIncludedResponses, ReplaceSegmentIncludedErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/segments/{key}/included/replace',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * List a segment's included target IDs, ordered by ID
 *
 * `limit` 1–10,000 (default 1000); `nextCursor` is present only when the page is full.
 */
export const listSegmentIncluded = <ThrowOnError extends boolean = false>(options: Options<ListSegmentIncludedData, ThrowOnError>) => (options.client ?? client).get<ListSegmentIncludedResponses, ListSegmentIncludedErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/segments/{key}/included',
    ...options
});

/**
 * Whether an ID is on a segment's included list
 *
 * Whether an ID is on a segment's included list
 */
export const checkSegmentIncluded = <ThrowOnError extends boolean = false>(options: Options<CheckSegmentIncludedData, ThrowOnError>) => (options.client ?? client).get<CheckSegmentIncludedResponses, CheckSegmentIncludedErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/segments/{key}/included/contains/{targetId}',
    ...options
});

/**
 * Add target IDs to a segment's excluded list
 *
 * Up to 100,000 IDs per request; duplicates are ignored and `added` counts only new IDs. Audit action `segment.target_ids_added`. Advances the version (and ETag) of every environment of the project whose flags or configs use the segment, directly or through other segments, so streaming SDKs receive it like any other write. Approval-required keys get `403 approval_not_supported`; an API key restricted to environments gets `403 token_env_out_of_scope` (a segment reaches every environment).
 */
export const addSegmentExcluded = <ThrowOnError extends boolean = false>(options: Options<AddSegmentExcludedData, ThrowOnError>) => (options.client ?? client).post<AddSegmentExcludedResponses, AddSegmentExcludedErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/segments/{key}/excluded/add',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Remove target IDs from a segment's excluded list
 *
 * Up to 100,000 IDs per request; absent IDs are skipped. Audit action `segment.target_ids_removed`. Advances the version (and ETag) of every environment of the project whose flags or configs use the segment, directly or through other segments, so streaming SDKs receive it like any other write. Approval-required keys get `403 approval_not_supported`; an API key restricted to environments gets `403 token_env_out_of_scope` (a segment reaches every environment).
 */
export const removeSegmentExcluded = <ThrowOnError extends boolean = false>(options: Options<RemoveSegmentExcludedData, ThrowOnError>) => (options.client ?? client).post<RemoveSegmentExcludedResponses, RemoveSegmentExcludedErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/segments/{key}/excluded/remove',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Replace a segment's whole excluded list atomically
 *
 * Up to 1,000,000 IDs (request bodies of the target-ID endpoints may reach 64 MiB). Audit action `segment.target_ids_replaced`. Advances the version (and ETag) of every environment of the project whose flags or configs use the segment, directly or through other segments, so streaming SDKs receive it like any other write. Approval-required keys get `403 approval_not_supported`; an API key restricted to environments gets `403 token_env_out_of_scope` (a segment reaches every environment).
 */
export const replaceSegmentExcluded = <ThrowOnError extends boolean = false>(options: Options<ReplaceSegmentExcludedData, ThrowOnError>) => (options.client ?? client).post<ReplaceSegmentExcludedResponses, ReplaceSegmentExcludedErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/segments/{key}/excluded/replace',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * List a segment's excluded target IDs, ordered by ID
 *
 * `limit` 1–10,000 (default 1000); `nextCursor` is present only when the page is full.
 */
export const listSegmentExcluded = <ThrowOnError extends boolean = false>(options: Options<ListSegmentExcludedData, ThrowOnError>) => (options.client ?? client).get<ListSegmentExcludedResponses, ListSegmentExcludedErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/segments/{key}/excluded',
    ...options
});

/**
 * Whether an ID is on a segment's excluded list
 *
 * Whether an ID is on a segment's excluded list
 */
export const checkSegmentExcluded = <ThrowOnError extends boolean = false>(options: Options<CheckSegmentExcludedData, ThrowOnError>) => (options.client ?? client).get<CheckSegmentExcludedResponses, CheckSegmentExcludedErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/segments/{key}/excluded/contains/{targetId}',
    ...options
});

/**
 * List the project's webhook subscriptions
 *
 * List the project's webhook subscriptions
 */
export const listWebhookSubscriptions = <ThrowOnError extends boolean = false>(options: Options<ListWebhookSubscriptionsData, ThrowOnError>) => (options.client ?? client).get<ListWebhookSubscriptionsResponses, ListWebhookSubscriptionsErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/webhook-subscriptions',
    ...options
});

/**
 * Subscribe a URL to the project's events (outbound webhook)
 *
 * Admin or owner; approval-required keys get `403 approval_not_supported`. The answer carries the signing secret once. At most 20 per project (`403 quota_exceeded`, dimension `webhook_subscriptions_per_project`). Audit action `webhook.created`.
 */
export const createWebhookSubscription = <ThrowOnError extends boolean = false>(options: Options<CreateWebhookSubscriptionData, ThrowOnError>) => (options.client ?? client).post<CreateWebhookSubscriptionResponses, CreateWebhookSubscriptionErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/webhook-subscriptions',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Delete a webhook subscription and its delivery log
 *
 * Admin or owner; approval-required keys get `403 approval_not_supported`. Pending deliveries are dropped. Audit action `webhook.deleted`.
 */
export const deleteWebhookSubscription = <ThrowOnError extends boolean = false>(options: Options<DeleteWebhookSubscriptionData, ThrowOnError>) => (options.client ?? client).delete<DeleteWebhookSubscriptionResponses, DeleteWebhookSubscriptionErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/webhook-subscriptions/{subscriptionId}',
    ...options
});

/**
 * Get a webhook subscription
 *
 * Get a webhook subscription
 */
export const getWebhookSubscription = <ThrowOnError extends boolean = false>(options: Options<GetWebhookSubscriptionData, ThrowOnError>) => (options.client ?? client).get<GetWebhookSubscriptionResponses, GetWebhookSubscriptionErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/webhook-subscriptions/{subscriptionId}',
    ...options
});

/**
 * Change a webhook subscription (URL, events, format, enabled)
 *
 * Admin or owner; approval-required keys get `403 approval_not_supported`. Pending deliveries go to the new URL (each attempt reads the subscription's URL and secret). Disabling drops the pending deliveries, test events excepted (status `dropped`). Audit action `webhook.updated`.
 */
export const updateWebhookSubscription = <ThrowOnError extends boolean = false>(options: Options<UpdateWebhookSubscriptionData, ThrowOnError>) => (options.client ?? client).patch<UpdateWebhookSubscriptionResponses, UpdateWebhookSubscriptionErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/webhook-subscriptions/{subscriptionId}',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Queue a `webhook.test` event for the subscription
 *
 * Admin or owner; approval-required keys get `403 approval_not_supported`. Delivered like any event (signed, retried); follow it in the delivery log. Sent also when the subscription is disabled. Counts towards the subscription's cap of pending deliveries: beyond it the oldest pending ones are dropped.
 */
export const testWebhookSubscription = <ThrowOnError extends boolean = false>(options: Options<TestWebhookSubscriptionData, ThrowOnError>) => (options.client ?? client).post<TestWebhookSubscriptionResponses, TestWebhookSubscriptionErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/webhook-subscriptions/{subscriptionId}/test',
    ...options
});

/**
 * The delivery log of a subscription, newest first
 *
 * Deliveries are kept 30 days.
 */
export const listWebhookDeliveries = <ThrowOnError extends boolean = false>(options: Options<ListWebhookDeliveriesData, ThrowOnError>) => (options.client ?? client).get<ListWebhookDeliveriesResponses, ListWebhookDeliveriesErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/webhook-subscriptions/{subscriptionId}/deliveries',
    ...options
});

/**
 * Report evaluation counts (SDKs send these in batches)
 *
 * Any key that may evaluate the environment may report (`sdk`, `client`, server keys, sessions); a client key only for client-visible flags and configs. Bad windows (also one ending before the previous hour) or malformed entries are `400` naming the field; nothing is counted from a refused report. Entries with a variant the flag or config cannot serve are dropped (`dropped`), and each reporter's evaluations per hour are capped, per client address for a client key (`overLimit`).
 */
export const reportUsage = <ThrowOnError extends boolean = false>(options: Options<ReportUsageData, ThrowOnError>) => (options.client ?? client).post<ReportUsageResponses, ReportUsageErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/usage',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Evaluations of a flag per environment and variant
 *
 * Evaluations of a flag per environment and variant
 */
export const getFlagUsage = <ThrowOnError extends boolean = false>(options: Options<GetFlagUsageData, ThrowOnError>) => (options.client ?? client).get<GetFlagUsageResponses, GetFlagUsageErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/flags/{key}/usage',
    ...options
});

/**
 * Evaluations of a config per environment and variant
 *
 * Evaluations of a config per environment and variant
 */
export const getConfigUsage = <ThrowOnError extends boolean = false>(options: Options<GetConfigUsageData, ThrowOnError>) => (options.client ?? client).get<GetConfigUsageResponses, GetConfigUsageErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/configs/{key}/usage',
    ...options
});

/**
 * Which flags and configs are in use, stale or ready to remove
 *
 * Live (not archived) flags and configs with their last evaluation and last change; filter by `status`.
 */
export const listInsights = <ThrowOnError extends boolean = false>(options: Options<ListInsightsData, ThrowOnError>) => (options.client ?? client).get<ListInsightsResponses, ListInsightsErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/insights',
    ...options
});

/**
 * Record what a code base's type check found about keys
 *
 * Replaces the repository's previous report (`gradual flags stale --report`); insights show each key's latest report per repository and whether it is `safeToRemove`. Keys are flags or configs of the project, live or not (`400` naming the entry otherwise); an API key restricted to resources may report only keys its globs match. Needs write access; approval-required keys get `403 approval_not_supported`.
 */
export const reportCodeReferences = <ThrowOnError extends boolean = false>(options: Options<ReportCodeReferencesData, ThrowOnError>) => (options.client ?? client).put<ReportCodeReferencesResponses, ReportCodeReferencesErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/code-references',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Report what guarded rollouts' arms did (SDKs send these in batches)
 *
 * Server and SDK keys that may evaluate the environment, and sessions; client keys are refused (`403 scope_denied`): a browser's numbers would be anyone's. A bad window or a malformed entry is `400` naming the field, and nothing of a refused report is counted. Entries for a rollout no longer at a guarded step of the reported percent are dropped (`dropped`).
 */
export const reportGuardMetrics = <ThrowOnError extends boolean = false>(options: Options<ReportGuardMetricsData, ThrowOnError>) => (options.client ?? client).post<ReportGuardMetricsResponses, ReportGuardMetricsErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/guard-metrics',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * List the metrics guarded ramp steps can watch
 *
 * List the metrics guarded ramp steps can watch
 */
export const listGuardMetrics = <ThrowOnError extends boolean = false>(options: Options<ListGuardMetricsData, ThrowOnError>) => (options.client ?? client).get<ListGuardMetricsResponses, ListGuardMetricsErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/guard-metrics',
    ...options
});

/**
 * Define a metric guarded ramp steps can watch
 *
 * At most 50 per project (`403 quota_exceeded`). A key already defined answers `409 guard_metric_key_conflict`. The same permissions as rollout plans.
 */
export const createGuardMetric = <ThrowOnError extends boolean = false>(options: Options<CreateGuardMetricData, ThrowOnError>) => (options.client ?? client).post<CreateGuardMetricResponses, CreateGuardMetricErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/guard-metrics',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Delete a guard metric
 *
 * Idempotent on an already-deleted metric. `409 guard_metric_in_use` while a rollout plan or a live rollout's plan watches it (`details.plans`, `details.rollouts`).
 */
export const deleteGuardMetric = <ThrowOnError extends boolean = false>(options: Options<DeleteGuardMetricData, ThrowOnError>) => (options.client ?? client).delete<DeleteGuardMetricResponses, DeleteGuardMetricErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/guard-metrics/{key}',
    ...options
});

/**
 * Acknowledge the ruleset version an SDK instance serves
 *
 * Server and SDK keys that may evaluate the environment; client keys are refused (`403 scope_denied`). Counted in memory and written in batches: an acknowledgement costs no database write of its own.
 */
export const ackRuleset = <ThrowOnError extends boolean = false>(options: Options<AckRulesetData, ThrowOnError>) => (options.client ?? client).post<AckRulesetResponses, AckRulesetErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/ruleset-acks',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Which ruleset version the environment's SDK instances serve
 *
 * The convergence ledger: instances seen within the window, how many serve the current version, the time to converge of the latest versions, and the laggards. Client keys are refused.
 */
export const getConvergence = <ThrowOnError extends boolean = false>(options: Options<GetConvergenceData, ThrowOnError>) => (options.client ?? client).get<GetConvergenceResponses, GetConvergenceErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/envs/{envId}/convergence',
    ...options
});

/**
 * The project's flags as an OpenFeature flag manifest
 *
 * Every live (not archived) flag and config of the project the caller may read, keyed by key, in the OpenFeature CLI's manifest format with Gradual's fields under `x-gradual`; `gradual types` generates typed accessors from it. A key restricted to resources sees only the keys its globs match. Sends a strong ETag; `If-None-Match` answers 304.
 */
export const getManifest = <ThrowOnError extends boolean = false>(options: Options<GetManifestData, ThrowOnError>) => (options.client ?? client).get<GetManifestResponses, GetManifestErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/manifest',
    ...options
});

/**
 * OpenFeature CLI pull: the project's flags
 *
 * The OpenFeature CLI's Manifest Management API (`openfeature pull --provider-url <server>/api/v1/projects/<id>`): the live flags and configs the caller may read, as a list. Errors carry Gradual's envelope.
 */
export const syncGetManifest = <ThrowOnError extends boolean = false>(options: Options<SyncGetManifestData, ThrowOnError>) => (options.client ?? client).get<SyncGetManifestResponses, SyncGetManifestErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/openfeature/v0/manifest',
    ...options
});

/**
 * OpenFeature CLI push: create a flag
 *
 * Creates a flag or config (`object`) in every environment, as `POST /projects/{id}/flags` does. A key taken by a flag or a config, archived or not, answers `409 key_in_use`.
 */
export const syncCreateFlag = <ThrowOnError extends boolean = false>(options: Options<SyncCreateFlagData, ThrowOnError>) => (options.client ?? client).post<SyncCreateFlagResponses, SyncCreateFlagErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/openfeature/v0/manifest/flags',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * OpenFeature CLI push: update a flag
 *
 * Changes the name and description (as `PATCH` does); a different type or default value answers `409 definition_fixed`, an archived one `409 primitive_archived`.
 */
export const syncUpdateFlag = <ThrowOnError extends boolean = false>(options: Options<SyncUpdateFlagData, ThrowOnError>) => (options.client ?? client).put<SyncUpdateFlagResponses, SyncUpdateFlagErrors, ThrowOnError>({
    security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'X-API-Key', type: 'apiKey' },
        {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }
    ],
    url: '/api/v1/projects/{id}/openfeature/v0/manifest/flags/{key}',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});
