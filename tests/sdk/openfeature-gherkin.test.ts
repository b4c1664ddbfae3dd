/**
 * The OpenFeature specification's Gherkin suites against GradualProvider: the specification's
 * test flags are created in Gradual through the HTTP API (createSpecFlags), and every scenario
 * runs through @openfeature/server-sdk (openfeature-gherkin.suite.ts). Expected failures:
 * tests/fixtures/openfeature-gherkin/expected-failures.json.
 */
import { AsyncLocalStorageTransactionContextPropagator, OpenFeature } from '@openfeature/server-sdk';
import { GradualProvider } from '@gradual/sdk/openfeature';
import { claim, startTestServer } from '../support/server.js';
import { gherkinSuite } from './openfeature-gherkin.suite.js';
import { ContextRecorder, createSpecFlags, gradualProviderStates, quietOpenFeatureLogger } from './openfeature-gherkin.steps.js';

gherkinSuite('OpenFeature specification Gherkin suites against GradualProvider', 'expected-failures.json', async () => {
  const t = await startTestServer();
  const owner = await claim(t);
  const s = owner.session;
  const projectId = (await s.createProject({ path: { slug: 'acme' }, body: { key: 'spec', name: 'Spec' } })).id;
  const envId = (await s.createEnvironment({ path: { id: projectId }, body: { key: 'test', name: 'Test' } })).id;
  const emptyProject = (await s.createProject({ path: { slug: 'acme' }, body: { key: 'empty', name: 'Empty' } })).id;
  const emptyEnvId = (await s.createEnvironment({ path: { id: emptyProject }, body: { key: 'test', name: 'Test' } })).id;
  const token = (await s.createApiKey({ path: { slug: 'acme' }, body: { name: 'sdk', actions: ['read'] } })).token;
  await createSpecFlags(s, projectId);

  // "a not ready provider" is closed while it still waits for its first ruleset, which the SDK
  // logs as an initialization error; everything else the SDK logs goes to the console.
  quietOpenFeatureLogger('Error during provider initialization:');
  OpenFeature.setTransactionContextPropagator(new AsyncLocalStorageTransactionContextPropagator());
  const stable = new GradualProvider({ baseUrl: t.url, token, envId, logger: null });
  await OpenFeature.setProviderAndWait('gherkin-stable', stable);
  const recorder = new ContextRecorder(new GradualProvider({ client: stable.client }));
  await OpenFeature.setProviderAndWait('gherkin-context', recorder);
  return {
    env: {
      stableDomain: 'gherkin-stable',
      contextDomain: 'gherkin-context',
      recorder,
      registerProvider: gradualProviderStates({ baseUrl: t.url, token, envId, emptyEnvId }),
    },
    close: async () => {
      await OpenFeature.close();
      const closing = t.close();
      t.server.http.closeAllConnections();
      await closing;
    },
  };
});
