import type { EntityManager } from '@mikro-orm/postgresql';
import ipaddr from 'ipaddr.js';
import { globMatches } from '../../domain/resource-glob.js';
import { ApiKeyEntity, EnvironmentEntity, MembershipEntity, type ApiKey } from '../../db/entities/index.js';
import { DomainError } from '../../domain/errors.js';
import type { Principal } from './principal.js';

export type Role = 'owner' | 'admin' | 'member';
const roleRank: Record<Role, number> = { member: 0, admin: 1, owner: 2 };

/** Everything a service needs to know about the caller of one request. */
export interface Caller {
  principal: Principal | null;
  /** Client address (Express `req.ip`, honouring TRUST_PROXY). */
  ip: string;
  /** X-Audit-Reason, stored on every audit row of the request. */
  reason: string | null;
  now: Date;
  /**
   * Set only while a proposal is applied: the user who approved this write of
   * an approval-required API key (the principal). Stored as the audit rows'
   * approverUserId; the key's IP allow-list and approval requirement were
   * settled when the proposal was made.
   */
  approverUserId?: string | null;
}

/** Who an audit row names. */
export interface Actor {
  actorType: 'user' | 'api_token' | 'agent_token' | 'system' | 'rollback_webhook';
  actorId: string | null;
  actorEmail: string | null;
  delegatorUserId: string | null;
  /** The session user's role in the org (null for tokens). */
  role: Role | null;
}

export const systemActor: Actor = { actorType: 'system', actorId: null, actorEmail: null, delegatorUserId: null, role: null };

export interface AccessRequirement {
  action: 'read' | 'write';
  /** Minimum role of a session user (tokens carry admin-equivalent scope on their org). */
  role?: Role;
  /** Tokens may not use this endpoint at all (`scope_denied`). */
  sessionOnly?: boolean;
  /** Environment the request touches; checked against a token's environments. */
  envId?: string;
  /** Primitive key the request touches; checked against a token's resource globs. */
  resourceKey?: string;
  /**
   * Project the request reads or writes in: a token restricted to environments must hold at
   * least one of this project's (`token_env_out_of_scope`), so it learns nothing of projects it
   * has no environment in.
   */
  projectId?: string;
  /**
   * The write reaches past any one environment (an org's or project's settings, a new
   * environment, a definition whose state every environment gets): a token restricted to
   * environments is refused (`token_env_out_of_scope`), since it would change environments
   * outside its list, production included.
   */
  allEnvironments?: boolean;
  /**
   * The write is about no single primitive (an org's or project's settings, environments,
   * rollout plans): a token restricted to resources is refused (`token_resource_out_of_scope`).
   */
  allResources?: boolean;
  /**
   * A write that an approval-required API key may make itself: it becomes (or
   * withdraws) a proposal instead of changing anything. Any other write by such
   * a key is `approval_not_supported`.
   */
  proposal?: boolean;
  /**
   * A write that only stops exposure (the manual rollback, a kill switch): an
   * approval-required API key makes it directly, since it must not wait for an approver.
   */
  stopsExposure?: boolean;
  /**
   * The request evaluates flags and configs (`POST /envs/{envId}/evaluate`, OFREP): the one thing
   * a client key (`pub_…`) may do. A client key is refused everywhere else (`scope_denied`).
   */
  evaluation?: boolean;
}

/**
 * Authorizes the caller on one org. Cross-tenant access is 404, never 403.
 * Token checks run in the order of docs/auth.md: IP, action, environment, resource;
 * then an approval-required key's write must be one that becomes a proposal.
 */
