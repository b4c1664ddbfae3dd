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
 * Output: main.js (the entry), pglite-worker.js (the embedded database's thread: the file of that
 * name in packages/pglite-server/src, which its start() loads from beside its own code) and
 * chunk-*.js: code splitting turns each dynamic import into a chunk of its own, which main.ts
 * uses to start the database before loading the rest.
 *
 * npm packages stay external, and most are loaded with require() rather than import: see
 * loadsWithRequire().
 *
 * The dashboard (dashboard/, a Vite app) is built the same way (scripts/dashboard-build.mjs):
 * dashboard/dist/build-manifest.json, written by its Vite config, stamps every source file the
 * build read and its settings; when one differs, or dist is missing, `vite build` runs (~3 s)
 * before the server starts. Without Vite
 * (an install without dev dependencies) the server serves whatever dist exists, or a placeholder.
 *
 * `--prepare` (npm's postinstall): build both when stale and cache the embedded database's initdb
 * template (packages/pglite-server/src/template.js), then exit. Never fails the install: a problem is
 * reported, and `npm start` does the same work later.
 */
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildDashboard, dashboardIsFresh } from './dashboard-build.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const outdir = `${root}server/dist`;
const outfile = `${outdir}/main.js`;
const manifestFile = `${outdir}/build-manifest.json`;
/**
 * Inputs that shape the output but are not in esbuild's metafile (paths relative to root): the
 * build settings, and the installed packages (npm rewrites node_modules/.package-lock.json on
 * every install), which decide how each package is loaded.
 */
const SETTINGS_FILES = [
  'scripts/start.mjs',
  'tsconfig.json',
  'package.json',
  'server/package.json',
  'contract/package.json',
  'sdk/package.json',
  'packages/pglite-server/package.json',
  'package-lock.json',
  'node_modules/.package-lock.json',
];

