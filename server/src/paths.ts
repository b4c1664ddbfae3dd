import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The repository root, found by walking up to openapi.yaml, so paths hold both
 * from the sources (tsx, vitest) and from the bundle in server/dist.
 */
function findRepoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'openapi.yaml'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the repository root (openapi.yaml)');
    dir = parent;
  }
  return dir;
}

export const repoRoot = findRepoRoot();
export const openApiFile = join(repoRoot, 'openapi.yaml');
export const dashboardDir = join(repoRoot, 'dashboard');
