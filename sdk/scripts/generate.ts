/**
 * Generates the typed client in sdk/src/generated from openapi.yaml with
 * @hey-api/openapi-ts. Never edit the output by hand: change contract/, then
 * `npm run openapi`.
 *
 * Beside hey-api's files it writes operations.gen.ts: every operation of
 * sdk.gen.ts in one plain object, the table `createClient` builds its methods
 * from. A namespace import (`import * as`) would serve too, but the bundler
 * turns it into a namespace object built by a function call, which an
 * application's bundler keeps (and every operation with it) even where only
 * the live client's few named imports are used; an object literal of the
 * operations is dropped with `createClient` when the application does not use it.
 */
import { createClient } from '@hey-api/openapi-ts';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = new URL('../../', import.meta.url);
export const generatedDir = fileURLToPath(new URL('sdk/src/generated', root));
const HEADER = '// GENERATED from openapi.yaml by `npm run sdk:generate`. Do not edit by hand.';

export async function generateSdk(outputPath = generatedDir): Promise<void> {
  await createClient({
    input: fileURLToPath(new URL('openapi.yaml', root)),
    output: {
      path: outputPath,
      // NodeNext resolution needs explicit .js extensions on relative imports.
      module: { extension: '.js' },
      header: [HEADER],
    },
    logs: { level: 'silent' },
    plugins: ['@hey-api/client-fetch', '@hey-api/typescript', '@hey-api/sdk'],
  });
  writeFileSync(join(outputPath, 'operations.gen.ts'), renderOperationsTable(readFileSync(join(outputPath, 'sdk.gen.ts'), 'utf8')));
}

/** The names of the exported `const`s of a module's source: the operation functions of sdk.gen.ts. */
function exportedConsts(source: string): string[] {
  const file = ts.createSourceFile('sdk.gen.ts', source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const names: string[] = [];
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    if (!statement.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) continue;
    for (const declaration of statement.declarationList.declarations) {
      if (ts.isIdentifier(declaration.name)) names.push(declaration.name.text);
    }
  }
  return names.sort();
}

/** operations.gen.ts for the sdk.gen.ts source given. */
function renderOperationsTable(sdkSource: string): string {
  const names = exportedConsts(sdkSource);
  if (names.length === 0) throw new Error('sdk.gen.ts exports no operations');
  return [
    HEADER,
    '',
    `import { ${names.join(', ')} } from './sdk.gen.js';`,
    '',
    '/** Every operation of sdk.gen.ts by name, as a plain object: unused, it is dropped from a bundle with all it names. */',
    `export const operations = { ${names.join(', ')} };`,
    '',
  ].join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await generateSdk();
  console.log(`wrote ${generatedDir}`);
}
