import type { KnipConfig } from 'knip';

/**
 * `npm run lint` runs knip: no unused file, export or dependency. Knip finds
 * most entry points itself: src/main.ts, package.json's scripts (scripts/,
 * bench/), the vitest configs (test/, browser-tests/, the global setup),
 * drizzle.config.ts, eslint.config.js, .dependency-cruiser.cjs. Listed here
 * are the ones only this project knows about.
 */
const config: KnipConfig = {
  workspaces: {
    '.': {
      entry: [
        // package.json's exports ("lab-api/router", "lab-api/client") are these files, compiled to dist/client/.
        'src/client/*.ts',
        // scripts/build.js imports it from dist/ once tsc has compiled it.
        'src/pages/vendor-assets.ts',
        // The leaderboard page, bundled by esbuild (scripts/build-app.js).
        'web/app.ts',
        // The comparison servers bench/run.ts and bench/profile.ts start by path.
        'bench/reference/*.ts',
        // A REST user's program (test/openapi.client.test.ts copies it and generates its ./api.js).
        'test/openapi-client/src/main.ts',
      ],
      ignoreUnresolved: ['./api.js'],
    },
    // A separate package using lab-api as a frontend would (test/consumer.test.ts installs it).
    'test/consumer': {
      entry: ['src/main.ts'],
    },
  },
  // A type exported beside the function whose signature names it is part of
  // that function's interface, even when no caller names the type yet.
  ignoreExportsUsedInFile: { interface: true, type: true },
  // Programs of the machine the tests and benchmarks start, not npm packages.
  ignoreBinaries: ['ip', 'script', 'taskset'],
};

export default config;
