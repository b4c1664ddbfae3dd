/**
 * Fails when a generated artefact is stale: openapi.yaml against contract/, or
 * sdk/src/generated against openapi.yaml. Both are regenerated into memory or
 * a temp dir and compared byte for byte; nothing in the tree is written.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { generateSdk, generatedDir } from '../../sdk/scripts/generate.js';
import { openApiPath, renderOpenApiYaml } from './render.js';

const problems: string[] = [];

let committedYaml = '';
try {
  committedYaml = readFileSync(openApiPath, 'utf8');
} catch {
  problems.push('openapi.yaml is missing');
}
if (committedYaml && committedYaml !== renderOpenApiYaml()) problems.push('openapi.yaml differs from what contract/ generates');

function listFiles(dir: string): string[] {
  let out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    out = statSync(path).isDirectory() ? out.concat(listFiles(path)) : out.concat(path);
  }
  return out;
}

// The SDK is generated from the committed openapi.yaml; a stale yaml is reported above.
const fresh = mkdtempSync(join(tmpdir(), 'gradual-sdk-'));
try {
  await generateSdk(fresh);
  const expected = listFiles(fresh).map((f) => relative(fresh, f)).sort();
  let actual: string[] = [];
  try {
    actual = listFiles(generatedDir).map((f) => relative(generatedDir, f)).sort();
  } catch {
    problems.push('sdk/src/generated is missing');
  }
  for (const file of new Set([...expected, ...actual])) {
    const a = expected.includes(file) ? readFileSync(join(fresh, file), 'utf8') : null;
    const b = actual.includes(file) ? readFileSync(join(generatedDir, file), 'utf8') : null;
    if (a !== b) problems.push(`sdk/src/generated/${file} is ${b === null ? 'missing' : a === null ? 'not generated any more' : 'stale'}`);
  }
} finally {
  rmSync(fresh, { recursive: true, force: true });
}

if (problems.length) {
  console.error(`Generated files are stale — run \`npm run openapi\` and commit:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log('openapi.yaml and sdk/src/generated are up to date.');
