import { experimental_standaloneMiddleware } from '@trpc/server';
import { AppError } from '../errors/app-error.ts';
import { toTRPCError } from '../errors/trpc-error-mapping.ts';
import type { Context } from '../trpc.ts';

/**
 * Turns the domain's AppError into the matching tRPC error once, here, so no
 * procedure needs its own try/catch.
 */
export const domainErrors = experimental_standaloneMiddleware<{ ctx: Context }>().create(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof AppError) throw toTRPCError(result.error.cause);
  return result;
});
