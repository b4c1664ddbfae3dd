import { initServer } from '@ts-rest/express';
import { contract } from '@gradual/contract';
import { admit } from '../admission.js';
import { anonymousCaller, setSessionCookie } from '../caller.js';
import type { AppDeps } from '../../deps.js';
import { acceptInvitation, createInvitation, listInvitations, previewInvitation, revokeInvitation } from '../../features/members/invitations.service.js';
import { listMembers, removeMember, updateMember } from '../../features/members/members.service.js';

const s = initServer();

export const membersRoutes = (deps: AppDeps) =>
  s.router(contract.members, {
    listMembers: async ({ req, res, params }) => ({ status: 200, body: await listMembers(req.em, await admit(req, res, deps), params.slug) }),
    updateMember: async ({ req, res, params, body }) => {
      const { result, revokedKeyIds } = await updateMember(req.em, await admit(req, res, deps), params.slug, params.userId, body.role);
      for (const id of revokedKeyIds) {
        deps.apiKeys.forgetKey(id);
        deps.streams.endKey(id);
      }
      return { status: 200, body: result };
    },
    removeMember: async ({ req, res, params }) => {
      const { revokedKeyIds } = await removeMember(req.em, await admit(req, res, deps), params.slug, params.userId);
      for (const id of revokedKeyIds) {
        deps.apiKeys.forgetKey(id);
        deps.streams.endKey(id);
      }
      void deps.streams.recheck(); // the removed member's session streams on this organization end
      return { status: 204, body: undefined };
    },
  });

export const invitationsRoutes = (deps: AppDeps) =>
  s.router(contract.invitations, {
    createInvitation: async ({ req, res, params, body }) => ({
      status: 201,
      body: await createInvitation({ mailer: deps.mailer, publicUrl: deps.config.publicUrl }, req.em, await admit(req, res, deps), params.slug, body),
    }),
    listInvitations: async ({ req, res, params }) => ({
      status: 200,
      body: await listInvitations(req.em, await admit(req, res, deps), params.slug),
    }),
    revokeInvitation: async ({ req, res, params }) => {
      await revokeInvitation(req.em, await admit(req, res, deps), params.slug, params.id);
      return { status: 204, body: undefined };
    },
    getInvitation: async ({ req, params }) => ({
      status: 200,
      body: await previewInvitation(req.em, anonymousCaller(req, deps), params.token),
    }),
    acceptInvitation: async ({ req, res, params, body }) => {
      const accepted = await acceptInvitation(req.em, anonymousCaller(req, deps), params.token, body);
      setSessionCookie(res, deps.config, accepted.token, accepted.expiresAt);
      return { status: 200, body: accepted.session };
    },
  });
