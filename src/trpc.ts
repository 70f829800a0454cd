import { initTRPC } from '@trpc/server';
import type { IncomingHttpHeaders } from 'node:http';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { AppError } from './errors/app-error.ts';
import { problemTypes } from './errors/problem-types.ts';
import { fieldErrorsOf, toTRPCError } from './errors/trpc-error-mapping.ts';
import type { HttpMeta } from './http/http-meta.ts';
import { credentialsRequired, insufficientScope } from './services/auth/bearer-challenge.ts';
import type { Caller, Scope } from './services/auth/caller.ts';
import { hitRateLimit, rateLimitHeaders, type RateLimitOutcome } from './services/rate-limits/hit-rate-limit.ts';
import type { LimitName } from './services/rate-limits/limit-policies.ts';
import type { ServiceContext } from './services/service-context.ts';

/** Who may call a procedure and which limit it counts against; enforced on every transport. */
export interface AccessMeta {
  /** `credentials`: any valid key or token; `api-key`: a key, not a token; a scope: a caller holding it. */
  requires?: 'credentials' | 'api-key' | Scope;
  rateLimit?: LimitName;
}

export type Meta = OpenApiMeta<{ http?: HttpMeta; access?: AccessMeta }>;

/** What every procedure receives, whichever transport called it. */
export interface Context {
  service: ServiceContext;
  requestId: string;
  /** The request's headers, names in lower case. */
  headers: IncomingHttpHeaders;
  /** The verified caller; undefined for an anonymous request. */
  caller: Caller | undefined;
  /** The client's address (X-Forwarded-For's first entry with TRUST_PROXY). */
  clientAddress: string;
  /** Headers a procedure adds to its response (Location, Link, RateLimit, …). */
  responseHeaders: Record<string, string>;
  /** The rate-limit count of this request, when its procedure is limited. */
  rateLimit?: RateLimitOutcome;
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
  if (!result.ok && result.error.cause instanceof AppError) throw toTRPCError(result.error.cause);
  return result;
});

/**
 * Enforces a procedure's AccessMeta before its input is read: the rate limit
 * (identity known, so keys count apart from addresses), then credentials
 * (401), then key-only or scope (403). Ownership checks that need the input
 * stay in the service, after validation (DECISIONS order).
 */
const access = t.middleware(async ({ ctx, meta, next }) => {
  const rules = meta?.access;
  if (!rules) return next();
  let rateLimit: RateLimitOutcome | undefined;
  if (rules.rateLimit) {
    const client = ctx.caller ? `key:${ctx.caller.keyId}` : `ip:${ctx.clientAddress}`;
    // The headers ride on the 429 itself and, once counted, on every other answer.
    rateLimit = await hitRateLimit({ ctx: ctx.service, input: { name: rules.rateLimit, client, authenticated: ctx.caller !== undefined } });
    Object.assign(ctx.responseHeaders, rateLimitHeaders(rateLimit));
  }
  if (rules.requires) {
    const caller = requireCaller(ctx);
    if (rules.requires === 'api-key' && caller.method !== 'api-key') {
      throw new AppError('forbidden', { detail: 'This endpoint needs an API key; a token cannot be used here.' });
    }
    if (rules.requires !== 'credentials' && rules.requires !== 'api-key' && !caller.scopes.includes(rules.requires)) {
      throw insufficientScope(ctx.service, rules.requires);
    }
  }
  return next({ ctx: { ...ctx, rateLimit } });
});

/** The verified caller, or the 401 for an endpoint that needs one. */
export function requireCaller(ctx: Context): Caller {
  if (!ctx.caller) throw credentialsRequired(ctx.service);
  return ctx.caller;
}

export const router = t.router;
export const publicProcedure = t.procedure.use(domainErrors).use(access);
