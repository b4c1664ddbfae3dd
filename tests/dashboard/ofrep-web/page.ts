import { OpenFeature, ProviderEvents } from '@openfeature/web-sdk';
import { OFREPWebProvider } from '@openfeature/ofrep-web-provider';

/**
 * A web page of another origin evaluating flags with the OpenFeature web SDK and the OFREP web
 * provider, as published (ofrep-web.e2e.test.ts bundles it). The page's HTML sets `window.ofrep`
 * (the server's API address and a client key); the page shows:
 *
 * - #status: `ready`, or `error: …` when the provider could not load the flags;
 * - #banner: the `banner` flag's value, re-rendered on every configuration change;
 * - #hidden: the `internal-only` flag's value (`absent` when the key cannot see it);
 * - #raw: what a plain fetch of the bulk evaluation could read (`readable 200`, or `blocked`).
 */
declare global {
  interface Window {
    ofrep: { baseUrl: string; token: string };
  }
}

const show = (id: string, text: string) => {
  document.getElementById(id)!.textContent = text;
};

async function main(): Promise<void> {
  const { baseUrl, token } = window.ofrep;
  const provider = new OFREPWebProvider({ baseUrl, headers: [['Authorization', `Bearer ${token}`]], cacheMode: 'disabled' });
  await OpenFeature.setContext({ targetingKey: 'user-1', plan: 'pro' });
  const client = OpenFeature.getClient();
  const render = () => {
    show('banner', client.getStringValue('banner', 'unset'));
    show('hidden', client.getStringValue('internal-only', 'absent'));
  };
  client.addHandler(ProviderEvents.ConfigurationChanged, render);
  try {
    await OpenFeature.setProviderAndWait(provider);
    show('status', 'ready');
  } catch (err) {
    show('status', `error: ${String(err)}`);
  }
  render();
  try {
    const res = await fetch(`${baseUrl}/ofrep/v1/evaluate/flags`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ context: { targetingKey: 'user-1' } }),
    });
    show('raw', `readable ${res.status}`);
  } catch {
    show('raw', 'blocked');
  }
}

void main();
