import type { GradualClient, MutationResult } from '@gradual/sdk';
import { claim, type TestServer } from '../../tests/support/server.js';

export interface Tenant {
  /** Session client of the instance owner (setup calls). */
  owner: GradualClient;
  /** API-key client (what an integration would use): the measured calls go through it. */
  api: GradualClient;
  orgSlug: string;
  projectId: string;
  envIds: string[];
}

/** Claims the instance, creates a project with `envCount` environments and an owner API key. */
export async function setUpTenant(t: TestServer, envCount = 1): Promise<Tenant> {
  const owner = await claim(t);
  const project = await owner.session.createProject({ path: { slug: owner.orgSlug }, body: { key: 'bench', name: 'Bench' } });
  const envIds: string[] = [];
  for (let i = 0; i < envCount; i++) {
    envIds.push((await owner.session.createEnvironment({ path: { id: project.id }, body: { key: `env${i}`, name: `Env ${i}` } })).id);
  }
  const key = await owner.session.createApiKey({ path: { slug: owner.orgSlug }, body: { name: 'bench', rateLimitPerMin: 100_000 } });
  return { owner: owner.session, api: t.asToken(key.token), orgSlug: owner.orgSlug, projectId: project.id, envIds };
}

/** The answer of a write that applied directly; a write diverted to an approval proposal throws. */
export function applied<T>(result: MutationResult<T>): T {
  if (result.kind === 'proposed') throw new Error(`expected an applied write, got proposal ${JSON.stringify(result.proposal)}`);
  return result.data;
}
