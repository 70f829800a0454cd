import { setFlagsFromString } from 'node:v8';

const FLAG = '--heap-growing-percent';

/**
 * How far V8 lets the old generation grow past what survived its last full
 * collection before it collects again: 1.5 × instead of up to 4 ×. Under
 * load a request's objects outlive a young-generation collection or two and
 * die in the old one, so with V8's own choice the peak resident memory of a
 * write benchmark went to 2.1 × the hand-written server's; with 1.5 ×, to
 * 1.4–1.5 × at the same CPU per request (`npm run bench`, docs/performance.md).
 */
export const HEAP_GROWING_PERCENT = 50;

/**
 * The flag to set at start, or undefined when the operator started Node with
 * their own (`node --heap-growing-percent=… dist/main.js`): theirs stands.
 */
export function heapGrowthFlag(execArgv: readonly string[]): string | undefined {
  return execArgv.some((argument) => argument === FLAG || argument.startsWith(`${FLAG}=`)) ? undefined : `${FLAG}=${HEAP_GROWING_PERCENT}`;
}

/** Applies HEAP_GROWING_PERCENT to this process, unless Node was started with the flag. V8 reads it at every full collection. */
export function limitHeapGrowth(): void {
  const flag = heapGrowthFlag(process.execArgv);
  if (flag) setFlagsFromString(flag);
}
