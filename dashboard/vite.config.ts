import { defineConfig } from 'vite';

/**
 * The dashboard: a single-page app served by the server at /app/. It imports the SDK from its
 * TypeScript sources through the workspace's `@gradual/source` export condition, so building the
 * dashboard never needs a built SDK.
 */
export default defineConfig({
  root: import.meta.dirname,
  base: '/app/',
  // dashboard/public holds the placeholder the server shows when no build exists; nothing to copy.
  publicDir: false,
  resolve: { conditions: ['@gradual/source'] },
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    // Hashed file names under /app/assets/: the server caches them for a year.
    assetsDir: 'assets',
    reportCompressedSize: false,
  },
  server: {
    // `npm run dev -w dashboard` next to `npm start`: the API on 8080, the app with hot reload.
    proxy: { '/api': 'http://localhost:8080' },
  },
});
