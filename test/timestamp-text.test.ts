import { describe, expect, it } from 'vitest';
import { dateOfUtcTimestampText } from '../src/db/timestamp-text.ts';

/** A timestamptz as PostgreSQL writes it in UTC, with its fraction of microseconds trimmed of trailing zeros. */
function postgresText(epochMs: number, microseconds: number): string {
  const iso = new Date(epochMs).toISOString();
  const fraction = `${iso.slice(20, 23)}${String(microseconds).padStart(3, '0')}`.replace(/0+$/, '');
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction ? `.${fraction}` : ''}+00`;
}

describe('a timestamptz read from its text by position', () => {
  it('is the Date that new Date(text) gives, for every fraction PostgreSQL writes', () => {
    const fixed = [
      '2026-11-24 23:52:52.123456+00',
      '2026-11-24 23:52:52.123999+00',
      '2026-11-24 23:52:52.12+00',
      '2026-11-24 23:52:52.1+00',
      '2026-11-24 23:52:52+00',
      '2026-11-24 00:00:00.000001+00',
      '1970-01-01 00:00:00+00',
      '0100-03-01 12:00:00.5+00',
      '9999-12-31 23:59:59.999999+00',
      '2024-02-29 23:59:59.999+00',
    ];
    for (const text of fixed) expect(dateOfUtcTimestampText(text)?.getTime(), text).toBe(new Date(text).getTime());
    // And a spread of instants over four centuries, each with and without microseconds.
    for (let step = 0; step < 2000; step++) {
      const epochMs = -5_000_000_000_000 + step * 7_919_191_919 + (step % 1000);
      for (const microseconds of [0, 1, 500, 999]) {
        const text = postgresText(epochMs, microseconds);
        expect(dateOfUtcTimestampText(text)?.getTime(), text).toBe(new Date(text).getTime());
      }
    }
  });

  it('leaves every other shape to the general parser', () => {
    for (const text of [
      '2026-11-24 23:52:52.5+05:30',
      '2026-11-24 23:52:52-08',
      '2026-11-24T23:52:52.123Z',
      '0099-01-01 00:00:00+00',
      '12026-11-24 23:52:52+00',
      '2026-11-24 23:52:52+00 BC',
      '2026-11-24 23:52:52.+00',
      '2026-11-24 23:52:52.1234567+00',
      '2026-1x-24 23:52:52+00',
      '2026-13-24 23:52:52+00',
      'infinity',
      '-infinity',
      '',
    ]) {
      expect(dateOfUtcTimestampText(text), text).toBeUndefined();
    }
  });
});