export async function authorize(em: EntityManager, caller: Caller, orgId: string, need: AccessRequirement): Promise<Actor> {
  const principal = caller.principal;
  if (!principal) throw new DomainError('unauthorized', 'Sign in or send an API key.');
  if (principal.kind === 'user') {
    const membership = await em.findOne(MembershipEntity, { orgId, userId: principal.userId });
    if (!membership) throw new DomainError('not_found', 'Not found.');
    const role = membership.role;
    if (need.role && roleRank[role] < roleRank[need.role]) {
      throw new DomainError('insufficient_role', `This needs the ${need.role} role or higher.`);
    }
    return { actorType: 'user', actorId: principal.userId, actorEmail: principal.email, delegatorUserId: null, role };
  }
  const key = principal.key;
  const approved = !!caller.approverUserId;
  const projectHeld = need.projectId === undefined || key.orgId !== orgId || !key.environments ? true : await holdsProjectEnvironment(em, key.environments, need.projectId);
  checkApiKeyAccess(key, orgId, need, caller.ip, approved, projectHeld);
  if (!approved) await touchLastUsed(em, key.id, key.lastUsedAt, caller.now);
  return {
    actorType: key.kind === 'agent' ? 'agent_token' : 'api_token',
    actorId: key.id,
    actorEmail: null,
    delegatorUserId: key.createdByUserId ?? null,
    role: null,
  };
}

/** Whether one of `envIds` belongs to the project. */
async function holdsProjectEnvironment(em: EntityManager, envIds: string[], projectId: string): Promise<boolean> {
  if (!envIds.length) return false;
  return (await em.count(EnvironmentEntity, { projectId, id: { $in: envIds } })) > 0;
}

/**
 * An API key's restrictions, in the spec's order (org, session-only, IP, action, environment,
 * resource, approval): throws the first that refuses. Synchronous: no I/O; `projectHeld` says
 * whether a key restricted to environments holds one of `need.projectId`'s (authorize reads it).
 */
export function checkApiKeyAccess(key: ApiKey, orgId: string, need: AccessRequirement, ip: string, approved: boolean, projectHeld = true): void {
  if (key.orgId !== orgId) throw new DomainError('not_found', 'Not found.');
  if (key.kind === 'client' && !need.evaluation) throw clientKeyDenied();
  if (need.sessionOnly) throw new DomainError('scope_denied', 'API keys cannot use this endpoint; sign in.');
  if (key.ipAllowlist && !approved && !ipAllowed(ip, key.ipAllowlist)) {
    throw new DomainError('token_ip_denied', 'This API key is not allowed from this address.');
  }
  if (!key.actions.includes(need.action)) {
    throw new DomainError('token_action_denied', `This API key lacks the ${need.action} action.`);
  }
  if (key.environments) {
    if (need.allEnvironments) {
      throw new DomainError('token_env_out_of_scope', 'This API key is restricted to some environments, and this change reaches every environment of the project.');
    }
    if (need.envId && !key.environments.includes(need.envId)) {
      throw new DomainError('token_env_out_of_scope', 'This API key is not scoped to this environment.');
    }
    if (!projectHeld) throw new DomainError('token_env_out_of_scope', 'This API key is scoped to no environment of this project.');
  }
  if (key.resources) {
    if (need.allResources) {
      throw new DomainError('token_resource_out_of_scope', 'This API key is restricted to some flags and configs, and this change is about none of them in particular.');
    }
    if (need.resourceKey !== undefined && !resourceAllowed(need.resourceKey, key.resources)) {
      throw new DomainError('token_resource_out_of_scope', `This API key is not scoped to "${need.resourceKey}".`);
    }
  }
  if (need.action === 'write' && key.requiresApproval && !need.proposal && !need.stopsExposure && !approved) {
    throw new DomainError('approval_not_supported', 'This API key requires approval, and this change cannot become a proposal.');
  }
}

/** A client key (`pub_…`) outside evaluation: it is public (shipped in web pages), so it only evaluates. */
export function clientKeyDenied(): DomainError {
  return new DomainError('scope_denied', 'Client keys can only evaluate flags.');
}

/** The caller must be a signed-in user (org-less endpoints such as POST /orgs). */
export function requireUser(caller: Caller) {
  const principal = caller.principal;
  if (!principal) throw new DomainError('unauthorized', 'Sign in first.');
  if (principal.kind !== 'user') throw new DomainError('scope_denied', 'API keys cannot use this endpoint; sign in.');
  return principal;
}

export function userActor(caller: Caller, role: Role | null = null): Actor {
  const user = requireUser(caller);
  return { actorType: 'user', actorId: user.userId, actorEmail: user.email, delegatorUserId: null, role };
}

