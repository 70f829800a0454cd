import { and, eq, isNull } from 'drizzle-orm';
import { apiKeys } from '../../db/schema/index.ts';
import { AppError } from '../../errors/app-error.ts';
import type { Caller } from '../auth/caller.ts';
import { nowInMilliseconds, withTransaction, type ServiceContext } from '../service-context.ts';
import { endSubscriptionsOf } from '../webhooks/subscription-lifetime.ts';

/**
 * A key can revoke only itself, and only when the caller used the key, not a
 * token. Its webhook subscriptions end with it, in the same transaction.
 */
export async function revokeApiKey({ ctx, input }: { ctx: ServiceContext; input: { caller: Caller; id: string } }): Promise<void> {
  const { caller, id } = input;
  if (caller.method !== 'api-key') {
    throw new AppError('forbidden', { detail: 'Revoke a key with the key itself, not with a token.' });
  }
  if (caller.keyId !== id.toLowerCase()) {
    throw new AppError('forbidden', { detail: 'A key can only revoke itself.' });
  }
  await withTransaction(ctx, async (tx) => {
    await tx.db
      .update(apiKeys)
      .set({ revokedAt: nowInMilliseconds(tx) })
      .where(and(eq(apiKeys.id, caller.keyId), isNull(apiKeys.revokedAt)));
    await endSubscriptionsOf({ ctx: tx, input: { keyIds: [caller.keyId] } });
  });
}
