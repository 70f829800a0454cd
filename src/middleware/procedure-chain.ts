import { experimental_standaloneMiddleware } from '@trpc/server';
import { middlewareMarker } from '@trpc/server/unstable-core-do-not-import';
import { AppError } from '../errors/app-error.ts';
import { databaseUnavailable, isDatabaseUnavailable } from '../errors/database-unavailable.ts';
import { toTRPCError } from '../errors/trpc-error-mapping.ts';
import type { Context, Meta } from '../trpc.ts';
import { enforceAccess } from './access.ts';
import { runIdempotent } from './idempotency.ts';

/**
 * Every procedure's one middleware, in SPEC's order: rate limit and
 * credentials (AccessMeta), then the Idempotency-Key, then the procedure's
 * own input validation and resolver — with the domain's AppError turned into
 * the matching tRPC error once, here. One middleware rather than three: each
 * level of tRPC's chain copies the call's options, and that showed in profiles.
 */
export const procedureChain = experimental_standaloneMiddleware<{ ctx: Context; meta: Meta }>().create(
  async ({ ctx, meta, next, getRawInput }) => {
    try {
      if (meta?.access) await enforceAccess(ctx, meta.access);
      const result = meta?.idempotent
        ? await runIdempotent(ctx, meta, (service) => next({ ctx: { service } }), getRawInput)
        : await next();
      if ('replayed' in result) return { ok: true as const, data: result.replayed, marker: middlewareMarker };
      if (!result.ok && result.error.cause instanceof AppError) throw toTRPCError(result.error.cause);
      if (!result.ok && isDatabaseUnavailable(result.error.cause)) throw toTRPCError(databaseUnavailable(result.error.cause));
      return result;
    } catch (error) {
      if (error instanceof AppError) throw toTRPCError(error);
      throw isDatabaseUnavailable(error) ? toTRPCError(databaseUnavailable(error)) : error;
    }
  },
);
