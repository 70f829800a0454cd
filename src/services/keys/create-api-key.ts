import { randomUUID } from 'node:crypto';
import { apiKeys } from '../../db/schema/index.ts';
import type { Scope } from '../auth/caller.ts';
import { ADVISORY_LOCKS, keepNewest, retainFirst } from '../retention.ts';
import { nowInMilliseconds, withTransaction, type ServiceContext } from '../service-context.ts';
import { endSubscriptionsOf } from '../webhooks/subscription-lifetime.ts';
import { generateApiKey, hashApiKey } from './api-key-secret.ts';

/** docs/spec/SPEC.md, "Retention": only the newest 500 keys are kept. */
const KEYS_RETAINED = 500;

const KEY_RETENTION = keepNewest({ table: apiKeys, keep: KEYS_RETAINED, lockId: ADVISORY_LOCKS.apiKeys });
const KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;

export interface CreatedApiKey {
  id: string;
  name: string;
  prefix: string;
  scopes: Scope[];
  expiresAt: Date;
  /** The key itself: returned once, never stored. */
  key: string;
}

export async function createApiKey({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { name: string; scopes: Scope[] };
}): Promise<CreatedApiKey> {
  const now = nowInMilliseconds(ctx);
  const key = generateApiKey();
  const created = {
    id: randomUUID(),
    name: input.name,
    prefix: key.slice(0, 12),
    scopes: [...new Set(input.scopes)],
    expiresAt: new Date(now.getTime() + KEY_LIFETIME_MS),
  };
  await withTransaction(ctx, async (tx) => {
    await tx.db.insert(apiKeys).values({ ...created, keyHash: hashApiKey(key), createdAt: now });
    const removed = await retainFirst(tx, KEY_RETENTION);
    // A subscription lives as long as its key: the keys retention removes take theirs along.
    await endSubscriptionsOf({ ctx: tx, input: { keyIds: removed } });
  });
  return { ...created, key };
}