function stamp(relPath) {
  try {
    const s = statSync(`${root}${relPath}`);
    return `${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
  } catch (err) {
    if (err.code === 'ENOENT') return 'missing';
    throw err;
  }
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

/** Whether `file` is a CommonJS module (by extension, or by its package.json `type`). */
function isCommonJsFile(file) {
  if (file.endsWith('.cjs')) return true;
  if (!file.endsWith('.js')) return false;
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).type !== 'module';
    } catch (err) {
      if (err.code !== 'ENOENT') return false;
    }
  }
  return true;
}

/** An ESM file that only re-exports one CommonJS module (gen-esm-wrapper, as MikroORM ships). */
function isEsmWrapperOf(esmFile, cjsFile) {
  const lines = readFileSync(esmFile, 'utf8').split('\n');
  const from = /^import mod from "(\.\/[^"]+)";$/.exec(lines[0] ?? '');
  if (!from || join(dirname(esmFile), from[1]) !== cjsFile) return false;
  return lines.slice(1).every((l) => /^(|export default mod;|export const ([\w$]+) = mod\.\2;)$/.test(l.trim()));
}

/**
 * Node 20 loads a CommonJS package imported from ESM much more slowly than with require() (the
 * ESM loader parses each module again with cjs-module-lexer to find its export names, following
 * re-export chains: MikroORM and Express import ~40% faster with require). So a package whose
 * `import` resolves to the very CommonJS file `require` loads, or to an ESM wrapper of it, is
 * loaded with require(): one module instance either way. Dual packages (a separate ESM build,
 * e.g. zod, pglite) and anything resolved differently from here stay imports: two copies of a
 * package must never be loaded.
 */
const requireDecisions = new Map();
function loadsWithRequire(spec, resolveDir) {
  const key = `${resolveDir}\0${spec}`;
  if (!requireDecisions.has(key)) {
    let decision = false;
    try {
      const cjs = createRequire(join(resolveDir, 'index.js')).resolve(spec);
      const esm = fileURLToPath(import.meta.resolve(spec)); // resolved from the repository root
      decision = isCommonJsFile(cjs) && (esm === cjs || (esm.endsWith('.mjs') && isEsmWrapperOf(esm, cjs)));
    } catch {
      // unresolvable either way: leave it to Node at run time
    }
    requireDecisions.set(key, decision);
  }
  return requireDecisions.get(key);
}

/**
 * @mikro-orm/migrations' index also loads its Migrator and umzug (with umzug's CLI: ~0.1 s), which
 * start-up needs only when a migration is pending (orm-options.ts registers the Migrator lazily).
 * A generated migration needs only the Migration base class: such a file gets that module alone,
 * the very file the package's index loads (one class either way). A migration that imports
 * anything else from the package gets the whole package. Returns the path to require, relative
 * to the output directory, or undefined.
 */
function migrationBaseClass(importer) {
  if (!importer.startsWith(join(root, 'server', 'src', 'db', 'migrations') + sep)) return undefined;
  try {
    const source = readFileSync(importer, 'utf8');
    if (source.split('@mikro-orm/migrations').length !== 2) return undefined;
    if (!source.includes("import { Migration } from '@mikro-orm/migrations';")) return undefined;
    const file = join(dirname(createRequire(importer).resolve('@mikro-orm/migrations')), 'Migration.js');
    if (!/^exports\.Migration = Migration;$/m.test(readFileSync(file, 'utf8'))) return undefined;
    const path = relative(outdir, file).split(sep).join('/');
    return path.startsWith('.') ? path : `./${path}`;
  } catch {
    return undefined;
  }
}

async function bundle() {
  const { build } = await import('esbuild');
  rmSync(manifestFile, { force: true });
  const builtins = new Set(builtinModules);
  const result = await build({
    absWorkingDir: root,
    entryPoints: { main: 'server/src/main.ts', 'pglite-worker': 'packages/pglite-server/src/pglite-worker.js' },
    outdir,
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    // Workspace packages (@gradual/*, subpaths included) are TypeScript: bundle them, resolved
    // through their package.json `exports` with the condition that points at the sources
    // (`@gradual/source`; `source` in older package.json files). Everything else (npm packages,
    // node: builtins) stays external.
    conditions: ['@gradual/source', 'source'],
    // For the require() calls below (esbuild's ESM output has no `require` of its own).
    banner: { js: "import { createRequire as __gradualCreateRequire } from 'node:module'; const require = __gradualCreateRequire(import.meta.url);" },
    plugins: [
      {
        name: 'external-packages',
        setup(b) {
          b.onResolve({ filter: /^[^./]/ }, (args) => {
            if (args.path.startsWith('@gradual/')) return undefined;
            if (args.path === '@mikro-orm/migrations' && args.kind === 'import-statement') {
              const file = migrationBaseClass(args.importer);
              if (file) return { path: file, namespace: 'require' };
            }
            // Static imports only: esbuild gives a dynamic import() of CommonJS just `default`.
            const builtin = args.path.startsWith('node:') || builtins.has(args.path);
            if (args.kind === 'import-statement' && !builtin && loadsWithRequire(args.path, args.resolveDir)) {
              return { path: args.path, namespace: 'require' };
            }
            return { path: args.path, external: true };
          });
          // A relative path required from there is a file of node_modules (above): external.
          b.onResolve({ filter: /^\./, namespace: 'require' }, (args) => ({ path: args.path, external: true }));
          // The import becomes a CommonJS module of our bundle that requires the package;
          // esbuild's interop then gives the importer Node's view (default = module.exports).
          b.onLoad({ filter: /.*/, namespace: 'require' }, (args) => ({
            contents: `module.exports = require(${JSON.stringify(args.path)});`,
            resolveDir: root,
            loader: 'js',
          }));
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
  const inputs = Object.keys(result.metafile.inputs).filter((p) => !p.startsWith('require:'));
  for (const path of [...inputs, ...SETTINGS_FILES, ...outputs]) files[path] = stamp(path);
  writeFileSync(manifestFile, `${JSON.stringify({ files }, null, 1)}\n`);
}

async function prepare() {
  try {
    if (!isFresh()) await bundle();
  } catch (err) {
    console.warn(`gradual: could not bundle the server (npm start will try again): ${err.message}`);
  }
  if (!dashboardIsFresh()) await buildDashboard();
  try {
    const { prepareTemplate } = await import('@gradual/pglite-server/template');
    await prepareTemplate();
  } catch (err) {
    console.warn(`gradual: could not cache the embedded database template (the first start will): ${err.message}`);
  }
}

if (process.argv.includes('--prepare')) {
  await prepare();
} else {
  if (!isFresh()) await bundle();
  if (!dashboardIsFresh()) await buildDashboard();
  process.argv[1] = outfile;
  await import(pathToFileURL(outfile).href);
}
