/** Shortest text of a timestamptz: `2026-11-24 23:52:52+00`. */
const SHORTEST = 22;
const ZERO = 48;

/**
 * The instant PostgreSQL writes as a timestamptz's text in UTC —
 * `2026-11-24 23:52:52.123456+00`, its fraction trimmed of trailing zeros or
 * absent — read by position: the same Date as `new Date(text)` (the fraction
 * cut to milliseconds, not rounded), which goes through V8's general date
 * parser at several hundred nanoseconds a value, two values a task row.
 * Undefined for any other shape (another time zone's offset, a year before
 * 100 or after 9999, BC, infinity): the caller parses those the general way.
 */
export function dateOfUtcTimestampText(text: string): Date | undefined {
  const length = text.length;
  if (length < SHORTEST || length > SHORTEST + 7) return undefined;
  if (text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(10) !== 32 || text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58) return undefined;
  if (!text.endsWith('+00')) return undefined;
  const fractionEnd = length - 3;
  let milliseconds = 0;
  if (fractionEnd > 19) {
    // `.` and one to six digits.
    if (text.charCodeAt(19) !== 46 || fractionEnd === 20) return undefined;
    for (let index = 20, scale = 100; index < fractionEnd; index++, scale /= 10) {
      const digit = text.charCodeAt(index) - ZERO;
      if (digit < 0 || digit > 9) return undefined;
      if (scale >= 1) milliseconds += digit * scale;
    }
  }
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  const hour = digits(text, 11, 2);
  const minute = digits(text, 14, 2);
  const second = digits(text, 17, 2);
  // new Date(text) reads a year below 100 as 19xx; NaN marks a character that is not a digit.
  if (!(year >= 100) || !(month >= 1 && month <= 12) || !(day >= 1 && day <= 31) || !(hour <= 23) || !(minute <= 59) || !(second <= 59)) return undefined;
  return new Date(((daysSinceEpoch(year, month, day) * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + milliseconds);
}

/**
 * Days from 1970-01-01 to a date of the proleptic Gregorian calendar, as
 * Date.UTC counts them but in plain arithmetic (Howard Hinnant's
 * days_from_civil): Date.UTC is a call into V8's runtime, a third of the time.
 */
function daysSinceEpoch(year: number, month: number, day: number): number {
  const marchYear = month <= 2 ? year - 1 : year;
  const era = Math.floor(marchYear / 400);
  const yearOfEra = marchYear - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

function digits(text: string, from: number, count: number): number {
  let value = 0;
  for (let index = from; index < from + count; index++) {
    const digit = text.charCodeAt(index) - ZERO;
    if (digit < 0 || digit > 9) return NaN;
    value = value * 10 + digit;
  }
  return value;
}
