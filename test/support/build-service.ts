import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Vitest's global set-up: the tests that start the real process run
 * `node dist/main.js`, so dist/ is brought up to date with the sources first
 * (incremental: a few seconds when little changed).
 */
export function setup(): void {
  const built = spawnSync(process.execPath, ['scripts/build.js'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (built.status !== 0) throw new Error('npm run build failed: the tests that start dist/main.js cannot run');
}
