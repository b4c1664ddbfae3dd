import { API_PREFIX, c } from './routes/common.js';
import { authContract } from './routes/auth.js';
import { environmentsContract, orgsContract, projectsContract } from './routes/orgs.js';
import { configsContract, flagsContract } from './routes/primitives.js';
import { apiKeysContract } from './routes/api-keys.js';
import { auditContract } from './routes/audit.js';
import { configRolloutsContract, flagRolloutsContract } from './routes/rollouts.js';
import { plansContract } from './routes/plans.js';
import { evaluationContract } from './routes/evaluation.js';
import { rollbackContract } from './routes/rollback.js';
import { invitationsContract, membersContract } from './routes/members.js';
import { proposalsContract } from './routes/proposals.js';
import { eventsContract } from './routes/events.js';
import { ofrepContract } from './routes/ofrep.js';
import { segmentsContract } from './routes/segments.js';
import { webhooksContract } from './routes/webhooks.js';
import { usageContract } from './routes/usage.js';
import { guardsContract } from './routes/guards.js';
import { convergenceContract } from './routes/convergence.js';
import { manifestContract } from './routes/manifest.js';

/** The whole API. Top-level keys become OpenAPI tags; route keys become operationIds. */
export const contract = c.router(
  {
    auth: authContract,
    orgs: orgsContract,
    members: membersContract,
    invitations: invitationsContract,
    projects: projectsContract,
    environments: environmentsContract,
    flags: flagsContract,
    configs: configsContract,
    flagRollouts: flagRolloutsContract,
    configRollouts: configRolloutsContract,
    rolloutPlans: plansContract,
    evaluation: evaluationContract,
    rollback: rollbackContract,
    apiKeys: apiKeysContract,
    audit: auditContract,
    proposals: proposalsContract,
    events: eventsContract,
    ofrep: ofrepContract,
    segments: segmentsContract,
    webhooks: webhooksContract,
    usage: usageContract,
    guards: guardsContract,
    convergence: convergenceContract,
    manifest: manifestContract,
  },
  { pathPrefix: API_PREFIX, strictStatusCodes: true },
);
export type Contract = typeof contract;

export * from './errors.js';
export * from './limits.js';
export * from './routes/common.js';
export * from './schemas/common.js';
export * from './schemas/auth.js';
export * from './schemas/orgs.js';
export * from './schemas/members.js';
export * from './schemas/variants.js';
export * from './schemas/primitives.js';
export * from './schemas/rollouts.js';
export * from './schemas/guards.js';
export * from './schemas/convergence.js';
export * from './schemas/api-keys.js';
export * from './schemas/audit.js';
export * from './schemas/evaluation.js';
export * from './schemas/rollback.js';
export * from './schemas/proposals.js';
export * from './schemas/events.js';
export * from './schemas/ofrep.js';
export * from './schemas/lifecycle.js';
export * from './schemas/segments.js';
export * from './schemas/webhooks.js';
export * from './schemas/usage.js';
export * from './schemas/manifest.js';
