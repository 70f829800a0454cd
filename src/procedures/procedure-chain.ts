import { experimental_standaloneMiddleware } from '@trpc/server';
import { toAppError } from '../errors/to-app-error.ts';
import { enforceAccess } from './access.ts';
import type { Context } from './context.ts';
import { idempotently } from './idempotent.ts';
import type { Meta } from './meta.ts';
import { toTRPCError } from './trpc-error.ts';

/**
 * Every procedure's one middleware, in docs/spec/SPEC.md's order: rate limit and
 * credentials (AccessMeta), then the Idempotency-Key, then the procedure's
 * own input validation and resolver. Whatever fails on the way leaves as a
 * TRPCError carrying the normalised AppError, so every transport renders the
 * same failure. One middleware rather than three: each level of tRPC's chain
 * copies the call's options, and that showed in profiles.
 */
export const procedureChain = experimental_standaloneMiddleware<{ ctx: Context; meta: Meta }>().create(
  async ({ ctx, meta, next, getRawInput }) => {
    try {
      if (meta?.access) await enforceAccess(ctx, meta.access);
      // The result of a step that did not call next(): tRPC reads only `ok` and `data` of it.
      if (meta?.idempotent) return (await idempotently(ctx, meta, next, getRawInput)) as Awaited<ReturnType<typeof next>>;
      const result = await next();
      if (!result.ok) throw result.error;
      return result;
    } catch (error) {
      throw toTRPCError(toAppError(error));
    }
  },
);
