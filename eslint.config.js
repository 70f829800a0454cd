import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Import paths a library marks as not public. */
const LIBRARY_INTERNALS = {
  group: ['*unstable*', '*internal*', '**/unstable*', '**/internal*', '**/_*'],
  message: "A library's unstable or internal path: use its public API (docs/adr/0009-speed-measures.md says what an exception needs).",
};

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.data/', '.artifacts/', 'src/db/migrations/', 'test/consumer/node_modules/', 'test/consumer/dist/', 'test/openapi-client/dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': ['error', { selector: 'ExportDefaultDeclaration', message: 'Use named exports.' }],
    },
  },
  {
    // A library's private paths change without notice in any release: speed is bought
    // through public APIs, and each exception needs an ADR with its measured gain and a
    // test that fails on the library's next version (docs/adr/0009-speed-measures.md).
    files: ['src/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [LIBRARY_INTERNALS] }],
    },
  },
  {
    // Data flows one way: transports → procedures → services → database; the folders'
    // imports of each other are checked by dependency-cruiser (.dependency-cruiser.cjs).
    // Only services (and start-up) may touch the database's packages.
    files: ['src/routers/**', 'src/http/**', 'src/rest/**', 'src/trpc/**', 'src/graphql-endpoint/**', 'src/streams/**', 'src/pages/**', 'src/openapi/**', 'src/procedures/**', 'src/graphql/**', 'src/schemas/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/db/**', 'drizzle-orm', 'drizzle-orm/*', 'postgres', '@electric-sql/*'],
              message: 'Transports call service verbs; only src/services touches the database.',
            },
          ],
        },
      ],
    },
  },
  {
    // The client entry points ship to frontends: the server may be named in types only.
    files: ['src/client/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            LIBRARY_INTERNALS,
            {
              group: ['../*'],
              allowTypeImports: true,
              message: 'lab-api/client and lab-api/router load in browsers: import the server as a type only.',
            },
          ],
        },
      ],
    },
  },
  {
    // dependency-cruiser reads its configuration as CommonJS.
    files: ['.dependency-cruiser.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable' } },
  },
  {
    // Plain JavaScript run by Node before anything is compiled.
    files: ['scripts/**/*.js'],
    languageOptions: { globals: { process: 'readonly', URL: 'readonly', console: 'readonly' } },
  },
  {
    files: ['drizzle.config.ts', 'vitest.config.ts', 'vitest.browser.config.ts', 'eslint.config.js', 'knip.config.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
);
