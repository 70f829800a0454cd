import { TRPCError } from '@trpc/server';
import type { $ZodIssue } from 'zod/v4/core';
import { AppError } from './app-error.ts';
import { databaseUnavailable, isDatabaseUnavailable } from './database-unavailable.ts';
import { toFieldErrors } from './field-errors.ts';
import { problemTypes, type ProblemSlug } from './problem-types.ts';

/**
 * THE error normaliser: whatever was thrown, as the domain's AppError — the
 * AppError itself (also inside tRPC's wrapper), an input that failed its zod
 * schema (422 validation with one entry per field), the database out of
 * reach (503 unavailable), and anything else as `internal`, the original kept
 * as `cause` for the log. Transports render the result; none maps on its own.
 */
export function toAppError(thrown: unknown): AppError {
  if (thrown instanceof AppError) return thrown;
  if (thrown instanceof TRPCError) {
    if (thrown.cause instanceof AppError) return thrown.cause;
    // An output that fails its schema is also a ZodError, but ours, not the caller's: internal.
    if (thrown.code === 'BAD_REQUEST' && isZodError(thrown.cause)) return validationProblem(thrown.cause.issues);
  }
  // The driver's own error as the cause, not tRPC's wrapper around it.
  if (isDatabaseUnavailable(thrown)) return databaseUnavailable(thrown instanceof TRPCError ? thrown.cause : thrown);
  if (thrown instanceof TRPCError && thrown.code !== 'INTERNAL_SERVER_ERROR') {
    // tRPC's own refusal of a request (input that is not JSON, a body too large): the problem
    // type of its code, tRPC's error kept as the cause so tRPC's envelope can show it as tRPC wrote it.
    return new AppError(slugOfTrpcCode(thrown.code), { detail: thrown.message, cause: thrown });
  }
  return new AppError('internal', { cause: thrown });
}

function slugOfTrpcCode(code: TRPCError['code']): ProblemSlug {
  if (code === 'PARSE_ERROR') return 'bad-request';
  const slugs = Object.keys(problemTypes) as ProblemSlug[];
  return slugs.find((slug) => problemTypes[slug].trpc === code && slug !== 'validation') ?? 'bad-request';
}

/** The validation problem for failed zod issues: `errors` per docs/spec/DECISIONS.md, "Problems", and a detail that lists them. */
export function validationProblem(issues: readonly $ZodIssue[]): AppError {
  const errors = toFieldErrors(issues);
  return new AppError('validation', {
    detail: errors.map((entry) => (entry.path ? `${entry.path}: ${entry.message}` : entry.message)).join('; '),
    errors,
  });
}

function isZodError(value: unknown): value is Error & { issues: $ZodIssue[] } {
  return value instanceof Error && (value.name === 'ZodError' || value.name === '$ZodError') && 'issues' in value;
}
