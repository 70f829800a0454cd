import { initTRPC } from '@trpc/server';
import type { IncomingHttpHeaders } from 'node:http';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { AppError } from './errors/app-error.ts';
import { problemTypes } from './errors/problem-types.ts';
import { fieldErrorsOf, toTRPCError } from './errors/trpc-error-mapping.ts';
import type { HttpMeta } from './http/http-meta.ts';
import type { ServiceContext } from './services/service-context.ts';

export type Meta = OpenApiMeta<{ http?: HttpMeta }>;

/** What every procedure receives, whichever transport called it. */
export interface Context {
  service: ServiceContext;
  requestId: string;
  /** The request's headers, names in lower case. */
  headers: IncomingHttpHeaders;
  /** Headers a procedure adds to its response (Location, Link, API-Version, …). */
  responseHeaders: Record<string, string>;
}

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    isDev: false,
    errorFormatter({ shape, error }) {
      const internal = error.code === 'INTERNAL_SERVER_ERROR';
      return {
        ...shape,
        // An unexpected failure's own message may hold SQL or internals.
        message: internal ? problemTypes.internal.title : shape.message,
        data: { ...shape.data, issues: fieldErrorsOf(error) },
      };
    },
  });

/**
 * Turns the domain's AppError into the matching tRPC error once, here, so no
 * procedure needs its own try/catch.
 */
const domainErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof AppError) {
    throw toTRPCError(result.error.cause);
  }
  return result;
});

export const router = t.router;
export const publicProcedure = t.procedure.use(domainErrors);
