#!/usr/bin/env node
/**
 * `npm start`: bundles server/src (our code only; packages stay external) with esbuild into
 * server/dist/, then runs it in this process. Bundling takes ~0.1 s and saves the ~2 s that
 * transpiling on the fly costs at every start.
 *
 * The bundle is reused while it is fresh: build-manifest.json records size, mtime and ctime of
 * every file esbuild read (its metafile), of the build settings (this file, tsconfig.json, the
 * package.json files) and of every output. One stat per file (~1 ms) decides; any change, a
 * missing file or a missing manifest rebuilds, so `npm start` after an edit runs the edit.
 *
 * Output: main.js (the entry), embedded-worker.js (the embedded database's thread, see
 * server/src/db/embedded.ts) and chunk-*.js: code splitting turns each dynamic import into a
 * chunk of its own, which main.ts uses to start the database before loading the rest.
 *
 * `--build-only`: build when stale, then exit (nothing is started).
 */
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const outdir = `${root}server/dist`;
const outfile = `${outdir}/main.js`;
const manifestFile = `${outdir}/build-manifest.json`;
/** Inputs that shape the output but are not in esbuild's metafile. Paths relative to root. */
const SETTINGS_FILES = ['scripts/start.mjs', 'tsconfig.json', 'package.json', 'server/package.json', 'contract/package.json', 'sdk/package.json'];

function stamp(relPath) {
  const s = statSync(`${root}${relPath}`);
  return `${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
}

function isFresh() {
  try {
    const { files } = JSON.parse(readFileSync(manifestFile, 'utf8'));
    for (const [path, recorded] of Object.entries(files)) if (stamp(path) !== recorded) return false;
    return true;
  } catch {
    return false; // no manifest, or a file is gone
  }
}

async function bundle() {
  const { build } = await import('esbuild');
  rmSync(manifestFile, { force: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: { main: 'server/src/main.ts', 'embedded-worker': 'server/src/db/embedded-worker.js' },
    outdir,
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    // Workspace packages (@gradual/*, subpaths included) are TypeScript: bundle them, resolved
    // through their package.json `exports` with the `source` condition. Everything else (npm
    // packages, node: builtins) stays external.
    conditions: ['@gradual/source'],
    plugins: [
      {
        name: 'external-packages',
        setup(b) {
          b.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@gradual/') ? undefined : { path: args.path, external: true }));
        },
      },
    ],
    logLevel: 'warning',
    metafile: true,
  });
  const outputs = Object.keys(result.metafile.outputs);
  // Chunk names change with their contents: drop the previous build's.
  const keep = new Set(outputs.map((p) => p.slice('server/dist/'.length)));
  for (const name of readdirSync(outdir)) if (!keep.has(name)) rmSync(`${outdir}/${name}`, { recursive: true, force: true });
  const files = {};
  for (const path of [...Object.keys(result.metafile.inputs), ...SETTINGS_FILES, ...outputs]) files[path] = stamp(path);
  writeFileSync(manifestFile, `${JSON.stringify({ files }, null, 1)}\n`);
}

if (!isFresh()) await bundle();
if (!process.argv.includes('--build-only')) {
  process.argv[1] = outfile;
  await import(pathToFileURL(outfile).href);
}
