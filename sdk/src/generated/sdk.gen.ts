// GENERATED from openapi.yaml by `npm run sdk:generate`. Do not edit by hand.

import { client } from './client.gen.js';
import type { Client, Options as Options2, TDataShape } from './client/index.js';
import type { ClaimInstallData, ClaimInstallErrors, ClaimInstallResponses, CreateApiKeyData, CreateApiKeyErrors, CreateApiKeyResponses, CreateConfigData, CreateConfigErrors, CreateConfigResponses, CreateEnvironmentData, CreateEnvironmentErrors, CreateEnvironmentResponses, CreateFlagData, CreateFlagErrors, CreateFlagResponses, CreateOrgData, CreateOrgErrors, CreateOrgResponses, CreateProjectData, CreateProjectErrors, CreateProjectResponses, GetAuditEventData, GetAuditEventErrors, GetAuditEventResponses, GetConfigStateData, GetConfigStateErrors, GetConfigStateResponses, GetEnvironmentData, GetEnvironmentErrors, GetEnvironmentResponses, GetFlagStateData, GetFlagStateErrors, GetFlagStateResponses, GetInstallStateData, GetInstallStateErrors, GetInstallStateResponses, GetOrgData, GetOrgErrors, GetOrgResponses, GetProjectData, GetProjectErrors, GetProjectResponses, GetSessionData, GetSessionErrors, GetSessionResponses, ListApiKeysData, ListApiKeysErrors, ListApiKeysResponses, ListAuditEventsData, ListAuditEventsErrors, ListAuditEventsResponses, ListConfigsData, ListConfigsErrors, ListConfigsResponses, ListConfigStatesData, ListConfigStatesErrors, ListConfigStatesResponses, ListEnvironmentsData, ListEnvironmentsErrors, ListEnvironmentsResponses, ListFlagsData, ListFlagsErrors, ListFlagsResponses, ListFlagStatesData, ListFlagStatesErrors, ListFlagStatesResponses, ListProjectsData, ListProjectsErrors, ListProjectsResponses, LogoutData, LogoutErrors, LogoutResponses, RevokeApiKeyData, RevokeApiKeyErrors, RevokeApiKeyResponses, SetConfigRulesData, SetConfigRulesErrors, SetConfigRulesResponses, SetConfigValueData, SetConfigValueErrors, SetConfigValueResponses, SetFlagRulesData, SetFlagRulesErrors, SetFlagRulesResponses, SetFlagValueData, SetFlagValueErrors, SetFlagValueResponses, UpdateProjectData, UpdateProjectErrors, UpdateProjectResponses } from './types.gen.js';

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
 * Whether this instance has been claimed and whether public signup is on
 *
 * Mounted on the hosted topology, or on self-hosted when `SERVICE_PUBLIC_SIGNUP=1`; otherwise 404.
 */
export const getInstallState = <ThrowOnError extends boolean = false>(options?: Options<GetInstallStateData, ThrowOnError>) => (options?.client ?? client).get<GetInstallStateResponses, GetInstallStateErrors, ThrowOnError>({ url: '/api/v1/auth/install-state', ...options });

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
 * Get an organization
 *
 * Get an organization
 */
export const getOrg = <ThrowOnError extends boolean = false>(options: Options<GetOrgData, ThrowOnError>) => (options.client ?? client).get<GetOrgResponses, GetOrgErrors, ThrowOnError>({
    security: [{ scheme: 'bearer', type: 'http' }, {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }],
    url: '/api/v1/orgs/{slug}',
    ...options
});

/**
 * List the projects of an organization
 *
 * List the projects of an organization
 */
export const listProjects = <ThrowOnError extends boolean = false>(options: Options<ListProjectsData, ThrowOnError>) => (options.client ?? client).get<ListProjectsResponses, ListProjectsErrors, ThrowOnError>({
    security: [{ scheme: 'bearer', type: 'http' }, {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }],
    url: '/api/v1/orgs/{slug}/projects',
    ...options
});

/**
 * Create a project
 *
 * Admin or owner. `targetIdField` (default `userId`) is the context attribute rollouts bucket on.
 */
