// @ts-check
/**
 * ESLint for the whole repository, type-aware: every file is linted with the types of its
 * TypeScript project (tsconfig.json, dashboard/tsconfig.json; the few files outside both, the
 * .mjs scripts and this file, get a default project). `npm run lint` fails on any warning.
 *
 * Besides the rules, the no-restricted-imports blocks at the end encode the architecture: which
 * layer may import which. Each message states the rule it enforces.
 */
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const ALL = '**/*.{js,mjs,cjs,ts,tsx,mts,cts}';
const TESTS = ['**/*.test.{ts,tsx}', 'tests/**', 'dashboard/src/test/**'];

/**
 * A regex (for no-restricted-imports `patterns[].regex`) matching relative import specifiers that
 * pass through a directory with one of these names, e.g. `../../db/entities/index.js` for `db`.
 */
const relativeInto = (/** @type {string[]} */ dirs) => `^\\.{1,2}/(?:.*/)?(?:${dirs.join('|')})(?:/|$)`;

/**
 * Modules that do I/O or belong to an outer layer (database, HTTP, mail, logging), as a regex
 * over the import specifier, subpaths included (`node:fs/promises`, `pg-pool`, `@mikro-orm/core`).
 */
const IO_MODULES =
  '^(?:(?:node:)?(?:fs|net|http|https|http2|child_process)|pg|pg-[\\w-]+|@mikro-orm/[\\w-]+|express|ioredis|nodemailer|pino|pino-[\\w-]+)(?:/.*)?$';

/**
 * A regex matching relative import specifiers of one of server/src's top-level files (`../deps.js`,
 * `../../app.js`), by base name.
 */
const relativeToRootFile = (/** @type {string[]} */ names) => `^(?:\\.\\./)+(?:${names.join('|')})\\.js$`;

/** The HTTP framework and the contract's Express binding, as a regex over the import specifier. */
const HTTP_PACKAGES = '^(?:express|express-serve-static-core|@ts-rest/[\\w-]+)(?:/.*)?$';

/**
 * server/src/domain is the innermost layer: a file `depth` directories below server/src/domain
 * must not climb more than `depth` levels (it imports nothing else from server/src), and imports
 * no package that does I/O. Its tests are held to the same rule.
 */
const domainBoundary = (/** @type {number} */ depth) => ({
  files: [`server/src/domain/${'*/'.repeat(depth)}*.ts`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            regex: IO_MODULES,
            message: 'server/src/domain is pure domain logic: it does no I/O and imports no database, HTTP, mail or logging package.',
          },
          {
            regex: `^(?:\\.\\./){${depth + 1}}`,
            message:
              'server/src/domain is the innermost layer: it imports only its own modules, @gradual/contract and pure libraries, nothing else from server/src (the outer layers import it).',
          },
        ],
      },
    ],
  },
});

/**
 * sdk/src/evaluation may import only its own modules: a file `depth` directories below
 * sdk/src/evaluation must not climb more than `depth` levels, and imports no package at all.
 */
const evaluationBoundary = (/** @type {number} */ depth) => ({
  files: [`sdk/src/evaluation/${'*/'.repeat(depth)}*.{ts,tsx}`],
  ignores: ['**/*.test.ts'],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            regex: `^(?:\\.\\./){${depth + 1}}`,
            message:
              'sdk/src/evaluation is the self-contained local evaluator (shipped to browsers and edge runtimes): it imports only modules inside sdk/src/evaluation.',
          },
          {
            regex: '^(?!\\.{1,2}/)',
            message:
              'sdk/src/evaluation is the self-contained local evaluator (shipped to browsers and edge runtimes): it imports no node:* module and no package.',
          },
        ],
      },
    ],
  },
});

