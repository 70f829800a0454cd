import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * A full garbage collection now, for the rare moment when a large amount of
 * memory has just become garbage and the process may then sit idle (V8
 * collects when allocating, not when idle). Node exposes `gc` only behind a
 * flag; setting the flag at run time and reading `gc` from a fresh context is
 * the documented way to reach it (Jest's leak detector does the same).
 */
export function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
}
