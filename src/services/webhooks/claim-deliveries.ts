import { sql } from 'drizzle-orm';
import { rowsOf } from '../../db/rows.ts';
import { webhookDeliveries, webhookSubscriptions } from '../../db/schema/index.ts';
import { isoTimestampOf } from '../../lib/iso-timestamp.ts';
import type { ServiceContext } from '../service-context.ts';
import { keyAlive } from './subscription-lifetime.ts';
import { VERIFICATION_TYPE } from './verification.ts';

/** At most this many sends to one host at a time, per instance (docs/spec/DECISIONS.md, "Webhook sending"). */
const SENDS_PER_HOST = 2;

/** A delivery this instance now holds the lease of, with what it takes to send it. */
export interface ClaimedDelivery {
  id: string;
  subscriptionId: string;
  type: string;
  payload: string;
  attempts: number;
  url: string;
  host: string;
  secret: string;
}

/** Due deliveries of keys that are gone, ended per claim at most. */
const ENDED_PER_CLAIM = 100;

/**
 * One statement: ends due deliveries whose key is gone — the delivery and
 * its subscription disabled, nothing sent (docs/spec/DECISIONS.md, "a subscription lives as
 * long as its key") — and leases up to `slots` due deliveries of live keys,
 * oldest first, no more for one host than its free places (`busy`: hosts
 * with sends in flight, by how many), and of the doubtful ones no more
 * than there is room for: `doubtfulRoom.verifications` verification requests, and
 * `doubtfulRoom.unproven` event deliveries to hosts not among `provenHosts`
 * (proven-hosts.ts). One more attempt each. Of the deliveries, only those
 * it locked are changed, so workers on several instances never wait on each
 * other in a cycle.
 */
export async function claimDeliveries(
  ctx: ServiceContext,
  input: { at: Date; slots: number; busy: ReadonlyMap<string, number>; provenHosts: readonly string[]; doubtfulRoom: { verifications: number; unproven: number } },
): Promise<{ claimed: ClaimedDelivery[]; ended: number }> {
  const { settings, db } = ctx;
  const { at, slots, busy, provenHosts, doubtfulRoom } = input;
  const now = isoTimestampOf(at);
  const leaseEnd = isoTimestampOf(new Date(at.getTime() + 2 * settings.webhooks.timeoutMs + 5_000));
  const full = [...busy].filter(([, sending]) => sending >= SENDS_PER_HOST).map(([host]) => host);
  const halfFull = [...busy].filter(([, sending]) => sending < SENDS_PER_HOST).map(([host]) => host);
  const alive = keyAlive(sql`s.owner_key_id`, sql`${now}::timestamptz`);
  const result = await db.execute(sql`
    with dead as (
      select d.id, d.subscription_id
      from ${webhookDeliveries} d join ${webhookSubscriptions} s on s.id = d.subscription_id
      where d.status = 'pending' and d.next_attempt_at <= ${now}::timestamptz and not ${alive}
      limit ${ENDED_PER_CLAIM}::int
      for update of d skip locked
    ), ranked as (
      select d.id, d.next_attempt_at, s.target_host,
        case when d.type = ${VERIFICATION_TYPE} then 'verification' when s.target_host <> all(${toTextArray([...provenHosts])}) then 'unproven' else 'proven' end as kind,
        row_number() over (partition by s.target_host order by d.next_attempt_at, d.id) as place
      from ${webhookDeliveries} d join ${webhookSubscriptions} s on s.id = d.subscription_id
      where d.status = 'pending' and d.next_attempt_at <= ${now}::timestamptz and ${alive}
        and s.target_host <> all(${toTextArray(full)})
    ), eligible as (
      select id, kind, row_number() over (partition by kind order by next_attempt_at, id) as kind_place
      from ranked
      where place <= case when target_host = any(${toTextArray(halfFull)}) then ${SENDS_PER_HOST - 1}::int else ${SENDS_PER_HOST}::int end
    ), due as (
      select d.id from ${webhookDeliveries} d
      where d.id in (
          select id from eligible
          where kind = 'proven'
            or (kind = 'verification' and kind_place <= ${doubtfulRoom.verifications}::int)
            or (kind = 'unproven' and kind_place <= ${doubtfulRoom.unproven}::int)
        )
        and d.status = 'pending' and d.next_attempt_at <= ${now}::timestamptz
      order by d.next_attempt_at
      limit ${slots}::int
      for update of d skip locked
    ), ended_subscriptions as (
      update ${webhookSubscriptions} set status = 'disabled'
      where status in ('pending', 'active') and id in (select subscription_id from dead)
    ), ended as (
      update ${webhookDeliveries} set status = 'disabled', next_attempt_at = null
      where id in (select id from dead)
      returning id
    ), claimed as (
      update ${webhookDeliveries} set next_attempt_at = ${leaseEnd}::timestamptz, attempts = attempts + 1
      where id in (select id from due)
      returning id, subscription_id, type, payload, attempts
    )
    select claimed.id, claimed.subscription_id as "subscriptionId", claimed.type, claimed.payload, claimed.attempts, s.url, s.target_host as host, s.secret,
      (select count(*) from ended)::int as ended
    from claimed join ${webhookSubscriptions} s on s.id = claimed.subscription_id
    union all
    select null, null, null, null, null, null, null, null, (select count(*) from ended)::int
    where not exists (select 1 from claimed)`);
  const rows = rowsOf<ClaimedDelivery & { ended: number }>(result);
  return { claimed: rows.filter((row) => row.id !== null), ended: rows[0]?.ended ?? 0 };
}

/** A text[] parameter; both drivers take its literal form. */
function toTextArray(values: string[]) {
  return sql`${`{${values.map((value) => `"${value.replace(/["\\]/g, '\\$&')}"`).join(',')}}`}::text[]`;
}