export const createProject = <ThrowOnError extends boolean = false>(options: Options<CreateProjectData, ThrowOnError>) => (options.client ?? client).post<CreateProjectResponses, CreateProjectErrors, ThrowOnError>({
    security: [{ scheme: 'bearer', type: 'http' }, {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }],
    url: '/api/v1/orgs/{slug}/projects',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * Get a project
 *
 * Get a project
 */
export const getProject = <ThrowOnError extends boolean = false>(options: Options<GetProjectData, ThrowOnError>) => (options.client ?? client).get<GetProjectResponses, GetProjectErrors, ThrowOnError>({
    security: [{ scheme: 'bearer', type: 'http' }, {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }],
    url: '/api/v1/projects/{id}',
    ...options
});

/**
 * Rename a project or change its target ID field
 *
 * Admin or owner. The key cannot change.
 */
export const updateProject = <ThrowOnError extends boolean = false>(options: Options<UpdateProjectData, ThrowOnError>) => (options.client ?? client).patch<UpdateProjectResponses, UpdateProjectErrors, ThrowOnError>({
    security: [{ scheme: 'bearer', type: 'http' }, {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }],
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
    security: [{ scheme: 'bearer', type: 'http' }, {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }],
    url: '/api/v1/projects/{id}/environments',
    ...options
});

/**
 * Create an environment
 *
 * Admin or owner. Every flag and config of the project gets its state in the new environment (value = its default, no rules). The version starts at 0; the ruleset is served from the first write on.
 */
export const createEnvironment = <ThrowOnError extends boolean = false>(options: Options<CreateEnvironmentData, ThrowOnError>) => (options.client ?? client).post<CreateEnvironmentResponses, CreateEnvironmentErrors, ThrowOnError>({
    security: [{ scheme: 'bearer', type: 'http' }, {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }],
    url: '/api/v1/projects/{id}/environments',
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
    security: [{ scheme: 'bearer', type: 'http' }, {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }],
    url: '/api/v1/envs/{envId}',
    ...options
});

/**
 * List the flag definitions of a project
 *
 * List the flag definitions of a project
 */
export const listFlags = <ThrowOnError extends boolean = false>(options: Options<ListFlagsData, ThrowOnError>) => (options.client ?? client).get<ListFlagsResponses, ListFlagsErrors, ThrowOnError>({
    security: [{ scheme: 'bearer', type: 'http' }, {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }],
    url: '/api/v1/projects/{id}/flags',
    ...options
});

/**
 * Create a flag
 *
 * Create a flag
 */
export const createFlag = <ThrowOnError extends boolean = false>(options: Options<CreateFlagData, ThrowOnError>) => (options.client ?? client).post<CreateFlagResponses, CreateFlagErrors, ThrowOnError>({
    security: [{ scheme: 'bearer', type: 'http' }, {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }],
    url: '/api/v1/projects/{id}/flags',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * List the flags of an environment with their value, rules and rollout
 *
 * List the flags of an environment with their value, rules and rollout
 */
export const listFlagStates = <ThrowOnError extends boolean = false>(options: Options<ListFlagStatesData, ThrowOnError>) => (options.client ?? client).get<ListFlagStatesResponses, ListFlagStatesErrors, ThrowOnError>({
    security: [{ scheme: 'bearer', type: 'http' }, {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }],
    url: '/api/v1/envs/{envId}/flags',
    ...options
});

/**
 * Get one flag's value, rules and rollout in an environment
 *
 * Get one flag's value, rules and rollout in an environment
 */
export const getFlagState = <ThrowOnError extends boolean = false>(options: Options<GetFlagStateData, ThrowOnError>) => (options.client ?? client).get<GetFlagStateResponses, GetFlagStateErrors, ThrowOnError>({
    security: [{ scheme: 'bearer', type: 'http' }, {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }],
    url: '/api/v1/envs/{envId}/flags/{key}',
    ...options
});

/**
 * Set a flag's base value in an environment
 *
 * Audit action `flag.update_value`; advances the environment version.
 */
export const setFlagValue = <ThrowOnError extends boolean = false>(options: Options<SetFlagValueData, ThrowOnError>) => (options.client ?? client).put<SetFlagValueResponses, SetFlagValueErrors, ThrowOnError>({
    security: [{ scheme: 'bearer', type: 'http' }, {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }],
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
 * The first matching rule wins. Audit action `flag.update_rules`; advances the environment version.
 */
export const setFlagRules = <ThrowOnError extends boolean = false>(options: Options<SetFlagRulesData, ThrowOnError>) => (options.client ?? client).put<SetFlagRulesResponses, SetFlagRulesErrors, ThrowOnError>({
    security: [{ scheme: 'bearer', type: 'http' }, {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }],
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
 * List the config definitions of a project
 */
export const listConfigs = <ThrowOnError extends boolean = false>(options: Options<ListConfigsData, ThrowOnError>) => (options.client ?? client).get<ListConfigsResponses, ListConfigsErrors, ThrowOnError>({
    security: [{ scheme: 'bearer', type: 'http' }, {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }],
    url: '/api/v1/projects/{id}/configs',
    ...options
});

/**
 * Create a config
 *
 * Create a config
 */
export const createConfig = <ThrowOnError extends boolean = false>(options: Options<CreateConfigData, ThrowOnError>) => (options.client ?? client).post<CreateConfigResponses, CreateConfigErrors, ThrowOnError>({
    security: [{ scheme: 'bearer', type: 'http' }, {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }],
    url: '/api/v1/projects/{id}/configs',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
});

/**
 * List the configs of an environment with their value, rules and rollout
 *
 * List the configs of an environment with their value, rules and rollout
 */
export const listConfigStates = <ThrowOnError extends boolean = false>(options: Options<ListConfigStatesData, ThrowOnError>) => (options.client ?? client).get<ListConfigStatesResponses, ListConfigStatesErrors, ThrowOnError>({
    security: [{ scheme: 'bearer', type: 'http' }, {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }],
    url: '/api/v1/envs/{envId}/configs',
    ...options
});

/**
 * Get one config's value, rules and rollout in an environment
 *
 * Get one config's value, rules and rollout in an environment
 */
export const getConfigState = <ThrowOnError extends boolean = false>(options: Options<GetConfigStateData, ThrowOnError>) => (options.client ?? client).get<GetConfigStateResponses, GetConfigStateErrors, ThrowOnError>({
    security: [{ scheme: 'bearer', type: 'http' }, {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }],
    url: '/api/v1/envs/{envId}/configs/{key}',
    ...options
});

/**
 * Set a config's base value in an environment
 *
 * Audit action `config.update_value`; advances the environment version.
 */
export const setConfigValue = <ThrowOnError extends boolean = false>(options: Options<SetConfigValueData, ThrowOnError>) => (options.client ?? client).put<SetConfigValueResponses, SetConfigValueErrors, ThrowOnError>({
    security: [{ scheme: 'bearer', type: 'http' }, {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }],
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
 * The first matching rule wins. Audit action `config.update_rules`; advances the environment version.
 */
export const setConfigRules = <ThrowOnError extends boolean = false>(options: Options<SetConfigRulesData, ThrowOnError>) => (options.client ?? client).put<SetConfigRulesResponses, SetConfigRulesErrors, ThrowOnError>({
    security: [{ scheme: 'bearer', type: 'http' }, {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }],
    url: '/api/v1/envs/{envId}/configs/{key}/rules',
    ...options,
    headers: {
        'Content-Type': 'application/json',
        ...options.headers
    }
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
 * Filters combine with AND. `nextCursor` is null on the last page.
 */
export const listAuditEvents = <ThrowOnError extends boolean = false>(options: Options<ListAuditEventsData, ThrowOnError>) => (options.client ?? client).get<ListAuditEventsResponses, ListAuditEventsErrors, ThrowOnError>({
    security: [{ scheme: 'bearer', type: 'http' }, {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }],
    url: '/api/v1/orgs/{slug}/audit',
    ...options
});

/**
 * Get one audit event with its previous and new values and their diff
 *
 * Get one audit event with its previous and new values and their diff
 */
export const getAuditEvent = <ThrowOnError extends boolean = false>(options: Options<GetAuditEventData, ThrowOnError>) => (options.client ?? client).get<GetAuditEventResponses, GetAuditEventErrors, ThrowOnError>({
    security: [{ scheme: 'bearer', type: 'http' }, {
            in: 'cookie',
            name: 'svc_session',
            type: 'apiKey'
        }],
    url: '/api/v1/audit/events/{id}',
    ...options
});
