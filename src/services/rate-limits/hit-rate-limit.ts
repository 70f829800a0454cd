import { and, eq, sql } from 'drizzle-orm';
import { rowsOf } from '../../db/rows.ts';
import { compiledQuery } from '../../db/compiled-statement.ts';
import { rateLimitWindows } from '../../db/schema/index.ts';
import { AppError } from '../../errors/app-error.ts';
import { databaseUnavailable } from '../../errors/database-unavailable.ts';
import type { ServiceContext } from '../service-context.ts';
import { limitPolicy, type LimitName, type LimitPolicy, type Requester } from './limit-policies.ts';
import { isoTimestampOf } from '../../lib/iso-timestamp.ts';

export interface RateLimitOutcome extends LimitPolicy {
  remaining: number;
  /** Whole seconds until the window ends, at least 1. */
  resetSeconds: number;
}

/** Expired windows deleted per new window: enough to keep pace, bounded per request. */
const SWEEP_BATCH = 100;

/**
 * Counts `cost` requests (one, unless a GraphQL operation runs several
 * limited fields) against a fixed window aligned to the window length
 * (docs/spec/DECISIONS.md), all or nothing: when they do not all fit in what is left, none
 * is counted and the answer is 429. The count is ONE upsert in the database,
 * so every instance of the service on one database shares it, exactly.
 */
export async function hitRateLimit({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { name: LimitName; requester: Requester; cost?: number };
}): Promise<RateLimitOutcome> {
  const policy = limitPolicy(ctx.settings, input.name, input.requester);
  const cost = input.cost ?? 1;
  const now = ctx.clock.now().getTime();
  const windowMs = policy.windowSeconds * 1000;
  const windowStart = new Date(Math.floor(now / windowMs) * windowMs);
  const windowEnd = new Date(windowStart.getTime() + windowMs);
  const window = { name: policy.name, client: policy.client, windowStart };
  const [counted] =
    cost <= policy.limit ? await COUNT_HITS.run(ctx.db, { ...window, windowEnd, cost, limit: policy.limit }) : [];
  // A placeholder in a condition reaches the driver unmapped, and postgres.js wants the timestamp as text.
  const current = counted ? undefined : (await CURRENT_HITS.run(ctx.db, { ...window, windowStart: isoTimestampOf(windowStart) }))[0];
  const hits = counted?.hits ?? current?.hits ?? 0;
  // The upsert answers no row only when the window is full. No row while the window's row shows room
  // is an answer the statement did not give (seen once when PgBouncer lost its server connections):
  // a fault, a 503, never a 429. (A row gone is a window swept as it ended: a plain refusal.)
  if (current && cost <= policy.limit && current.hits + cost <= policy.limit) {
    throw databaseUnavailable(new Error(`Rate limit ${policy.name}: the count answered no row with ${current.hits} of ${policy.limit} used`));
  }
  // Now and then, a client's first request in a window clears a batch of ended windows.
  if (hits === cost && counted && ctx.housekeeping.due('rate-limit-windows', now)) await sweepEndedWindows(ctx, new Date(now));
  const outcome: RateLimitOutcome = {
    ...policy,
    remaining: Math.max(0, policy.limit - hits),
    resetSeconds: Math.max(1, Math.ceil((windowEnd.getTime() - now) / 1000)),
  };
  if (!counted) {
    ctx.observer.rateLimitRefused(policy.name);
    const asked = cost === 1 ? '' : ` This request needs ${cost} of them; ${outcome.remaining} are left.`;
    throw new AppError('rate-limited', {
      detail: `Rate limit ${policy.name} allows ${policy.limit} requests per ${policy.windowSeconds} seconds; it resets in ${outcome.resetSeconds} seconds.${asked}`,
      headers: { 'Retry-After': String(outcome.resetSeconds), ...rateLimitHeaders(outcome) },
    });
  }
  return outcome;
}

/** Adds `cost` to the window's count only if the sum stays within `limit`; returns no row otherwise. */
const COUNT_HITS = compiledQuery((db) =>
  db
    .insert(rateLimitWindows)
    .values({
      name: sql.placeholder('name'),
      client: sql.placeholder('client'),
      windowStart: sql.placeholder('windowStart'),
      windowEnd: sql.placeholder('windowEnd'),
      hits: sql.placeholder('cost'),
    })
    .onConflictDoUpdate({
      target: [rateLimitWindows.name, rateLimitWindows.client, rateLimitWindows.windowStart],
      set: { hits: sql`${rateLimitWindows.hits} + excluded.hits` },
      setWhere: sql`${rateLimitWindows.hits} + excluded.hits <= ${sql.placeholder('limit')}::integer`,
    })
    .returning({ hits: rateLimitWindows.hits }),
);

/** The window's count as it stands: read only for a refusal, to tell the client what is left. */
const CURRENT_HITS = compiledQuery((db) =>
  db
    .select({ hits: rateLimitWindows.hits })
    .from(rateLimitWindows)
    .where(
      and(
        eq(rateLimitWindows.name, sql.placeholder('name')),
        eq(rateLimitWindows.client, sql.placeholder('client')),
        eq(rateLimitWindows.windowStart, sql.placeholder('windowStart')),
      ),
    ),
);

/** docs/spec/DECISIONS.md: the IETF RateLimit header fields, on every response of a limited route. */
export function rateLimitHeaders(outcome: RateLimitOutcome): Record<string, string> {
  return {
    'RateLimit-Policy': `"${outcome.name}";q=${outcome.limit};w=${outcome.windowSeconds}`,
    RateLimit: `"${outcome.name}";r=${outcome.remaining};t=${outcome.resetSeconds}`,
  };
}

async function sweepEndedWindows(ctx: ServiceContext, now: Date): Promise<void> {
  const removed = await ctx.db.execute(sql`
    delete from ${rateLimitWindows}
    where (${rateLimitWindows.name}, ${rateLimitWindows.client}, ${rateLimitWindows.windowStart}) in (
      select ${rateLimitWindows.name}, ${rateLimitWindows.client}, ${rateLimitWindows.windowStart}
      from ${rateLimitWindows}
      where ${rateLimitWindows.windowEnd} <= ${isoTimestampOf(now)}::timestamptz
      limit ${SWEEP_BATCH}
      for update skip locked
    )
    returning 1`);
  ctx.housekeeping.swept('rate-limit-windows', rowsOf(removed).length, SWEEP_BATCH);
}
