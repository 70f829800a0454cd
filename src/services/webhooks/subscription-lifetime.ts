import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { apiKeys, webhookDeliveries, webhookSubscriptions } from '../../db/schema/index.ts';
import { withTransaction, type ServiceContext } from '../service-context.ts';

/**
 * docs/spec/DECISIONS.md, "Webhook subscriptions": a subscription lives as long as its
 * key. This is the condition, in SQL, that the owner key `keyId` is still
 * alive at `at`: stored (retention removes keys), not revoked, not expired.
 */
export function keyAlive(keyId: SQL | typeof webhookSubscriptions.ownerKeyId, at: SQL): SQL<boolean> {
  return sql<boolean>`exists (select 1 from ${apiKeys} k where k.id = ${keyId} and k.revoked_at is null and k.expires_at > ${at})`;
}

/**
 * Ends the subscriptions of keys that are gone — revoked, or removed by
 * retention — in the transaction that ends the key: they are disabled, and
 * so is every delivery of theirs still pending. (A key that merely expires
 * ends lazily: nothing new is queued for it, and the worker ends what falls
 * due; see webhook-worker.ts.)
 */
export async function endSubscriptionsOf({ ctx, input }: { ctx: ServiceContext; input: { keyIds: string[] } }): Promise<void> {
  if (input.keyIds.length === 0) return;
  await withTransaction(ctx, async (tx) => {
    const owned = inArray(webhookSubscriptions.ownerKeyId, input.keyIds);
    await tx.db.update(webhookSubscriptions).set({ status: 'disabled' }).where(and(owned, inArray(webhookSubscriptions.status, ['pending', 'active'])));
    await tx.db
      .update(webhookDeliveries)
      .set({ status: 'disabled', nextAttemptAt: null })
      .where(
        and(
          eq(webhookDeliveries.status, 'pending'),
          inArray(webhookDeliveries.subscriptionId, tx.db.select({ id: webhookSubscriptions.id }).from(webhookSubscriptions).where(owned)),
        ),
      );
  });
}