export default defineConfig(
  globalIgnores([
    '**/dist/**',
    'sdk/src/generated/**',
    'coverage/**',
    'tests/artifacts/**',
    // Compiled by its test against the module `gradual types` generates there.
    'tests/fixtures/typed-app/**',
    'bench/results/**',
    'test-results/**',
    '.data/**',
    '.vitest-cache/**',
  ]),

  {
    files: [ALL],
    extends: [js.configs.recommended, tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: { ...globals.node },
      parserOptions: {
        // Each file is checked against the nearest tsconfig.json that includes it.
        projectService: {
          // Files outside both tsconfigs: plain JavaScript run by Node (scripts, worker threads,
          // benchmark servers) and three config files. They get a default project.
          allowDefaultProject: ['*.js', '.dependency-cruiser.cjs', 'scripts/*.{mjs,ts}', 'bench/lib/*.mjs', 'packages/*/src/*.js', 'sdk/tsup.config.ts', 'cli/tsup.config.ts'],
          maximumDefaultProjectFileMatchCount_THIS_WILL_SLOW_DOWN_LINTING: 20,
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      // `declare global { namespace Express { ... } }` is how Express's Request is augmented.
      '@typescript-eslint/no-namespace': ['error', { allowDeclarations: true }],
      // A leading underscore marks a parameter a signature requires but the body does not use
      // (Express tells error handlers apart by their four parameters), or a property taken out of
      // an object by destructuring so that the rest goes on without it.
      // AbortSignal's `reason` is typed `any`: an abortable operation rejects with it unchanged, as
      // fetch does. Rejecting with a literal or any other non-Error type is still reported.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },

  {
    files: ['dashboard/src/**/*.{ts,tsx}'],
    extends: [reactHooks.configs.flat['recommended-latest']],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      // useResource(load, deps) (dashboard/src/hooks.ts) loads again when its deps change, as an
      // effect runs again: its deps are checked against what the loader reads, as an effect's are.
      'react-hooks/exhaustive-deps': ['warn', { additionalHooks: '^useResource$' }],
    },
  },

  {
    files: ['**/*.{js,mjs,cjs}'],
    rules: {
      // Plain JavaScript has no type annotations: every parameter and parsed value is `any`, so
      // these rules would flag each use of one. The other type-aware rules still apply.
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },

  {
    files: TESTS,
    rules: {
      // vitest's asymmetric matchers (expect.any(String), expect.objectContaining(…)) are typed
      // `any`: placing one inside an expected value is what they are for. Tests also hand parsed
      // JSON (log lines, fixtures) to collectors whose shape the assertions then check.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
    },
  },

  // ---- Import boundaries ------------------------------------------------------------------------

  domainBoundary(0),
  domainBoundary(1),

  {
    files: ['server/src/features/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: relativeInto(['http']),
              message:
                'Feature slices (server/src/features) import nothing from server/src/http: the HTTP layer calls the features, not the other way round.',
            },
            {
              regex: relativeToRootFile(['app', 'server', 'main', 'deps']),
              message:
                'Feature slices (server/src/features) import none of the entry files (app.ts, server.ts, main.ts, deps.ts): a service receives what it needs as parameters.',
            },
            {
              regex: HTTP_PACKAGES,
              message:
                'Feature slices (server/src/features) know nothing of HTTP: no express, no @ts-rest/* (types included); requests are read and responses written in server/src/http.',
            },
          ],
        },
      ],
    },
  },

  {
    files: ['server/src/http/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: relativeToRootFile(['app', 'server', 'main']),
              message: 'server/src/http is mounted by app.ts: it does not import app.ts, server.ts or main.ts.',
            },
          ],
        },
      ],
    },
  },

  evaluationBoundary(0),
  evaluationBoundary(1),
  evaluationBoundary(2),

  {
    files: ['dashboard/src/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@gradual/server', '@gradual/server/*'],
              message: 'The dashboard imports no server code: it talks to the server over HTTP, through @gradual/contract and @gradual/sdk.',
            },
            {
              regex: relativeInto(['server']),
              message: 'The dashboard imports no server code: it talks to the server over HTTP, through @gradual/contract and @gradual/sdk.',
            },
          ],
        },
      ],
    },
  },

  {
    files: ['contract/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@gradual/server', '@gradual/server/*', '@gradual/sdk', '@gradual/sdk/*', '@gradual/dashboard', '@gradual/dashboard/*'],
              message: 'The contract is the root of the dependency graph: it imports nothing from the server, the SDK or the dashboard.',
            },
            {
              regex: relativeInto(['server', 'sdk', 'dashboard']),
              message: 'The contract is the root of the dependency graph: it imports nothing from the server, the SDK or the dashboard.',
            },
          ],
        },
      ],
    },
  },

  {
    files: ['server/src/**/*.ts'],
    ignores: ['server/src/db/transaction.ts', ...TESTS],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='transactional']",
          message:
            'Open transactions with transaction(em, work) from server/src/db/transaction.ts: it retries deadlocks and serialization failures (40P01, 40001) and starts a retried attempt from a clean unit of work.',
        },
      ],
    },
  },
);
