import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

/** `npm run test:browser`: the pages in Debian's Chromium, apart from `npm test`. */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['browser-tests/**/*.test.ts'],
    maxWorkers: 1,
    testTimeout: 60_000,
    // Each file walks one page through a visit, as a person would, and its
    // last tests check what the whole walk loaded and logged: the files are
    // shuffled, the steps of a walk are not.
    sequence: { shuffle: { files: true, tests: false } },
  },
});
