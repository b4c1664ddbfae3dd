/**
 * The OpenFeature specification's Gherkin suites through OpenFeature's own OFREP provider
 * (@openfeature/ofrep-provider, unmodified) against Gradual's OFREP routes: the same test flags
 * as the GradualProvider run (createSpecFlags), every scenario through @openfeature/server-sdk
 * (openfeature-gherkin.suite.ts). Expected failures, each with the provider's reason:
 * tests/fixtures/openfeature-gherkin/expected-failures.ofrep.json.
 */
import { AsyncLocalStorageTransactionContextPropagator, OpenFeature } from '@openfeature/server-sdk';
import { OFREPProvider } from '@openfeature/ofrep-provider';
import { claim, startTestServer } from '../support/server.js';
import { gherkinSuite } from './openfeature-gherkin.suite.js';
import { ContextRecorder, createSpecFlags, quietOpenFeatureLogger, type GherkinEnv } from './openfeature-gherkin.steps.js';

gherkinSuite('OpenFeature specification Gherkin suites through the OFREP provider', 'expected-failures.ofrep.json', async () => {
  const t = await startTestServer();
  const owner = await claim(t);
  const s = owner.session;
  const projectId = (await s.createProject({ path: { slug: 'acme' }, body: { key: 'spec', name: 'Spec' } })).id;
  const envId = (await s.createEnvironment({ path: { id: projectId }, body: { key: 'test', name: 'Test' } })).id;
  // OFREP evaluates the one environment its key is bound to.
  const token = (await s.createApiKey({ path: { slug: 'acme' }, body: { name: 'ofrep', actions: ['read'], environments: [envId], rateLimitPerMin: 100_000 } })).token;
  await createSpecFlags(s, projectId);

  quietOpenFeatureLogger('');
  OpenFeature.setTransactionContextPropagator(new AsyncLocalStorageTransactionContextPropagator());
  const options = (bearer: string) => ({ baseUrl: `${t.url}/api/v1`, headers: [['Authorization', `Bearer ${bearer}`]] as [string, string][] });
  await OpenFeature.setProviderAndWait('ofrep-stable', new OFREPProvider(options(token)));
  const recorder = new ContextRecorder(new OFREPProvider(options(token)));
  await OpenFeature.setProviderAndWait('ofrep-context', recorder);
  // The OFREP provider has no life cycle of its own: no initialization to wait for or fail, no
  // connection to lose. It is ready whatever the server says; a rejected key fails each evaluation.
  const registerProvider: GherkinEnv['registerProvider'] = async (state, domain) => {
    await OpenFeature.setProviderAndWait(domain, new OFREPProvider(options(state === 'fatal' ? 'svc_not_a_real_token' : token)));
    return () => Promise.resolve();
  };
  return {
    env: { stableDomain: 'ofrep-stable', contextDomain: 'ofrep-context', recorder, registerProvider },
    close: async () => {
      await OpenFeature.close();
      const closing = t.close();
      t.server.http.closeAllConnections();
      await closing;
    },
  };
});
