/**
 * Builds the publishable package into sdk/dist: one entry per subpath export,
 * ESM (`.js`) and CommonJS (`.cjs`), with declarations (`.d.ts` / `.d.cts`).
 *
 * - Code splitting in both formats: code shared by several entries (the
 *   evaluator, the error class) lands in one chunk, so `GradualApiError` from
 *   `@gradual/sdk` and from `@gradual/sdk/openfeature` is the same class.
 * - Dependencies and peer dependencies stay external (tsup's default), so the
 *   optional peers (`msw`, `@openfeature/server-sdk`) are imported only by the
 *   `testing` and `openfeature` entries; tests/sdk/pack.test.ts checks that the
 *   main and evaluation entries never reach them.
 *
 * `npm run build -w sdk`.
 */
import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'evaluation/index': 'src/evaluation/index.ts',
    'openfeature/index': 'src/openfeature/index.ts',
    'testing/index': 'src/testing/index.ts',
  },
  outDir: 'dist',
  format: ['esm', 'cjs'],
  target: 'node20',
  platform: 'node',
  splitting: true,
  dts: true,
  tsconfig: 'tsconfig.build.json',
  sourcemap: false,
  clean: true,
  treeshake: false,
  minify: false,
  shims: false,
});
