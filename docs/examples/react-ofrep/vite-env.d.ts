/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** Where Gradual runs, e.g. https://flags.example.com */
  readonly VITE_GRADUAL_URL: string;
  /** A client key (`pub_…`) whose allowedOrigins lists this app's origin. */
  readonly VITE_GRADUAL_CLIENT_KEY: string;
}
