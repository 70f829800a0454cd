import { z } from 'zod';
import { AppError } from '../../errors/app-error.ts';
import { isoTimestampOf } from '../../lib/iso-timestamp.ts';

export interface TaskPosition {
  createdAt: Date;
  id: string;
}

// PostgreSQL's timestamptz range is wider, but a cursor we issued never holds
// a year outside this; anything else would be a forged value.
const cursorPayload = z.object({
  createdAt: z
    .string()
    .transform((value) => new Date(value))
    .refine((date) => !Number.isNaN(date.getTime()) && date.getUTCFullYear() >= 1 && date.getUTCFullYear() <= 9999),
  id: z.guid(),
});

/** An opaque cursor: base64url JSON of the last row's createdAt and id (SPEC listing rule 3). */
export function encodeTaskCursor(position: TaskPosition): string {
  const json = JSON.stringify({ createdAt: isoTimestampOf(position.createdAt), id: position.id });
  return Buffer.from(json, 'utf8').toString('base64url');
}

export function decodeTaskCursor(cursor: string): TaskPosition {
  let payload: unknown;
  try {
    if (!/^[A-Za-z0-9_-]*$/.test(cursor)) throw new Error('not base64url');
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  const parsed = cursorPayload.safeParse(payload);
  if (!parsed.success) throw invalidCursor();
  return { createdAt: parsed.data.createdAt, id: parsed.data.id.toLowerCase() };
}

function invalidCursor(): AppError {
  return new AppError('validation', {
    detail: 'The cursor is not one this API issued; pass back a nextCursor value unchanged.',
    errors: [{ path: 'query.cursor', message: 'Invalid cursor' }],
  });
}
