import { sql } from 'drizzle-orm';
import { rowsOf } from '../../db/rows.ts';
import { apiKeys, webhookDeliveries, webhookSubscriptions } from '../../db/schema/index.ts';
import { isoTimestampOf } from '../../lib/iso-timestamp.ts';
import type { ServiceContext } from '../service-context.ts';
import { DELIVERIES_KEPT, NEWEST_FIRST } from './delivery-order.ts';
import { TOKEN_LIFETIME_SECONDS } from '../auth/tokens.ts';

/** As long as the event a delivery carries is kept. */
const DELIVERY_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * DECISIONS "Stored growth", in one statement: deletes the subscriptions
 * whose key is gone (revoked, expired or removed) once nothing of theirs is
 * pending, with their deliveries — a revoked or expired key's only once its
 * tokens have expired too (15 minutes), so they can still see what became of
 * it; and of every other subscription the
 * deliveries beyond its newest 100 or older than 7 days, whatever their
 * state — a receiver that far behind loses the oldest, as any bounded queue
 * does. Rows another instance has locked are left for its own sweep, so
 * sweeps on several instances never wait on each other.
 */
export async function sweepWebhookStorage(ctx: ServiceContext, now: Date): Promise<{ subscriptions: number; deliveries: number }> {
  const [swept] = rowsOf<{ subscriptions: number; deliveries: number }>(
    await ctx.db.execute(sql`
      with doomed_subscriptions as (
        select s.id from ${webhookSubscriptions} s
        where not exists (
            select 1 from ${apiKeys} k
            where k.id = s.owner_key_id and coalesce(k.revoked_at, k.expires_at) > ${isoTimestampOf(new Date(now.getTime() - TOKEN_LIFETIME_SECONDS * 1000))}::timestamptz
          )
          and not exists (select 1 from ${webhookDeliveries} d where d.subscription_id = s.id and d.status = 'pending')
        for update of s skip locked
      ), gone_subscriptions as (
        delete from ${webhookSubscriptions} where id in (select id from doomed_subscriptions)
        returning id
      ), ranked as (
        select id, subscription_id, created_at,
          row_number() over (partition by subscription_id order by ${sql.join([...NEWEST_FIRST], sql`, `)}) as place
        from ${webhookDeliveries}
      ), doomed_deliveries as (
        select id from ${webhookDeliveries}
        where id in (
            select id from ranked
            where (place > ${DELIVERIES_KEPT} or created_at < ${isoTimestampOf(new Date(now.getTime() - DELIVERY_RETENTION_MS))}::timestamptz)
              and subscription_id not in (select id from doomed_subscriptions)
          )
        for update skip locked
      ), gone_deliveries as (
        delete from ${webhookDeliveries} where id in (select id from doomed_deliveries)
        returning id
      )
      select (select count(*) from gone_subscriptions)::int as subscriptions, (select count(*) from gone_deliveries)::int as deliveries`),
  );
  return swept!;
}
