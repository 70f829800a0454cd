import { TRPCError } from '@trpc/server';
import { AppError } from './app-error.ts';
import { databaseUnavailable, isDatabaseUnavailable } from './database-unavailable.ts';
import { toFieldErrors } from './field-errors.ts';
import { isZodError } from './trpc-error-mapping.ts';

/**
 * Whatever a procedure threw, as the domain error when it is one: an
 * AppError (also inside tRPC's wrapper), an input that failed its zod schema
 * (a validation problem), or a database out of reach (unavailable). Anything
 * else is returned as it is: an unexpected failure, for the transport to log
 * and answer as its 500.
 */
export function appErrorOf(error: unknown): AppError | unknown {
  if (error instanceof AppError) return error;
  if (isDatabaseUnavailable(error)) return databaseUnavailable(error);
  if (error instanceof TRPCError) {
    if (error.cause instanceof AppError) return error.cause;
    if (error.code === 'BAD_REQUEST' && isZodError(error.cause)) {
      const errors = toFieldErrors(error.cause.issues);
      return new AppError('validation', {
        detail: errors.map((entry) => (entry.path ? `${entry.path}: ${entry.message}` : entry.message)).join('; '),
        errors,
      });
    }
  }
  return error;
}
