import { AppError } from '../../errors/app-error.ts';
import { idempotencyKeyHeaderSchema, readHeader } from '../../schemas/headers.ts';

/** SPEC "Idempotency-Key header rules" 1: the key, by the header's schema; anything else, absence included, is a 400. */
export function parseIdempotencyKey(headers: Record<string, string | string[] | undefined>): string {
  const key = readHeader(idempotencyKeyHeaderSchema, 'idempotency-key', headers);
  if (key === undefined) {
    throw new AppError('idempotency-key-missing', {
      detail: 'Send an Idempotency-Key header of 1 to 255 printable ASCII characters, such as a UUID.',
    });
  }
  return key;
}
