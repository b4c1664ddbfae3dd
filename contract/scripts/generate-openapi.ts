/** Writes openapi.yaml from the contract. Run through `npm run openapi` (which also regenerates the SDK). */
import { writeFileSync } from 'node:fs';
import { renderOpenApiYaml, openApiPath } from './render.js';

writeFileSync(openApiPath, renderOpenApiYaml());
console.log(`wrote ${openApiPath}`);
