/**
 * The direction of imports inside the server (`npm run lint:deps`, run in CI after ESLint).
 *
 *   domain/ (pure)  ←  features/<slice>/ (services, stores)  ←  http/ (routes, error mapping)  ←  app.ts
 *
 * Inner layers never import outer ones; no module takes part in an import cycle, and no two
 * feature slices import each other (folder cycles). Test files are not cruised: a test may reach
 * into any layer it exercises. eslint.config.js encodes the same boundaries as no-restricted-imports
 * rules, so an editor reports a crossing as it is typed; this file is the whole-graph check
 * (cycles, type-only imports, resolved paths).
 */

/** The server's outer entry files: only main.ts / server.ts / app.ts import them. */
const ENTRY_FILES = '^server/src/(?:app|server|main|deps)\\.ts$';

/** The HTTP framework and the contract's Express binding, including their type packages. */
const HTTP_PACKAGES = '(?:^|/)node_modules/(?:@types/)?(?:express|express-serve-static-core|@ts-rest/[^/]+)/';

/** Packages that do I/O or belong to an outer layer (database, HTTP, cache, mail, logging). */
const IO_PACKAGES =
  '(?:^|/)node_modules/(?:@types/)?(?:pg|pg-[\\w-]+|@mikro-orm/[^/]+|@electric-sql/[^/]+|express|express-serve-static-core|@ts-rest/[^/]+|ioredis|nodemailer|pino|pino-[\\w-]+)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No module of the server takes part in an import cycle: each layer and each slice can be read, loaded and tested on its own.',
      from: { path: '^server/src/' },
      to: { circular: true },
    },
    {
      name: 'no-circular-between-slices',
      severity: 'error',
      scope: 'folder',
      comment:
        'Feature slices form a hierarchy: when slice A imports slice B, nothing in B imports A. Shared code of two slices goes to the lower one or to features/common.',
      from: { path: '^server/src/features/' },
      to: { circular: true },
    },
    {
      name: 'domain-is-innermost',
      severity: 'error',
      comment:
        'server/src/domain is pure domain logic: it imports only its own modules, @gradual/contract and pure libraries, nothing from features/, http/, db/, metrics/, rate-limits/, mail/ or the entry files.',
      from: { path: '^server/src/domain/' },
      to: { path: '^server/src/', pathNot: '^server/src/domain/' },
    },
    {
      name: 'domain-does-no-io',
      severity: 'error',
      comment: 'server/src/domain does no I/O: no node:fs/net/http/child_process, no database, HTTP, cache, mail or logging package.',
      from: { path: '^server/src/domain/' },
      to: {
        path: [IO_PACKAGES, '^(?:node:)?(?:fs|fs/promises|net|http|https|http2|child_process)$'],
      },
    },
    {
      name: 'features-below-http',
      severity: 'error',
      comment:
        'Feature slices take plain inputs and return plain outputs: they import nothing from http/ nor the entry files (app.ts, server.ts, main.ts, deps.ts); the HTTP layer calls them and passes each service what it needs.',
      from: { path: '^server/src/features/' },
      to: { path: ['^server/src/http/', ENTRY_FILES] },
    },
    {
      name: 'features-without-express',
      severity: 'error',
      comment:
        'Feature slices know nothing of HTTP: no express, no @ts-rest/* (types included). Requests are read, and responses written, in server/src/http.',
      from: { path: '^server/src/features/' },
      to: { path: HTTP_PACKAGES },
    },
    {
      name: 'http-below-app',
      severity: 'error',
      comment: 'server/src/http is mounted by app.ts: it does not import app.ts, server.ts or main.ts.',
      from: { path: '^server/src/http/' },
      to: { path: '^server/src/(?:app|server|main)\\.ts$' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'Every import resolves to a file or an installed package (a typo or a missing dependency would hide an edge from the rules above).',
      from: { path: '^server/src/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // Only server/src is cruised; packages and the workspaces it imports are leaves.
    doNotFollow: { path: ['node_modules', '^(?:contract|sdk|dashboard)/'] },
    exclude: { path: ['\\.test\\.tsx?$', '\\.d\\.ts$'] },
    // Type-only imports count: a feature typed against Express's Request depends on Express.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // The workspaces export their TypeScript sources under the @gradual/source condition.
    enhancedResolveOptions: {
      conditionNames: ['@gradual/source', 'import', 'require', 'node', 'default', 'types'],
      exportsFields: ['exports'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.d.ts', '.json'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
