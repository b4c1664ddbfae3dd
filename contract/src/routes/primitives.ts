import { z } from 'zod';
import { errorResponses } from '../errors.js';
import {
  Config,
  ConfigState,
  CreateConfigRequest,
  CreateFlagRequest,
  Flag,
  FlagState,
  SetRulesRequest,
  SetValueRequest,
  UpdatePrimitiveRequest,
} from '../schemas/primitives.js';
import { c, ConditionalGetHeaders, ConditionalMutationHeaders, MutationHeaders, type RouteMetadata } from './common.js';

/**
 * Flags and configs share every per-environment endpoint; the config family is
 * the flag family with `/configs/` in the path. Both are built by this one
 * function so they cannot drift apart.
 */
function primitiveStateRoutes<S extends typeof FlagState | typeof ConfigState>(segment: 'flags' | 'configs', noun: string, State: S) {
  return {
    list: {
      method: 'GET',
      path: `/envs/:envId/${segment}`,
      summary: `List the ${noun}s of an environment with their value, rules and rollout`,
      responses: { 200: z.array(State), ...errorResponses(401, 403, 404) },
    },
    get: {
      method: 'GET',
      path: `/envs/:envId/${segment}/:key`,
      summary: `Get one ${noun}'s value, rules and rollout in an environment`,
      description: 'Sends a strong ETag; `If-None-Match` answers 304.',
      headers: ConditionalGetHeaders,
      responses: { 200: State, 304: c.noBody(), ...errorResponses(401, 403, 404) },
      metadata: { etag: true } satisfies RouteMetadata,
    },
    setValue: {
      method: 'PUT',
      path: `/envs/:envId/${segment}/:key/value`,
      summary: `Set a ${noun}'s base value in an environment`,
      description: `Audit action \`${noun}.update_value\`; advances the environment version.`,
      body: SetValueRequest,
      headers: ConditionalMutationHeaders,
      responses: { 200: State, ...errorResponses(400, 401, 403, 404, 412) },
    },
    setRules: {
      method: 'PUT',
      path: `/envs/:envId/${segment}/:key/rules`,
      summary: `Replace a ${noun}'s targeting rules in an environment`,
      description: `The first matching rule wins. Audit action \`${noun}.update_rules\`; advances the environment version.`,
      body: SetRulesRequest,
      headers: ConditionalMutationHeaders,
      responses: { 200: State, ...errorResponses(400, 401, 403, 404, 412) },
    },
  } as const;
}

const flagState = primitiveStateRoutes('flags', 'flag', FlagState);
const configState = primitiveStateRoutes('configs', 'config', ConfigState);

export const flagsContract = c.router({
  createFlag: {
    method: 'POST',
    path: '/projects/:id/flags',
    summary: 'Create a flag',
    description: 'Its state is created in every environment of the project: an API key restricted to environments gets `403 token_env_out_of_scope`; one restricted to resources needs a key its globs match.',
    body: CreateFlagRequest,
    headers: ConditionalMutationHeaders.pick({ 'x-audit-reason': true }),
    responses: { 201: Flag, ...errorResponses(400, 401, 403, 404, 409) },
  },
  listFlags: {
    method: 'GET',
    path: '/projects/:id/flags',
    summary: 'List the flag definitions of a project',
    responses: { 200: z.array(Flag), ...errorResponses(401, 403, 404) },
  },
  updateFlag: {
    method: 'PATCH',
    path: '/projects/:id/flags/:key',
    summary: 'Update a flag\'s name, description or client visibility',
    description: 'Reaches every environment of the project (an API key restricted to environments gets `403 token_env_out_of_scope`); approval-required keys get `403 approval_not_supported`.',
    body: UpdatePrimitiveRequest,
    headers: MutationHeaders,
    responses: { 200: Flag, ...errorResponses(400, 401, 403, 404) },
  },
  listFlagStates: flagState.list,
  getFlagState: flagState.get,
  setFlagValue: flagState.setValue,
  setFlagRules: flagState.setRules,
});

export const configsContract = c.router({
  createConfig: {
    method: 'POST',
    path: '/projects/:id/configs',
    summary: 'Create a config',
    description: 'Its state is created in every environment of the project: an API key restricted to environments gets `403 token_env_out_of_scope`; one restricted to resources needs a key its globs match.',
    body: CreateConfigRequest,
    headers: ConditionalMutationHeaders.pick({ 'x-audit-reason': true }),
    responses: { 201: Config, ...errorResponses(400, 401, 403, 404, 409) },
  },
  listConfigs: {
    method: 'GET',
    path: '/projects/:id/configs',
    summary: 'List the config definitions of a project',
    responses: { 200: z.array(Config), ...errorResponses(401, 403, 404) },
  },
  updateConfig: {
    method: 'PATCH',
    path: '/projects/:id/configs/:key',
    summary: 'Update a config\'s name, description or client visibility',
    description: 'Reaches every environment of the project (an API key restricted to environments gets `403 token_env_out_of_scope`); approval-required keys get `403 approval_not_supported`.',
    body: UpdatePrimitiveRequest,
    headers: MutationHeaders,
    responses: { 200: Config, ...errorResponses(400, 401, 403, 404) },
  },
  listConfigStates: configState.list,
  getConfigState: configState.get,
  setConfigValue: configState.setValue,
  setConfigRules: configState.setRules,
});
