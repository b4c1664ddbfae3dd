import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { buildOpenApiDocument } from '../src/openapi.js';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const openApiPath = fileURLToPath(new URL('../../openapi.yaml', import.meta.url));

export function renderOpenApiYaml(): string {
  const header = '# GENERATED from contract/ by `npm run openapi`. Do not edit by hand.\n';
  return header + stringify(buildOpenApiDocument(), { lineWidth: 0, aliasDuplicateObjects: false });
}
