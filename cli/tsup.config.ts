/**
 * Builds the `gradual` command into cli/dist/main.js: ESM for Node 20 with its shebang (kept from
 * src/main.ts), and the MCP server in a chunk of its own, loaded only by `gradual mcp` (splitting),
 * so that every other command starts without the MCP SDK. Dependencies stay external (tsup's default), so the built package
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
  splitting: true,
  dts: false,
  sourcemap: false,
  clean: true,
  minify: false,
  shims: false,
});
