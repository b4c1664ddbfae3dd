import type { EntityManager } from '@mikro-orm/postgresql';
import { contract } from '@gradual/contract';
import type { Logger } from 'pino';
import { MagicLinkEntity, MembershipEntity, OrgEntity, UserEntity, type MagicLink } from '../../db/entities/index.js';
import { DomainError } from '../../domain/errors.js';
import { digestsEqual, hashToken } from '../../domain/secrets.js';
import type { Mailer } from '../../mail/mailer.js';
import { signInMail, signupMail } from '../../mail/templates.js';
import { clientAddressKey } from '../../rate-limits/client-address.js';
import type { RateLimits } from '../../rate-limits/rate-limits.js';
import type { Actor, Caller } from '../access/authorize.js';
import { recordAudit } from '../audit/audit.store.js';
import { slugify } from '../orgs/orgs.service.js';
import { isOneTimeTokenShaped, newOneTimeToken, retryOnUniqueViolation } from './one-time-tokens.js';
import { createSession } from './session.service.js';
import { transaction } from '../../db/transaction.js';

export const MAGIC_LINK_TTL_MINUTES = 15;
const MAGIC_LINK_TTL_MS = MAGIC_LINK_TTL_MINUTES * 60 * 1000;

/**
 * Sign-in and signup mail requests (both count), by client address (rate-limits/client-address.ts):
 * - 20 an hour per client address;
 * - 5 an hour per address and client address: the spec's 5 an hour per address, counted per
 *   requester, so requests from elsewhere never use up the budget of the person the address
 *   belongs to;
 * - whoever asks, at most one mail per address and purpose (sign-in, signup) a minute. A request
 *   inside that minute mails nothing, but a mail went to the address less than a minute before
 *   and its link is still good: issuing a link never invalidates an earlier one. So requests from
 *   anyone for someone's address bound the mail they get, and can never keep them from signing in.
 * There is deliberately no cap per address alone: whoever could exhaust it would lock its owner out.
 */
export const MAGIC_LINK_LIMITS = {
  perIp: { points: 20, durationSeconds: 3600 },
  perEmailAndIp: { points: 5, durationSeconds: 3600 },
  mailIntervalSeconds: 60,
} as const;

/** The redirect codes of `GET /auth/link` (docs/auth.md). */
export type LinkFailure = 'magic_link_already_used' | 'magic_link_expired' | 'magic_link_invalid' | 'no_invitation';

/** Thrown inside the redemption transaction to roll it back; becomes a redirect. */
class LinkFailed extends Error {
  constructor(readonly code: LinkFailure) {
    super(code);
  }
}

/**
 * What sign-in needs of invitations: an address without an account may sign in
 * only through its fresh pending invitations. The members slice implements it
 * (`pendingInvitations`); the HTTP layer passes it in.
 */
export interface PendingInvitations {
  /** Whether the address has a pending, unexpired invitation. */
  exist(em: EntityManager, email: string, now: Date): Promise<boolean>;
  /**
   * In `tx`: creates the user of a new address and accepts every fresh pending
   * invitation of it, each with its role, as POST /invitations/{token}/accept would
   * (the rows locked). The new user's id, or null when there is no such invitation.
   */
  join(tx: EntityManager, caller: Caller, email: string): Promise<string | null>;
}

/** What the magic-link service needs besides the database. */
export interface MagicLinkInputs {
  mailer: Mailer;
  /** The server's public origin, for the link in the mail. */
  publicUrl: string;
  limits: RateLimits;
  logger: Logger;
  invitations: PendingInvitations;
}

export const magicLinkUrl = (publicUrl: string, token: string) => `${publicUrl}${contract.auth.redeemMagicLink.path}?t=${token}`;

/**
 * Counts one mail request against the limits (MAGIC_LINK_LIMITS), in order; the first that refuses
 * is answered (null when all allow). Counted before the address is looked up, and whatever the
 * outcome, so they say nothing about whether the address has an account.
 */
