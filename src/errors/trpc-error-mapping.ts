import { TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import { AppError, type FieldError } from './app-error.ts';
import { toFieldErrors } from './field-errors.ts';
import type { ProblemSlug } from './problem-types.ts';

const trpcCodeBySlug: Record<ProblemSlug, TRPC_ERROR_CODE_KEY> = {
  validation: 'BAD_REQUEST',
  'bad-request': 'BAD_REQUEST',
  'not-found': 'NOT_FOUND',
  unauthorized: 'UNAUTHORIZED',
  forbidden: 'FORBIDDEN',
  'unsupported-version': 'BAD_REQUEST',
  'precondition-failed': 'PRECONDITION_FAILED',
  'idempotency-key-missing': 'BAD_REQUEST',
  'request-in-progress': 'CONFLICT',
  'idempotency-key-reused': 'UNPROCESSABLE_CONTENT',
  unavailable: 'SERVICE_UNAVAILABLE',
  internal: 'INTERNAL_SERVER_ERROR',
  'rate-limited': 'TOO_MANY_REQUESTS',
  'payload-too-large': 'PAYLOAD_TOO_LARGE',
};

/** The domain error as tRPC sees it; the AppError stays reachable as `cause`. */
export function toTRPCError(error: AppError): TRPCError {
  return new TRPCError({ code: trpcCodeBySlug[error.slug], message: error.detail ?? error.title, cause: error });
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
