import type { EntityManager } from '@mikro-orm/postgresql';
import { authorize, tokenScope, type Caller } from '../access/authorize.js';
import { auditRowInScope } from '../audit/audit.store.js';
import { findEnvironment, findOrgBySlug } from '../common/lookup.js';
import type { ChangeScope, EventStreamTarget, StreamGrant } from './live-streams.js';

/** What an event stream is opened with: what it follows, the credential it lasts as long as, and which changes it carries. */
export interface EventStreamAccess {
  target: EventStreamTarget;
  grant: StreamGrant;
  visible: (row: ChangeScope) => boolean;
}

/** An environment's event stream: the access of reading the environment; changes as the audit log scopes them. */
export async function environmentEventsAccess(em: EntityManager, caller: Caller, envId: string): Promise<EventStreamAccess> {
  const env = await findEnvironment(em, envId);
  await authorize(em, caller, env.orgId, { action: 'read', envId: env.id });
  return { target: { envId: env.id, version: env.version }, grant: grantOf(caller, env.orgId), visible: visibleTo(caller) };
}

/** An organization's event stream: the access of reading its audit log, and only the changes it would list. */
export async function orgEventsAccess(em: EntityManager, caller: Caller, slug: string): Promise<EventStreamAccess> {
  const org = await findOrgBySlug(em, slug);
  await authorize(em, caller, org.id, { action: 'read' });
  return { target: { orgId: org.id }, grant: grantOf(caller, org.id), visible: visibleTo(caller) };
}

function grantOf(caller: Caller, orgId: string): StreamGrant {
  const principal = caller.principal!; // authorize refuses a caller without one
  return principal.kind === 'token'
    ? { kind: 'key', keyId: principal.key.id, expiresAt: principal.key.expiresAt ?? null }
    : { kind: 'session', sessionId: principal.sessionId, orgId };
}

function visibleTo(caller: Caller): (row: ChangeScope) => boolean {
  const scope = tokenScope(caller);
  return (row) => auditRowInScope(scope, row);
}
