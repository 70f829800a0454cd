import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { StartupError } from '../errors/startup-error.ts';

/**
 * What patches/postgres+3.4.9.patch marks in postgres.js's files (ADR 8):
 * the reserve() fix, a reserved connection's pipelining, the write deferred
 * past a closed socket, and the two `Symbol.species` data properties.
 */
const MARKS = { 'connection.js': 3, 'query.js': 1, 'result.js': 1 } as const;
const MARK = /Patched \(lab-api/g;

/**
 * Refuses to start on an unpatched postgres.js: an install that skipped
 * `postinstall` (`npm ci --ignore-scripts`) runs the driver as published,
 * where a transaction on a new connection waits for ever and writes answer
 * 500 under load. Reads the files Node itself loads for `postgres`.
 */
export function assertPatchedDriver(): void {
  const entry = fileURLToPath(import.meta.resolve('postgres'));
  const folder = entry.slice(0, entry.lastIndexOf('/') + 1);
  for (const [file, expected] of Object.entries(MARKS)) {
    const found = readFileSync(folder + file, 'utf8').match(MARK)?.length ?? 0;
    if (found !== expected) {
      throw new StartupError(
        `The installed postgres driver lacks this service's patch (${file}: ${found} of ${expected} changes): install with \`npm ci\`, or run \`npx patch-package\` after \`npm ci --ignore-scripts\` (docs/DEPLOY.md)`,
      );
    }
  }
}
