import { TRPCError } from '@trpc/server';
import { AppError, type FieldError } from './app-error.ts';
import { toFieldErrors } from './field-errors.ts';
import { problemTypes } from './problem-types.ts';

/** The domain error as tRPC sees it; the AppError stays reachable as `cause`. */
export function toTRPCError(error: AppError): TRPCError {
  return new TRPCError({ code: problemTypes[error.slug].trpc, message: error.detail ?? error.title, cause: error });
}

export function isZodError(value: unknown): value is Error & { issues: Parameters<typeof toFieldErrors>[0] } {
  return value instanceof Error && (value.name === 'ZodError' || value.name === '$ZodError') && 'issues' in value;
}

/** The `{path, message}` list for an input failure, whichever layer found it. */
export function fieldErrorsOf(error: TRPCError): FieldError[] | undefined {
  if (error.cause instanceof AppError) return error.cause.errors;
  if (error.code === 'BAD_REQUEST' && isZodError(error.cause)) return toFieldErrors(error.cause.issues);
  return undefined;
}
