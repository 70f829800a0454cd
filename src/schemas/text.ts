import { z } from 'zod';

/** Characters as JSON Schema counts them: Unicode code points, not UTF-16 units (docs/spec/DECISIONS.md). */
function codePoints(value: string): number {
  let count = 0;
  for (const _ of value) count++;
  return count;
}

/** docs/spec/DECISIONS.md, "NUL characters": PostgreSQL text cannot hold U+0000, so no input may carry one. */
const NUL_MESSAGE = 'Remove the NUL character';
const UNPAIRED_SURROGATE_MESSAGE = 'Remove the unpaired surrogate (this is not valid Unicode text)';

/** A UTF-16 surrogate without its partner: JSON can carry one (`"\ud800"`), Unicode text cannot. */
const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * The base of every string the service takes in and may store. U+0000 is
 * refused first, then text that is not valid Unicode (an unpaired surrogate:
 * the PostgreSQL driver would store U+FFFD instead, PGlite's fails), each
 * alone: the field gets that one message, whatever else is wrong with it.
 */
export function text(params?: Parameters<typeof z.string>[0]) {
  return z
    .string(params)
    .refine((value) => !value.includes('\u0000'), { message: NUL_MESSAGE, abort: true })
    .refine((value) => !UNPAIRED_SURROGATE.test(value), { message: UNPAIRED_SURROGATE_MESSAGE, abort: true });
}

/** A path or body id: any 8-4-4-4-12 hex UUID, as PostgreSQL's uuid type accepts. */
export const uuidSchema = z.guid({ error: 'Must be a UUID' }).meta({ format: 'uuid' });

export const timestampSchema = z.iso.datetime().meta({ description: 'ISO 8601, UTC, millisecond precision' });

/**
 * A required text that is trimmed, then holds 1 to `max` code points. A
 * missing value gets the same message as an empty one.
 */
export function trimmedText(options: { max: number; empty: string; tooLong: string }) {
  return text({ error: (issue) => (issue.input === undefined ? options.empty : undefined) })
    .trim()
    .refine((text) => codePoints(text) >= 1, options.empty)
    .refine((text) => codePoints(text) <= options.max, options.tooLong)
    .meta({ minLength: 1, maxLength: options.max, description: `Trimmed; 1 to ${options.max} characters after trimming` });
}
