import { AppError } from '../../errors/app-error.ts';

const KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * SPEC "Idempotency-Key header rules" 1: trimmed, optionally one pair of
 * double quotes (a structured-field string), then 1–255 characters from
 * 0x21 to 0x7E. Anything else, absence included, is a 400.
 */
export function parseIdempotencyKey(header: string | string[] | undefined): string {
  let value = typeof header === 'string' ? header.trim() : '';
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
  if (!KEY.test(value)) {
    throw new AppError('idempotency-key-missing', {
      detail: 'Send an Idempotency-Key header of 1 to 255 printable ASCII characters, such as a UUID.',
    });
  }
  return value;
}
