import { describe, expect, it } from 'vitest';
import { isoTimestampOf } from '../src/lib/iso-timestamp.ts';

describe('a timestamp written as ISO text', () => {
  it('is the text toISOString writes, at the edges of days, months, years and the four-digit range', () => {
    const fixed = [
      '1970-01-01T00:00:00.000Z',
      '1969-12-31T23:59:59.999Z',
      '2000-02-29T12:34:56.789Z',
      '1900-02-28T23:59:59.999Z',
      '1900-03-01T00:00:00.000Z',
      '2024-12-31T23:59:59.999Z',
      '2026-11-25T00:00:00.001Z',
      '0000-01-01T00:00:00.000Z',
      '0000-02-29T00:00:00.000Z',
      '0099-12-31T23:59:59.999Z',
      '9999-12-31T23:59:59.999Z',
    ];
    for (const text of fixed) expect(isoTimestampOf(new Date(text))).toBe(text);
  });

  it('is the text toISOString writes for instants spread over ten thousand years, one day after another', () => {
    for (let step = 0; step < 20_000; step++) {
      // A prime stride in milliseconds visits every time of day and every day of the calendar's cycle.
      const date = new Date(-62_167_219_200_000 + step * 15_778_463_993);
      expect(isoTimestampOf(date), String(date.getTime())).toBe(date.toISOString());
    }
    // The cache of the last day's text must follow days that differ by one.
    for (let step = 0; step < 3000; step++) {
      const date = new Date(1_764_000_000_000 + step * 43_200_017);
      expect(isoTimestampOf(date), String(date.getTime())).toBe(date.toISOString());
    }
  });

  it('leaves years outside 0000–9999 and invalid dates to toISOString', () => {
    for (const date of [new Date('-000001-12-31T23:59:59.999Z'), new Date('+010000-01-01T00:00:00.000Z'), new Date(8.64e15), new Date(-8.64e15)]) {
      expect(isoTimestampOf(date)).toBe(date.toISOString());
    }
    expect(() => isoTimestampOf(new Date(Number.NaN))).toThrow(RangeError);
  });
});
