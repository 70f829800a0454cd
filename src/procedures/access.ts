import { AppError } from '../errors/app-error.ts';
import { insufficientScope } from '../services/auth/bearer-challenge.ts';
import { hitRateLimit, rateLimitHeaders, type RateLimitOutcome } from '../services/rate-limits/hit-rate-limit.ts';
import type { LimitName } from '../services/rate-limits/limit-policies.ts';
import { requesterOf, requireCaller, type Context } from './context.ts';
import type { AccessMeta } from './meta.ts';

/**
 * Enforces a procedure's AccessMeta before its input is read: the rate limit
 * (identity known, so keys count apart from addresses), then credentials
 * (401), then key-only or scope (403). Ownership checks that need the input
 * stay in the service, after validation (docs/spec/DECISIONS.md order).
 */
export async function enforceAccess(ctx: Context, rules: AccessMeta): Promise<void> {
  if (rules.rateLimit) {
    const rateLimit = takePrepaid(ctx, rules.rateLimit) ?? (await hitRateLimit({ ctx: ctx.service, input: { name: rules.rateLimit, requester: requesterOf(ctx) } }));
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

/**
 * A call already paid for: a GraphQL operation counts all its limited fields
 * before it runs (all or nothing), and each field's procedure then takes one
 * of those here instead of counting again. A call without one counts itself,
 * so no way in can skip the limit.
 */
function takePrepaid(ctx: Context, name: LimitName): RateLimitOutcome | undefined {
  const prepaid = ctx.prepaid?.get(name);
  if (!prepaid || prepaid.calls === 0) return undefined;
  prepaid.calls--;
  return prepaid.outcome;
}
