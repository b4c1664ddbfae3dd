import { z } from 'zod';
import { DeletePrimitiveRequest } from '../schemas/lifecycle.js';
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
  PrimitiveListQuery,
  UpdatePrimitiveRequest,
} from '../schemas/primitives.js';
import { c, ConditionalGetHeaders, ConditionalMutationHeaders, type RouteMetadata } from './common.js';

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
      description: `Audit action \`${noun}.update_value\`; advances the environment version. An archived ${noun} answers \`409 primitive_archived\`.`,
      body: SetValueRequest,
      headers: ConditionalMutationHeaders,
      responses: { 200: State, ...errorResponses(400, 401, 403, 404, 409, 412) },
    },
    setRules: {
      method: 'PUT',
      path: `/envs/:envId/${segment}/:key/rules`,
      summary: `Replace a ${noun}'s targeting rules in an environment`,
      description: `The first matching rule wins. A segment condition names segments of the project (\`400\` naming the field when one does not exist). Audit action \`${noun}.update_rules\`; advances the environment version. An archived ${noun} answers \`409 primitive_archived\`.`,
      body: SetRulesRequest,
      headers: ConditionalMutationHeaders,
      responses: { 200: State, ...errorResponses(400, 401, 403, 404, 409, 412) },
    },
  } as const;
}

const flagState = primitiveStateRoutes('flags', 'flag', FlagState);
const configState = primitiveStateRoutes('configs', 'config', ConfigState);

/**
 * A flag's or config's definition (project level): create, read, metadata, archive, restore,
 * delete. One function for both families, as for their states.
 */
function definitionRoutes<D extends typeof Flag | typeof Config, B extends typeof CreateFlagRequest | typeof CreateConfigRequest>(
  segment: 'flags' | 'configs',
  noun: string,
  Definition: D,
  CreateBody: B,
) {
  const one = `/projects/:id/${segment}/:key` as const;
  const lifecycle = (verb: 'archive' | 'restore', summary: string, description: string) =>
    ({
      method: 'POST',
      path: `${one}/${verb}` as const,
      summary,
      description: `${description} Reaches every environment of the project (an API key restricted to environments gets \`403 token_env_out_of_scope\`); approval-required keys get \`403 approval_not_supported\`.`,
      body: c.noBody(),
      headers: ConditionalMutationHeaders,
      responses: { 200: Definition, ...errorResponses(400, 401, 403, 404, 409, 412) },
    }) as const;
  return {
    create: {
      method: 'POST',
      path: `/projects/:id/${segment}`,
      summary: `Create a ${noun}`,
      description: 'Its state is created in every environment of the project: an API key restricted to environments gets `403 token_env_out_of_scope`; one restricted to resources needs a key its globs match. An archived one keeps its key until it is deleted (`409 key_in_use`).',
      body: CreateBody,
      headers: ConditionalMutationHeaders.pick({ 'x-audit-reason': true }),
      responses: { 201: Definition, ...errorResponses(400, 401, 403, 404, 409) },
    },
    list: {
      method: 'GET',
      path: `/projects/:id/${segment}`,
      summary: `List the ${noun} definitions of a project`,
      description: 'Archived definitions are left out unless `archived` says otherwise.',
      query: PrimitiveListQuery,
      responses: { 200: z.array(Definition), ...errorResponses(401, 403, 404) },
    },
    get: {
      method: 'GET',
      path: one,
      summary: `Get a ${noun} definition (archived ones too)`,
      description: 'Sends a strong ETag for `If-Match` on the metadata, archive, restore and delete calls; `If-None-Match` answers 304.',
      headers: ConditionalGetHeaders,
      responses: { 200: Definition, 304: c.noBody(), ...errorResponses(401, 403, 404) },
      metadata: { etag: true } satisfies RouteMetadata,
    },
    update: {
      method: 'PATCH',
      path: one,
      summary: `Update a ${noun}'s name, description, tags, maintainer, client visibility, metadata or variants`,
      description: `Audit action \`${noun}.updated\` with the changed fields. \`If-Match\` with the definition's ETag guards against lost updates (\`412 precondition_failed\`). Reaches every environment of the project (an API key restricted to environments gets \`403 token_env_out_of_scope\`); approval-required keys get \`403 approval_not_supported\`. An archived ${noun}'s metadata can still be edited. \`variants\` that rename, change or remove a variant some environment's value, rule or live rollout (or the default value) uses answer \`409 variant_in_use\` with those names in \`details.variants\`.`,
      body: UpdatePrimitiveRequest,
      headers: ConditionalMutationHeaders,
      responses: { 200: Definition, ...errorResponses(400, 401, 403, 404, 409, 412) },
    },
    archive: lifecycle(
      'archive',
      `Archive a ${noun}`,
      `Hidden from lists by default; every environment then serves its base value to everyone with reason \`DISABLED\` (rules are kept but not applied), and its values, rules and rollouts cannot change (\`409 primitive_archived\`). Refused while a rollout of it is active or paused, or a pending proposal targets it: \`409 in_use\` with the referrers in \`fields\` (\`rollout.<envKey>\`, \`proposal.<id>\`). Audit action \`${noun}.archived\`; advances every environment's version. Archiving an archived ${noun} answers it unchanged.`,
    ),
    restore: lifecycle(
      'restore',
      `Restore an archived ${noun}`,
      `Its rules apply again and it can be rolled out. Audit action \`${noun}.restored\`; advances every environment's version. Restoring a live ${noun} answers it unchanged.`,
    ),
    delete: {
      method: 'DELETE',
      path: one,
      summary: `Delete an archived ${noun}`,
      description: `Only an archived ${noun} (\`409 primitive_not_archived\`), and only when no active or paused rollout and no pending proposal references it (\`409 in_use\` with the referrers in \`fields\`). The body repeats the key: \`{"confirm": "<key>"}\` (\`400 invalid_confirmation\`). Its states, rollouts, target IDs and usage are deleted in one transaction with the audit row \`${noun}.deleted\`; every environment gets a new version. Approval-required keys get \`403 approval_not_supported\`.`,
      body: DeletePrimitiveRequest,
      headers: ConditionalMutationHeaders,
      responses: { 204: c.noBody(), ...errorResponses(400, 401, 403, 404, 409, 412) },
      metadata: { optionalBody: true } satisfies RouteMetadata,
    },
  } as const;
}

const flag = definitionRoutes('flags', 'flag', Flag, CreateFlagRequest);
const config = definitionRoutes('configs', 'config', Config, CreateConfigRequest);

export const flagsContract = c.router({
  createFlag: flag.create,
  listFlags: flag.list,
  getFlag: flag.get,
  updateFlag: flag.update,
  archiveFlag: flag.archive,
  restoreFlag: flag.restore,
  deleteFlag: flag.delete,
  listFlagStates: flagState.list,
  getFlagState: flagState.get,
  setFlagValue: flagState.setValue,
  setFlagRules: flagState.setRules,
});

export const configsContract = c.router({
  createConfig: config.create,
  listConfigs: config.list,
  getConfig: config.get,
  updateConfig: config.update,
  archiveConfig: config.archive,
  restoreConfig: config.restore,
  deleteConfig: config.delete,
  listConfigStates: configState.list,
  getConfigState: configState.get,
  setConfigValue: configState.setValue,
  setConfigRules: configState.setRules,
});
