import { describe, expect, it } from 'vitest';
import { HEAP_GROWING_PERCENT, heapGrowthFlag } from '../src/runtime/heap-growth.ts';

describe('the heap growth limit set at start', () => {
  it('is set when Node was started without one', () => {
    expect(heapGrowthFlag([])).toBe(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
    expect(heapGrowthFlag(['--enable-source-maps', '--heap-growing-percent-foo'])).toBe('--heap-growing-percent=50');
  });

  it("leaves the operator's own flag standing, in either spelling", () => {
    expect(heapGrowthFlag(['--heap-growing-percent=20'])).toBeUndefined();
    expect(heapGrowthFlag(['--enable-source-maps', '--heap-growing-percent', '80'])).toBeUndefined();
  });
});
