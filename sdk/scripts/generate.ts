/**
 * Generates the typed client in sdk/src/generated from openapi.yaml with
 * @hey-api/openapi-ts. Never edit the output by hand: change contract/, then
 * `npm run openapi`.
 */
import { createClient } from '@hey-api/openapi-ts';
import { fileURLToPath } from 'node:url';

const root = new URL('../../', import.meta.url);
export const generatedDir = fileURLToPath(new URL('sdk/src/generated', root));

export async function generateSdk(outputPath = generatedDir): Promise<void> {
  await createClient({
    input: fileURLToPath(new URL('openapi.yaml', root)),
    output: {
      path: outputPath,
      // NodeNext resolution needs explicit .js extensions on relative imports.
      module: { extension: '.js' },
      header: ['// GENERATED from openapi.yaml by `npm run sdk:generate`. Do not edit by hand.'],
    },
    logs: { level: 'silent' },
    plugins: ['@hey-api/client-fetch', '@hey-api/typescript', '@hey-api/sdk'],
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await generateSdk();
  console.log(`wrote ${generatedDir}`);
}