/** For lists: whether a token may see this environment / key (lists are filtered, not refused). */
export function tokenSees(caller: Caller, envId?: string, resourceKey?: string): boolean {
  const p = caller.principal;
  if (p?.kind !== 'token') return true;
  if (envId && p.key.environments && !p.key.environments.includes(envId)) return false;
  if (resourceKey !== undefined && p.key.resources && !resourceAllowed(resourceKey, p.key.resources)) return false;
  return true;
}

/** A token's environment and resource restrictions; null for a session or an unrestricted token. */
export interface TokenScope {
  environments: string[] | null;
  resources: string[] | null;
}

export function tokenScope(caller: Caller): TokenScope | null {
  const p = caller.principal;
  if (p?.kind !== 'token' || (!p.key.environments && !p.key.resources)) return null;
  return { environments: p.key.environments ?? null, resources: p.key.resources ?? null };
}

/**
 * A resource glob as a SQL LIKE pattern (backslash escapes): `*` becomes `%`, and `%`, `_` and
 * `\` are literal, so the database filters a list the way resourceAllowed decides one key.
 */
export function resourceGlobAsLike(glob: string): string {
  return glob.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, '%');
}

/**
 * A restricted token's scope as query conditions on an entity's environment and primitive-key
 * properties (the ones named), for lists filtered in the query so that pages stay full; null
 * when the scope admits nothing (an empty list of environments or globs).
 */
export function scopeConditions(scope: TokenScope, fields: { envId?: string; resourceKey?: string }): Array<Record<string, unknown>> | null {
  const conditions: Array<Record<string, unknown>> = [];
  if (scope.environments && fields.envId) {
    if (!scope.environments.length) return null;
    conditions.push({ [fields.envId]: { $in: scope.environments } });
  }
  if (scope.resources && fields.resourceKey) {
    if (!scope.resources.length) return null;
    const key = fields.resourceKey;
    conditions.push({ $or: scope.resources.map((glob) => ({ [key]: { $like: resourceGlobAsLike(glob) } })) });
  }
  return conditions;
}

/** Resource globs: `*` matches any run of characters; everything else is literal (domain/resource-glob.ts). */
export function resourceAllowed(key: string, globs: string[]): boolean {
  return globs.some((glob) => globMatches(glob, key));
}

export function ipAllowed(ip: string, allowlist: string[]): boolean {
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.process(ip);
  } catch {
    return false;
  }
  return allowlist.some((entry) => {
    try {
      const [range, bits] = entry.includes('/') ? ipaddr.parseCIDR(entry) : [ipaddr.process(entry), null];
      const r = range instanceof ipaddr.IPv6 && range.isIPv4MappedAddress() ? range.toIPv4Address() : range;
      if (addr instanceof ipaddr.IPv4 && r instanceof ipaddr.IPv4) return addr.match(r, bits ?? 32);
      if (addr instanceof ipaddr.IPv6 && r instanceof ipaddr.IPv6) return addr.match(r, bits ?? 128);
      return false;
    } catch {
      return false;
    }
  });
}

/** Writing lastUsedAt on every request would add a write per read; once a minute is enough. */
/** When this instance last wrote each key's lastUsedAt (keys come from a cache, so their own field lags). */
const lastTouched = new Map<string, number>();

/** Whether this use of the key must record lastUsedAt (at most once a minute per key and instance). */
export function lastUsedDue(key: Pick<ApiKey, 'id' | 'lastUsedAt'>, now: Date): boolean {
  const last = Math.max(key.lastUsedAt?.getTime() ?? 0, lastTouched.get(key.id) ?? 0);
  return !(now.getTime() - last < 60_000 && now.getTime() >= last);
}

async function touchLastUsed(em: EntityManager, keyId: string, lastUsedAt: Date | null | undefined, now: Date) {
  if (!lastUsedDue({ id: keyId, lastUsedAt: lastUsedAt ?? null }, now)) return;
  if (lastTouched.size >= 10_000) lastTouched.clear();
  lastTouched.set(keyId, now.getTime());
  await em.nativeUpdate(ApiKeyEntity, { id: keyId }, { lastUsedAt: now });
}
