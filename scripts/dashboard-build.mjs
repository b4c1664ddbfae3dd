/**
 * Whether dashboard/dist is up to date, and building it. Shared by scripts/start.mjs (npm start
 * and postinstall) and the browser tests.
 *
 * dashboard/dist/build-manifest.json is written by the dashboard's Vite config: a stamp
 * (size:mtime:ctime) of every source file the build read and of its settings files. Any
 * difference, a missing file or a missing manifest means stale; checking is one stat per file.
 */
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
export const dashboardDist = join(root, 'dashboard', 'dist');

function stamp(relPath) {
  try {
    const s = statSync(join(root, relPath));
    return `${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
  } catch {
    return 'missing';
  }
}

export function dashboardIsFresh() {
  try {
    const { files } = JSON.parse(readFileSync(join(dashboardDist, 'build-manifest.json'), 'utf8'));
    for (const [path, recorded] of Object.entries(files)) if (stamp(path) !== recorded) return false;
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs `vite build` for the dashboard in a child process (~3 s). Returns false, with a warning,
 * when Vite is not installed (an install without dev dependencies) or the build fails.
 */
export async function buildDashboard({ quiet = false } = {}) {
  let vite;
  try {
    vite = join(dirname(createRequire(join(root, 'dashboard', 'package.json')).resolve('vite/package.json')), 'bin', 'vite.js');
  } catch {
    console.warn('gradual: Vite is not installed (npm install without dev dependencies?): the dashboard is not rebuilt.');
    return false;
  }
  if (!quiet) console.log('gradual: building the dashboard…');
  const { spawnSync } = await import('node:child_process'); // only when building: start-up stays lean
  // A production build whatever NODE_ENV the caller runs with (vitest sets `test`, which would
  // give React's development build).
  const result = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], {
    cwd: join(root, 'dashboard'),
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (result.status !== 0) {
    console.warn(`gradual: the dashboard build failed (${result.error?.message ?? `exit ${result.status}`}).`);
    return false;
  }
  return true;
}
