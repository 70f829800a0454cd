import { AppError } from '../errors/app-error.ts';
import { insufficientScope } from '../services/auth/bearer-challenge.ts';
import type { Scope } from '../services/auth/caller.ts';
import { hitRateLimit, rateLimitHeaders } from '../services/rate-limits/hit-rate-limit.ts';
import type { LimitName } from '../services/rate-limits/limit-policies.ts';
import { clientIdOf, requireCaller, type Context } from '../trpc.ts';

/** Who may call a procedure and which limit it counts against; enforced on every transport. */
export interface AccessMeta {
  /** `credentials`: any valid key or token; `api-key`: a key, not a token; a scope: a caller holding it. */
  requires?: 'credentials' | 'api-key' | Scope;
  rateLimit?: LimitName;
}

/**
 * Enforces a procedure's AccessMeta before its input is read: the rate limit
 * (identity known, so keys count apart from addresses), then credentials
 * (401), then key-only or scope (403). Ownership checks that need the input
 * stay in the service, after validation (DECISIONS order).
 */
export async function enforceAccess(ctx: Context, rules: AccessMeta): Promise<void> {
  if (rules.rateLimit) {
    const rateLimit = await hitRateLimit({
      ctx: ctx.service,
      input: { name: rules.rateLimit, client: clientIdOf(ctx), authenticated: ctx.caller !== undefined },
    });
    // Once counted, every answer of the route carries the headers; a 429 carries them itself.
    Object.assign(ctx.response.headers, rateLimitHeaders(rateLimit));
    ctx.rateLimit = rateLimit;
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
}
