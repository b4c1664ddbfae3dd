import { useBooleanFlagValue, useFlag } from '@openfeature/react-sdk';

/** Renders from two flags; each hook re-renders when its flag's value changes on the server. */
export function App() {
  const fastCheckout = useBooleanFlagValue('fast-checkout', false);
  const banner = useFlag('banner', 'classic');
  return (
    <main>
      <h1 data-testid="banner">{banner.value}</h1>
      <p>{banner.isAuthoritative ? 'From Gradual' : 'Default value: not loaded (yet)'}</p>
      <button type="button">{fastCheckout ? 'Buy in one click' : 'Go to checkout'}</button>
    </main>
  );
}
