/**
 * The import rules of src/ (docs/architecture.md): every folder names the
 * folders it may import, downward only, and no module may reach itself
 * again. Any import not allowed here fails `npm run lint`.
 *
 *   main.ts, app.ts              wire everything together
 *   http/request-handler.ts      the dispatch: each request to its transport
 *   rest/                        the REST adapter: routes from the OpenAPI meta, each to its procedure
 *   trpc/                        /api/trpc: tRPC's handler, its refusals and the short single query
 *   graphql-endpoint/            /api/graphql: Yoga around the schema of graphql/
 *   streams/                     the score stream (SSE)
 *   pages/                       the pages and their assets
 *   openapi/                     the OpenAPI document, the stream's path included
 *   http/                        what every transport shares: listening, CORS, the caller and the
 *                                client's address, bodies read and written, problem+json
 *   graphql/                     the Pothos schema; its root fields resolve through procedures
 *   client/                      the typed client; the server only as types
 *   routers/                     one procedure per operation (OpenAPI meta, input, output)
 *   procedures/                  tRPC's base procedure and its chain: access, idempotency, errors
 *   observability/               the log and the Prometheus metrics, told by the services' observer
 *   services/                    the domain verbs; the only door to the database
 *   db/                          connections, schema, migrations
 *   schemas/                     zod schemas and the vocabulary they are made of
 *   config.ts                    the environment, read once
 *   errors/                      AppError, the closed table of problem types, the one normaliser
 *   runtime/                     the process's tuning at start-up (heap growth, garbage collection, warm-up)
 *   lib/                         small helpers that know nothing of the service
 */
/** What every transport may import: the shared HTTP plumbing and everything below it. */
const transport = ['lib', 'errors', 'config.ts', 'schemas', 'services', 'observability', 'procedures', 'http'];

const below = {
  lib: [],
  runtime: [],
  errors: ['lib'],
  'config.ts': ['lib', 'errors'],
  schemas: ['lib', 'errors'],
  db: ['lib', 'errors', 'config.ts'],
  services: ['lib', 'errors', 'config.ts', 'schemas', 'db'],
  observability: ['lib', 'errors', 'config.ts', 'services'],
  procedures: ['lib', 'errors', 'schemas', 'services'],
  routers: ['lib', 'errors', 'schemas', 'services', 'procedures'],
  graphql: ['lib', 'errors', 'schemas', 'services', 'procedures', 'routers'],
  http: ['lib', 'errors', 'config.ts', 'schemas', 'services', 'observability', 'procedures'],
  rest: transport,
  trpc: transport,
  'graphql-endpoint': [...transport, 'graphql'],
  streams: transport,
  pages: transport,
  openapi: [...transport, 'streams'],
  // The one module of http/ above the transports (only start-up may import it: see forbidden).
  'http/request-handler.ts': ['rest', 'trpc', 'graphql-endpoint', 'streams', 'pages'],
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
    {
      name: 'dispatch-on-top',
      severity: 'error',
      comment: 'The dispatch imports every transport, and they import the rest of http/: only start-up may import it.',
      from: { pathNot: '^src/(main|app)\\.ts$' },
      to: { path: '^src/http/request-handler\\.ts$' },
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
