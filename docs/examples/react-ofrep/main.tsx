import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { OFREPWebProvider } from '@openfeature/ofrep-web-provider';
import { OpenFeature, OpenFeatureProvider } from '@openfeature/react-sdk';
import { App } from './App';

// A client key (pub_…) is safe to ship in a page: it only evaluates its environment's
// client-visible flags, and browsers let only the origins it allows read the answers.
OpenFeature.setProvider(
  new OFREPWebProvider({
    baseUrl: `${import.meta.env.VITE_GRADUAL_URL}/api/v1`,
    headers: [['Authorization', `Bearer ${import.meta.env.VITE_GRADUAL_CLIENT_KEY}`]],
  }),
);
// Rollouts bucket on the targeting key: use your signed-in user's id.
void OpenFeature.setContext({ targetingKey: 'user-1' });

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <OpenFeatureProvider>
      <App />
    </OpenFeatureProvider>
  </StrictMode>,
);
