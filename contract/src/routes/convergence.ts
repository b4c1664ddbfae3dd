import { errorResponses } from '../errors.js';
import { Convergence, ConvergenceQuery, RulesetAck } from '../schemas/convergence.js';
import { c } from './common.js';

export const convergenceContract = c.router({
  ackRuleset: {
    method: 'POST',
    path: '/envs/:envId/ruleset-acks',
    summary: 'Acknowledge the ruleset version an SDK instance serves',
    description:
      'Server and SDK keys that may evaluate the environment; client keys are refused (`403 scope_denied`). Counted in memory and written in batches: an acknowledgement costs no database write of its own.',
    body: RulesetAck,
    responses: { 204: c.noBody(), ...errorResponses(400, 401, 403, 404, 429) },
  },
  getConvergence: {
    method: 'GET',
    path: '/envs/:envId/convergence',
    summary: 'Which ruleset version the environment\'s SDK instances serve',
    description: 'The convergence ledger: instances seen within the window, how many serve the current version, the time to converge of the latest versions, and the laggards. Client keys are refused.',
    query: ConvergenceQuery,
    responses: { 200: Convergence, ...errorResponses(400, 401, 403, 404) },
  },
});
