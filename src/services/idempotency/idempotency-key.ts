import { AppError } from '../../errors/app-error.ts';
import { idempotencyKeyHeaderSchema } from '../../schemas/headers.ts';

/** docs/spec/SPEC.md, "Idempotency-Key header rules" 1: the key, by the header's schema; anything else, absence included, is a 400. */
export function parseIdempotencyKey(headers: Record<string, string | string[] | undefined>): string {
  const key = idempotencyKeyHeaderSchema.shape['idempotency-key'].safeParse(headers['idempotency-key']);
  if (!key.success) {
    throw new AppError('idempotency-key-missing', {
      detail: 'Send an Idempotency-Key header of 1 to 255 printable ASCII characters, such as a UUID.',
    });
  }
  return key.data;
}
