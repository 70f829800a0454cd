/**
 * The import rules of src/ (README "Architecture"): every folder names the
 * folders it may import, downward only, and no module may reach itself
 * again. Any import not allowed here fails `npm run lint`.
 *
 *   main.ts, app.ts              wire everything together
 *   http/                        the transports: REST adapter, /api/trpc, /api/graphql, SSE, pages
 *   graphql/                     the Pothos schema; its root fields resolve through procedures
 *   client/                      the typed client; the server only as types
 *   routers/                     one procedure per operation (OpenAPI meta, input, output)
 *   procedures/                  tRPC's base procedure and its chain: access, idempotency, errors
 *   metrics/                     Prometheus, told by the services' observer
 *   services/                    the domain verbs; the only door to the database
 *   db/                          connections, schema, migrations
 *   schemas/                     zod schemas and the vocabulary they are made of
 *   config.ts                    the environment, read once
 *   errors/                      AppError, the closed table of problem types, the one normaliser
 *   lib/                         small helpers that know nothing of the service
 */
const below = {
  lib: [],
  errors: ['lib'],
  'config.ts': ['lib', 'errors'],
  schemas: ['lib', 'errors'],
  db: ['lib', 'errors', 'config.ts'],
  services: ['lib', 'errors', 'config.ts', 'schemas', 'db'],
  metrics: ['lib', 'errors', 'config.ts', 'services'],
  procedures: ['lib', 'errors', 'schemas', 'services'],
  routers: ['lib', 'errors', 'schemas', 'services', 'procedures'],
  graphql: ['lib', 'errors', 'schemas', 'services', 'procedures', 'routers'],
  http: ['lib', 'errors', 'config.ts', 'schemas', 'services', 'metrics', 'procedures', 'graphql'],
};

const pathOf = (name) => (name.endsWith('.ts') ? `^src/${name.replace('.', '\\.')}$` : `^src/${name}/`);
const anyOf = (names) => `(${names.map(pathOf).join('|')})`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle means two modules cannot be understood, tested or loaded apart: move what both need below them.',
      from: {},
      to: { circular: true },
    },
  ],
  allowed: [
    // Within a folder, anything.
    { from: { path: '^src/([^/]+)/' }, to: { path: '^src/$1/' } },
    ...Object.entries(below)
      .filter(([, allowed]) => allowed.length > 0)
      .map(([folder, allowed]) => ({ from: { path: pathOf(folder) }, to: { path: anyOf(allowed) } })),
    // The client ships to browsers: the server's router and procedures are named in types only.
    { from: { path: '^src/client/' }, to: { path: '^src/(routers|procedures|schemas)/', dependencyTypes: ['type-only'] } },
    // Start-up wires every layer together.
    { from: { path: '^src/(main|app)\\.ts$' }, to: { path: '^src/' } },
  ],
  allowedSeverity: 'error',
  options: {
    includeOnly: '^src/',
    exclude: { path: '^src/db/migrations/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
