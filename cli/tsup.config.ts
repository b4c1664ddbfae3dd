/**
 * Builds the `gradual` command into cli/dist/main.js: one ESM file for Node 20 with its shebang
 * (kept from src/main.ts). Dependencies stay external (tsup's default), so the built package
 * loads `@gradual/sdk`, commander, yaml, zod and the rest from its own node_modules.
 *
 * `npm run build -w cli`.
 */
import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { main: 'src/main.ts' },
  outDir: 'dist',
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  splitting: false,
  dts: false,
  sourcemap: false,
  clean: true,
  minify: false,
  shims: false,
});
