/**
 * `@gradual/sdk/openfeature`: the Gradual provider for the OpenFeature server
 * SDK (`@openfeature/server-sdk`, a peer dependency).
 *
 *   await OpenFeature.setProviderAndWait(new GradualProvider({ baseUrl, token, envId }));
 *   const enabled = await OpenFeature.getClient().getBooleanValue('new-checkout', false, { targetingKey: userId });
 */
export { GradualProvider } from './provider.js';
export type { GradualProviderOptions, GradualProviderSettings } from './provider.js';