async function mailLimitHit(deps: MagicLinkInputs, caller: Caller, email: string, purpose: MagicLink['purpose']): Promise<string | null> {
  const { perIp, perEmailAndIp, mailIntervalSeconds } = MAGIC_LINK_LIMITS;
  const address = clientAddressKey(caller.ip);
  if (!(await deps.limits.consume('magic-link-ip', address, perIp.points, perIp.durationSeconds)).allowed) return 'per client address';
  // Addresses hold no spaces (the contract's email format): the pair is unambiguous.
  const pair = `${address} ${email}`;
  if (!(await deps.limits.consume('magic-link-email-ip', pair, perEmailAndIp.points, perEmailAndIp.durationSeconds)).allowed) return 'per address and client address';
  const interval = await deps.limits.buckets.take([{ key: `mail:${purpose}:${email}`, capacity: 1, refillSeconds: mailIntervalSeconds }], caller.now.getTime());
  return interval.allowed ? null : 'a link was mailed to this address within the minute';
}

function issueLink(em: EntityManager, caller: Caller, email: string, purpose: MagicLink['purpose'], signup: MagicLink['signup']): string {
  const token = newOneTimeToken();
  em.create(MagicLinkEntity, {
    tokenHash: hashToken(token),
    email,
    purpose,
    signup,
    requestIp: caller.ip || null,
    createdAt: caller.now,
    expiresAt: new Date(caller.now.getTime() + MAGIC_LINK_TTL_MS),
    usedAt: null,
  });
  return token;
}

/**
 * POST /auth/magic-link. The answer never depends on the address: a link is
 * mailed to an existing user or to an address with a pending invitation,
 * and nothing to anyone else (docs/auth.md) or over the limits. Each request
 * issues a link of its own; the earlier ones stay good until used or expired.
 */
export async function requestMagicLink(deps: MagicLinkInputs, em: EntityManager, caller: Caller, rawEmail: string): Promise<void> {
  const email = rawEmail.toLowerCase();
  const log = deps.logger.child({ purpose: 'signin' });
  const limited = await mailLimitHit(deps, caller, email, 'signin');
  if (limited) {
    log.warn({ email, ip: caller.ip, limit: limited }, 'magic link not sent: rate limited');
    return;
  }
  const user = await em.findOne(UserEntity, { email });
  const eligible = user ? !user.deletedAt : await deps.invitations.exist(em, email, caller.now);
  if (!eligible) {
    log.info({ email }, 'magic link not sent: no account and no pending invitation for this address');
    return;
  }
  const token = issueLink(em, caller, email, 'signin', null);
  await em.flush();
  void deps.mailer.send(signInMail(email, magicLinkUrl(deps.publicUrl, token), MAGIC_LINK_TTL_MINUTES));
}

/**
 * POST /auth/signup: mails a link that creates the user (if new) and the org.
 * The slug is derived now and must be free now; it is derived again at redemption.
 */
export async function requestSignup(
  deps: MagicLinkInputs,
  em: EntityManager,
  caller: Caller,
  input: { email: string; displayName: string; orgName: string },
): Promise<void> {
  const email = input.email.toLowerCase();
  const orgSlug = slugify(input.orgName);
  if (await em.findOne(OrgEntity, { slug: orgSlug })) {
    throw new DomainError('slug_unavailable', `The organization slug "${orgSlug}" is taken; choose another name.`, {
      fields: { orgName: `slug "${orgSlug}" already taken` },
    });
  }
  const log = deps.logger.child({ purpose: 'signup' });
  const limited = await mailLimitHit(deps, caller, email, 'signup');
  if (limited) {
    log.warn({ email, ip: caller.ip, limit: limited }, 'signup link not sent: rate limited');
    return;
  }
  const user = await em.findOne(UserEntity, { email });
  if (user?.deletedAt) {
    log.info({ email }, 'signup link not sent: the address belongs to a deleted account');
    return;
  }
  const token = issueLink(em, caller, email, 'signup', { displayName: input.displayName, orgName: input.orgName, orgSlug });
  await em.flush();
  void deps.mailer.send(signupMail(email, magicLinkUrl(deps.publicUrl, token), input.orgName, MAGIC_LINK_TTL_MINUTES));
}

export type Redemption = { ok: true; token: string; expiresAt: Date } | { ok: false; code: LinkFailure };

