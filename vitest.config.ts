import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Two cores: two files at a time, each with its own server and database.
    pool: 'forks',
    maxWorkers: 2,
    fileParallelism: true,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
