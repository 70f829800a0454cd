import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';
import { SkippedWithReason } from './test/support/skipped-with-reason.ts';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // graphql 16 ships CommonJS (main) and ESM (module) builds. Node loads the
    // CommonJS one for Yoga and Pothos; Vite would hand our sources the ESM
    // one, and two copies of graphql's classes break `instanceof`.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', new SkippedWithReason()],
    globalSetup: ['test/support/build-service.ts'],
    // Two cores: two files at a time, each with its own server and database.
    pool: 'forks',
    maxWorkers: 2,
    fileParallelism: true,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Every run takes a new order, files and the tests in each, so a test that
    // leans on another's leftovers fails. Vitest prints the seed at the start;
    // `npx vitest run --sequence.seed=<seed>` replays that order.
    sequence: { shuffle: { files: true, tests: true } },
  },
});
