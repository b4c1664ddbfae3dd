import { initServer } from '@ts-rest/express';
import { contract } from '@gradual/contract';
import { admit } from '../admission.js';
import type { AppDeps } from '../../deps.js';
import { createProject, deleteProject, getProject, listProjects, updateProject } from '../../features/projects/projects.service.js';
import { forgetEnvironments } from '../forget-environments.js';

const s = initServer();

export const projectsRoutes = (deps: AppDeps) =>
  s.router(contract.projects, {
    createProject: async ({ req, res, params, body }) => ({
      status: 201,
      body: await createProject(req.em, await admit(req, res, deps), params.slug, body),
    }),
    listProjects: async ({ req, res, params }) => ({ status: 200, body: await listProjects(req.em, await admit(req, res, deps), params.slug) }),
    getProject: async ({ req, res, params }) => ({ status: 200, body: await getProject(req.em, await admit(req, res, deps), params.id) }),
    updateProject: async ({ req, res, params, body }) => ({
      status: 200,
      body: await updateProject(req.em, await admit(req, res, deps), params.id, body),
    }),
    deleteProject: async ({ req, res, params, body }) => {
      forgetEnvironments(deps, await deleteProject(req.em, await admit(req, res, deps), params.id, body?.confirm));
      return { status: 204, body: undefined };
    },
  });
