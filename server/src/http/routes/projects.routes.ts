import { initServer } from '@ts-rest/express';
import { contract } from '@gradual/contract';
import { callerOf } from '../caller.js';
import type { AppDeps } from '../../deps.js';
import { createProject, getProject, listProjects, updateProject } from '../../features/projects/projects.service.js';

const s = initServer();

export const projectsRoutes = (deps: AppDeps) =>
  s.router(contract.projects, {
    createProject: async ({ req, params, body }) => ({
      status: 201,
      body: await createProject(req.em, await callerOf(req, deps), params.slug, body),
    }),
    listProjects: async ({ req, params }) => ({ status: 200, body: await listProjects(req.em, await callerOf(req, deps), params.slug) }),
    getProject: async ({ req, params }) => ({ status: 200, body: await getProject(req.em, await callerOf(req, deps), params.id) }),
    updateProject: async ({ req, params, body }) => ({
      status: 200,
      body: await updateProject(req.em, await callerOf(req, deps), params.id, body),
    }),
  });
