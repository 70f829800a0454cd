import { TRPCError, type TRPCDefaultErrorShape as DefaultErrorShape } from '@trpc/server';
import { AppError, type FieldError } from '../errors/app-error.ts';
import { problemTypes } from '../errors/problem-types.ts';

/**
 * The domain error as tRPC sees it: the code from the table of problem types; the AppError
 * stays reachable as `cause`. A refusal tRPC made itself is answered as tRPC made it.
 */
export function toTRPCError(error: AppError): TRPCError {
  if (error.cause instanceof TRPCError && error.cause.code !== 'INTERNAL_SERVER_ERROR') return error.cause;
  return new TRPCError({ code: problemTypes[error.slug].trpc, message: error.detail ?? error.title, cause: error });
}

/**
 * The renderer of tRPC's envelope (its errorFormatter): a domain failure's
 * message and field errors (`data.issues`); tRPC's own refusals (a body that
 * is not JSON, an unknown procedure) as tRPC shaped them. An unexpected
 * failure never shows its own message, which may hold SQL or internals.
 */
export function formatTrpcError({ shape, error }: { shape: DefaultErrorShape; error: TRPCError }): DefaultErrorShape & { data: { issues?: FieldError[] } } {
  const failure = error.cause instanceof AppError ? error.cause : undefined;
  const internal = error.code === 'INTERNAL_SERVER_ERROR';
  return {
    ...shape,
    message: internal ? problemTypes.internal.title : shape.message,
    data: { ...shape.data, issues: failure?.errors },
  };
}
