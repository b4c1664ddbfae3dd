import { errorResponses } from '../errors.js';
import {
  CreateEnvironmentRequest,
  CreateOrgRequest,
  CreateProjectRequest,
  Environment,
  Org,
  Project,
  UpdateProjectRequest,
} from '../schemas/orgs.js';
import { DeleteOrgRequest } from '../schemas/members.js';
import { DeleteEnvironmentRequest, DeleteProjectRequest } from '../schemas/lifecycle.js';
import { z } from 'zod';
import { c, MutationHeaders, type RouteMetadata } from './common.js';

export const orgsContract = c.router({
  createOrg: {
    method: 'POST',
    path: '/orgs',
    summary: 'Create an organization',
    description: 'The caller becomes its owner. The slug is derived from the name when omitted.',
    body: CreateOrgRequest,
    headers: MutationHeaders,
    responses: { 201: Org, ...errorResponses(400, 401, 403, 409) },
    metadata: { auth: 'session' } satisfies RouteMetadata,
  },
  getOrg: {
    method: 'GET',
    path: '/orgs/:slug',
    summary: 'Get an organization',
    responses: { 200: Org, ...errorResponses(401, 403, 404) },
  },
  deleteOrg: {
    method: 'DELETE',
    path: '/orgs/:slug',
    summary: 'Delete an organization and everything in it',
    description:
      'Owner only. The body repeats the slug: `{"confirm": "<slug>"}`; missing or different is `400 invalid_confirmation` (`fields.confirm`). Projects, environments, flags, configs, rollouts, plans, API keys, rollback secrets and fire history, invitations, memberships, proposals and the audit log of the organization are deleted in one transaction; users stay.',
    body: DeleteOrgRequest,
    headers: MutationHeaders,
    responses: { 204: c.noBody(), ...errorResponses(400, 401, 403, 404) },
    metadata: { auth: 'session', optionalBody: true } satisfies RouteMetadata,
  },
});

export const projectsContract = c.router({
  createProject: {
    method: 'POST',
    path: '/orgs/:slug/projects',
    summary: 'Create a project',
    description:
      'Admin or owner. `targetIdField` (default `userId`) is the context attribute rollouts bucket on. API keys restricted to environments or resources may not (`403 token_env_out_of_scope` / `token_resource_out_of_scope`).',
    body: CreateProjectRequest,
    headers: MutationHeaders,
    responses: { 201: Project, ...errorResponses(400, 401, 403, 404, 409) },
  },
  listProjects: {
    method: 'GET',
    path: '/orgs/:slug/projects',
    summary: 'List the projects of an organization',
    description: 'An API key restricted to environments lists the projects those environments belong to.',
    responses: { 200: z.array(Project), ...errorResponses(401, 403, 404) },
  },
  getProject: {
    method: 'GET',
    path: '/projects/:id',
    summary: 'Get a project',
    description: 'An API key restricted to environments reads only projects holding one of them (`403 token_env_out_of_scope`).',
    responses: { 200: Project, ...errorResponses(401, 403, 404) },
  },
  updateProject: {
    method: 'PATCH',
    path: '/projects/:id',
    summary: 'Rename a project or change its target ID field',
    description: 'Admin or owner. The key cannot change. An API key restricted to environments or resources gets `403 token_env_out_of_scope` or `token_resource_out_of_scope`: the change reaches every environment of the project.',
    body: UpdateProjectRequest,
    headers: MutationHeaders,
    responses: { 200: Project, ...errorResponses(400, 401, 403, 404) },
  },
  deleteProject: {
    method: 'DELETE',
    path: '/projects/:id',
    summary: 'Delete a project and everything in it',
    description:
      'Admin or owner, signed in or with an unrestricted API key (approval-required keys get `403 approval_not_supported`). The body repeats the key: `{"confirm": "<project key>"}`; missing or different is `400 invalid_confirmation` (`fields.confirm`). Its environments, flags, configs, segments, rollouts and target IDs, plans, rollback secrets and fire history, webhook subscriptions and deliveries, usage and the proposals of its environments are deleted, API keys bound to its environments alone are revoked, in one transaction with the audit row `project.deleted` (the organization\'s audit log keeps its history); streams of its environments end.',
    body: DeleteProjectRequest,
    headers: MutationHeaders,
    responses: { 204: c.noBody(), ...errorResponses(400, 401, 403, 404) },
    metadata: { optionalBody: true } satisfies RouteMetadata,
  },
});

export const environmentsContract = c.router({
  createEnvironment: {
    method: 'POST',
    path: '/projects/:id/environments',
    summary: 'Create an environment',
    description:
      'Admin or owner. Every flag and config of the project gets its state in the new environment (value = its default, no rules). The version starts at 0; the ruleset is served from the first write on. An API key restricted to environments or resources gets `403 token_env_out_of_scope` or `token_resource_out_of_scope`: the change reaches every environment of the project.',
    body: CreateEnvironmentRequest,
    headers: MutationHeaders,
    responses: { 201: Environment, ...errorResponses(400, 401, 403, 404, 409) },
  },
  listEnvironments: {
    method: 'GET',
    path: '/projects/:id/environments',
    summary: 'List the environments of a project',
    responses: { 200: z.array(Environment), ...errorResponses(401, 403, 404) },
  },
  getEnvironment: {
    method: 'GET',
    path: '/envs/:envId',
    summary: 'Get an environment (with its current version)',
    responses: { 200: Environment, ...errorResponses(401, 403, 404) },
  },
  deleteEnvironment: {
    method: 'DELETE',
    path: '/envs/:envId',
    summary: 'Delete an environment and everything in it',
    description:
      'Admin or owner, signed in or with an API key unrestricted by environment (approval-required keys get `403 approval_not_supported`). The body repeats the key: `{"confirm": "<environment key>"}`; missing or different is `400 invalid_confirmation` (`fields.confirm`). The flags\' and configs\' states in it, its rollouts and target IDs, rollback secrets and fire history, usage and proposals are deleted, API keys bound to it alone are revoked (others lose it from their list), in one transaction with the audit row `environment.deleted` (the audit log keeps its history); its streams end. The definitions stay in the project\'s other environments.',
    body: DeleteEnvironmentRequest,
    headers: MutationHeaders,
    responses: { 204: c.noBody(), ...errorResponses(400, 401, 403, 404) },
    metadata: { optionalBody: true } satisfies RouteMetadata,
  },
});
