// `npm run build` (and `prepare`, so every install builds): compiles src/ to
// dist/ with tsc, copies what the running service reads besides its code,
// fills the client package's dist/ (packages/client), and writes the vendor
// assets its pages serve, compressed once here rather than
// on every start. Plain JavaScript: it runs before anything is compiled.
import { spawnSync } from 'node:child_process';
import { cpSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

const compiled = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);

// Migrations are read at start-up from beside the compiled client.
cpSync(`${root}/src/db/migrations`, `${root}/dist/db/migrations`, { recursive: true });
// The GraphQL thread's code is plain JavaScript, run as it is from src/ and dist/.
cpSync(`${root}/src/graphql/thread/graphql-worker.js`, `${root}/dist/graphql/thread/graphql-worker.js`);

// The client package (@lab-api/client) from the compiled src/client/.
const { buildClientPackage } = await import('./build-client.js');
buildClientPackage(root);

// The leaderboard page served at /, bundled from web/.
const { buildApp } = await import('./build-app.js');
await buildApp(root);

// The pages' vendor files (Swagger UI, GraphiQL) with their brotli and gzip
// forms; skipped when already written from the same package versions.
const { writeVendorAssets } = await import('../dist/pages/vendor-assets.js');
await writeVendorAssets();