/**
 * GET /auth/link. One transaction: the link is claimed with a conditional
 * UPDATE (`used_at IS NULL AND expires_at > now`), so of two concurrent
 * redemptions exactly one gets a session; then the sign-in or signup it was
 * issued for happens. A failure rolls everything back, the claim included.
 */
export async function redeemMagicLink(deps: MagicLinkInputs, em: EntityManager, caller: Caller, token: string | undefined): Promise<Redemption> {
  if (!isOneTimeTokenShaped(token)) return { ok: false, code: 'magic_link_invalid' };
  const hash = hashToken(token);
  const now = caller.now;
  try {
    const session = await retryOnUniqueViolation(() =>
      transaction(em, async (tx) => {
        const claimed = await tx.nativeUpdate(MagicLinkEntity, { tokenHash: hash, usedAt: null, expiresAt: { $gt: now } }, { usedAt: now });
        const link = await tx.findOne(MagicLinkEntity, { tokenHash: hash });
        if (!link || !digestsEqual(link.tokenHash, hash)) throw new LinkFailed('magic_link_invalid');
        if (claimed !== 1) throw new LinkFailed(link.usedAt ? 'magic_link_already_used' : 'magic_link_expired');
        const userId = link.purpose === 'signup' ? await completeSignup(tx, caller, link) : await signIn(tx, caller, link.email, deps.invitations);
        return createSession(tx, userId, now);
      }),
    );
    return { ok: true, ...session };
  } catch (err) {
    if (err instanceof LinkFailed) {
      deps.logger.info({ code: err.code }, 'magic link refused');
      return { ok: false, code: err.code };
    }
    throw err;
  }
}

/**
 * A sign-in link: an existing user signs in. A new address signs in only
 * through its pending invitations (see PendingInvitations.join). Otherwise
 * `no_invitation`.
 */
async function signIn(tx: EntityManager, caller: Caller, email: string, invitations: PendingInvitations): Promise<string> {
  const user = await tx.findOne(UserEntity, { email });
  if (user) {
    if (user.deletedAt) throw new LinkFailed('no_invitation');
    return user.id;
  }
  const joined = await invitations.join(tx, caller, email);
  if (!joined) throw new LinkFailed('no_invitation');
  return joined;
}

/** A signup link: the user (if new), the org and the owner membership, with their audit rows. */
async function completeSignup(tx: EntityManager, caller: Caller, link: MagicLink): Promise<string> {
  const data = link.signup;
  if (!data) throw new LinkFailed('magic_link_invalid');
  const now = caller.now;
  let user = await tx.findOne(UserEntity, { email: link.email });
  if (user?.deletedAt) throw new LinkFailed('no_invitation');
  user ??= tx.create(UserEntity, { email: link.email, displayName: data.displayName, createdAt: now, deletedAt: null });
  const slug = await freeSlug(tx, data.orgSlug);
  const org = tx.create(OrgEntity, { slug, name: data.orgName, createdAt: now, updatedAt: now });
  tx.create(MembershipEntity, { orgId: org.id, userId: user.id, role: 'owner', createdAt: now });
  const actor: Actor = { actorType: 'user', actorId: user.id, actorEmail: user.email, delegatorUserId: null, role: 'owner' };
  recordAudit(tx, caller, actor, {
    orgId: org.id,
    action: 'org.created',
    resourceType: 'org',
    resourceKey: slug,
    resourceId: org.id,
    newValue: { slug, name: org.name, via: 'signup' },
  });
  recordAudit(tx, caller, actor, {
    orgId: org.id,
    action: 'member.added',
    resourceType: 'member',
    resourceKey: user.email,
    resourceId: user.id,
    newValue: { userId: user.id, email: user.email, role: 'owner' },
  });
  return user.id;
}

/**
 * The slug was free when the signup was requested; if someone took it since,
 * the org gets the first free `<slug>-2`, `<slug>-3`, … rather than failing
 * a link the user already clicked (a race on the last one retries the transaction).
 */
async function freeSlug(tx: EntityManager, wanted: string): Promise<string> {
  if (!(await tx.findOne(OrgEntity, { slug: wanted }))) return wanted;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = `${wanted.slice(0, 63 - suffix.length).replace(/-+$/, '')}${suffix}`;
    if (!(await tx.findOne(OrgEntity, { slug: candidate }))) return candidate;
  }
}
