import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { StartupError } from '../errors/startup-error.ts';

/**
 * The changes patches/postgres+3.4.9.patch makes to postgres.js (ADR 8), each
 * named in a comment of the file it changes: the reserve() fixes, a reserved
 * connection's pipelining, the write deferred past a closed socket, an error
 * kept past its connection's close, the statements sent between a socket's
 * error and its close or left queued on a released reserved connection, and
 * the two `Symbol.species` data properties. Named,
 * so that an older version of the patch is told apart from this one.
 */
const CHANGES: Record<string, string[]> = {
  'index.js': ['reserve-closes', 'reserve-waits', 'reserve-releases'],
  'queue.js': ['reserve-waits'],
  'connection.js': ['reserved-pipelining', 'write-after-close', 'reserve-opens', 'stale-error', 'closed-after-error'],
  'query.js': ['species'],
  'result.js': ['species'],
};

/**
 * Refuses to start on an unpatched postgres.js: an install that skipped
 * `postinstall` (`npm ci --ignore-scripts`) runs the driver as published,
 * where a transaction on a new connection, or on one that closes under it,
 * waits for ever. Reads the files Node itself loads for `postgres`.
 */
export function assertPatchedDriver(): void {
  const entry = fileURLToPath(import.meta.resolve('postgres'));
  const folder = entry.slice(0, entry.lastIndexOf('/') + 1);
  for (const [file, changes] of Object.entries(CHANGES)) {
    const text = readFileSync(folder + file, 'utf8');
    const missing = changes.find((change) => !text.includes(`Patched (lab-api: ${change}`));
    if (missing) {
      throw new StartupError(
        `The installed postgres driver lacks this service's patch (${file}: ${missing}): install with \`npm ci\`, which applies patches/, and copy the installed node_modules into an image (docs/DEPLOY.md, "An image without development dependencies")`,
      );
    }
  }
}
