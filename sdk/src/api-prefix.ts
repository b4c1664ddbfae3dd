import type { GetRulesetData } from './generated/types.gen.js';

/** The part of a generated route before `/envs/{envId}/ruleset`: the API's base path. */
type PrefixOf<Url> = Url extends `${infer Prefix}/envs/{envId}/ruleset` ? Prefix : never;

/**
 * The base path of every API route (the contract's `API_PREFIX`), for the URLs the SDK builds
 * itself: the live client's ruleset and stream, the msw handlers. Its type is read from the
 * generated ruleset route, so this line stops compiling when openapi.yaml moves the API.
 */
export const API_PREFIX: PrefixOf<GetRulesetData['url']> = '/api/v1';
