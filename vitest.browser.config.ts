import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

/** `npm run test:browser`: the pages in Debian's Chromium, apart from `npm test`. */
export default defineConfig({
  ...base,
  test: { ...base.test, include: ['browser-tests/**/*.test.ts'], maxWorkers: 1, testTimeout: 60_000 },
});
