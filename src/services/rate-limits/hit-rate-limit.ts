import { sql } from 'drizzle-orm';
import { rateLimitWindows } from '../../db/schema/index.ts';
import { AppError } from '../../errors/app-error.ts';
import { prepared } from '../prepared-queries.ts';
import type { ServiceContext } from '../service-context.ts';
import { limitPolicy, type LimitName, type LimitPolicy } from './limit-policies.ts';

export interface RateLimitOutcome extends LimitPolicy {
  remaining: number;
  /** Whole seconds until the window ends, at least 1. */
  resetSeconds: number;
}

/** Expired windows deleted per new window: enough to keep pace, bounded per request. */
const SWEEP_BATCH = 100;

/**
 * Counts one request against a fixed window aligned to the window length
 * (DECISIONS). The count is ONE upsert in the database, so every instance of
 * the service on one database shares it. Throws 429 once the limit is passed.
 */
export async function hitRateLimit({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { name: LimitName; client: string; authenticated: boolean };
}): Promise<RateLimitOutcome> {
  const policy = limitPolicy(ctx.settings, input.name, input.authenticated);
  const now = ctx.clock.now().getTime();
  const windowMs = policy.windowSeconds * 1000;
  const windowStart = new Date(Math.floor(now / windowMs) * windowMs);
  const windowEnd = new Date(windowStart.getTime() + windowMs);
  const [row] = await prepared(ctx.db, 'rate_limit_hit', (db) =>
    db
      .insert(rateLimitWindows)
      .values({
        name: sql.placeholder('name'),
        client: sql.placeholder('client'),
        windowStart: sql.placeholder('windowStart'),
        windowEnd: sql.placeholder('windowEnd'),
        hits: 1,
      })
      .onConflictDoUpdate({
        target: [rateLimitWindows.name, rateLimitWindows.client, rateLimitWindows.windowStart],
        set: { hits: sql`${rateLimitWindows.hits} + 1` },
      })
      .returning({ hits: rateLimitWindows.hits }),
  ).execute({ name: policy.name, client: input.client, windowStart, windowEnd });
  const hits = row!.hits;
  // Now and then, a client's first request in a window clears a batch of ended windows.
  if (hits === 1 && ctx.housekeeping.due('rate-limit-windows', now)) await sweepEndedWindows(ctx, new Date(now));
  const outcome: RateLimitOutcome = {
    ...policy,
    remaining: Math.max(0, policy.limit - hits),
    resetSeconds: Math.max(1, Math.ceil((windowEnd.getTime() - now) / 1000)),
  };
  if (hits > policy.limit) {
    throw new AppError('rate-limited', {
      detail: `Rate limit ${policy.name} allows ${policy.limit} requests per ${policy.windowSeconds} seconds; it resets in ${outcome.resetSeconds} seconds.`,
      headers: { 'Retry-After': String(outcome.resetSeconds), ...rateLimitHeaders(outcome) },
    });
  }
  return outcome;
}

/** DECISIONS: the IETF RateLimit header fields, on every response of a limited route. */
export function rateLimitHeaders(outcome: RateLimitOutcome): Record<string, string> {
  return {
    'RateLimit-Policy': `"${outcome.name}";q=${outcome.limit};w=${outcome.windowSeconds}`,
    RateLimit: `"${outcome.name}";r=${outcome.remaining};t=${outcome.resetSeconds}`,
  };
}

async function sweepEndedWindows(ctx: ServiceContext, now: Date): Promise<void> {
  await ctx.db.execute(sql`
    delete from ${rateLimitWindows}
    where (${rateLimitWindows.name}, ${rateLimitWindows.client}, ${rateLimitWindows.windowStart}) in (
      select ${rateLimitWindows.name}, ${rateLimitWindows.client}, ${rateLimitWindows.windowStart}
      from ${rateLimitWindows}
      where ${rateLimitWindows.windowEnd} <= ${now.toISOString()}::timestamptz
      limit ${SWEEP_BATCH}
      for update skip locked
    )`);
}
