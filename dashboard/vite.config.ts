import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';

const repoRoot = join(import.meta.dirname, '..');

/** Build inputs outside the module graph (paths relative to the repository root). */
export const DASHBOARD_SETTINGS_FILES = [
  'dashboard/vite.config.ts',
  'dashboard/index.html',
  'dashboard/package.json',
  'sdk/package.json',
  'package-lock.json',
  'node_modules/.package-lock.json',
];

/** size:mtime:ctime, as scripts/start.mjs stamps its inputs; 'missing' for a missing file. */
function stamp(relPath: string): string {
  try {
    const s = statSync(join(repoRoot, relPath));
    return `${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
  } catch {
    return 'missing';
  }
}

/**
 * Writes dist/build-manifest.json: a stamp of every source file the build read (our own, not
 * node_modules, whose changes package-lock stamps cover) and of the settings files. `npm start`
 * rebuilds the dashboard when any stamp differs (scripts/start.mjs).
 */
function buildManifest(): Plugin {
  let inputs: string[] = [];
  let outFile = '';
  return {
    name: 'gradual-build-manifest',
    apply: 'build',
    configResolved(config) {
      outFile = join(config.root, config.build.outDir, 'build-manifest.json');
    },
    buildEnd() {
      inputs = [...this.getModuleIds()]
        .filter((id) => !id.startsWith('\0') && !id.includes(`${sep}node_modules${sep}`))
        .map((id) => relative(repoRoot, id.split('?')[0]!).split(sep).join('/'))
        .filter((p) => !p.startsWith('..'));
    },
    closeBundle() {
      const files: Record<string, string> = {};
      for (const p of [...new Set([...inputs, ...DASHBOARD_SETTINGS_FILES])].sort()) files[p] = stamp(p);
      writeFileSync(outFile, `${JSON.stringify({ files }, null, 1)}\n`);
    },
  };
}

/** Writes `.br` and `.gz` beside each built script and stylesheet; the server sends them as is. */
function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'gradual-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = join(config.root, config.build.outDir, config.build.assetsDir);
    },
    closeBundle() {
      for (const name of readdirSync(outDir)) {
        if (!/\.(js|css)$/.test(name)) continue;
        const data = readFileSync(join(outDir, name));
        writeFileSync(join(outDir, `${name}.gz`), gzipSync(data, { level: 9 }));
        writeFileSync(join(outDir, `${name}.br`), brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
      }
    },
  };
}

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
  plugins: [precompress(), buildManifest()],
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
