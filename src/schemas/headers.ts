import { z } from 'zod';
import { parseEntityTagList } from '../lib/entity-tag.ts';
import { TASK_VERSIONS } from './api-versions.ts';

/**
 * Request headers with a rule: each schema documents the header in the
 * OpenAPI document AND is what parses it, so the two cannot drift. Read one
 * with `readHeader`.
 */

const entityTags = (description: string) => z.string().optional().transform(parseEntityTagList).meta({ description });

export const ifMatchHeaderSchema = z.object({
  'if-match': entityTags('Entity tags of the version you expect (comma-separated; W/ ignored; * for any)'),
});

export const ifNoneMatchHeaderSchema = z.object({
  'if-none-match': entityTags('Entity tags you hold; a match answers 304 without a body'),
});

/** docs/spec/SPEC.md, "Idempotency-Key header rules" 1: trimmed, optionally one pair of double quotes, then 1–255 characters from 0x21 to 0x7E. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

export const idempotencyKeyHeaderSchema = z.object({
  'idempotency-key': z
    .string()
    .transform((value) => {
      const trimmed = value.trim();
      return trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"') ? trimmed.slice(1, -1) : trimmed;
    })
    .pipe(z.string().regex(IDEMPOTENCY_KEY))
    .meta({ description: '1 to 255 printable ASCII characters, optionally in double quotes; kept 24 hours per client' }),
});

/** docs/spec/SPEC.md: a valid Last-Event-ID is a positive safe integer; anything else is read as no Last-Event-ID. */
export const lastEventIdSchema = z
  .string()
  .optional()
  .transform((value) => {
    const trimmed = value?.trim();
    if (trimmed === undefined || !/^[1-9][0-9]*$/.test(trimmed)) return undefined;
    const id = Number(trimmed);
    return Number.isSafeInteger(id) ? id : undefined;
  })
  .meta({ description: 'Resume after this event id (a positive integer)' });

export const lastEventIdHeaderSchema = z.object({ 'last-event-id': lastEventIdSchema });

/** docs/spec/SPEC.md, GET /api/tasks/{id}: the representation asked for; anything but 1 or 2 is refused, not read as absent. */
export const apiVersionHeaderSchema = z.object({
  'api-version': z
    .enum(TASK_VERSIONS)
    .default(TASK_VERSIONS[0])
    .meta({ description: 'Representation version: 1 (Task, the default) or 2 (TaskV2)' }),
});

/**
 * An optional header of a request, parsed by the schema that documents it; a
 * value the schema cannot read counts as no header at all.
 */
export function readHeader<S extends z.ZodObject, N extends keyof S['shape'] & string>(
  schema: S,
  name: N,
  headers: Record<string, string | string[] | undefined>,
): z.output<S['shape'][N]> {
  const header = schema.shape[name] as z.ZodType;
  const parsed = header.safeParse(headers[name]);
  return (parsed.success ? parsed.data : header.parse(undefined)) as z.output<S['shape'][N]>;
}
