import { and, eq, gt, isNull } from 'drizzle-orm';
import { apiKeys } from '../../db/schema/index.ts';
import type { Caller, Scope } from '../auth/caller.ts';
import { nowInMilliseconds, type ServiceContext } from '../service-context.ts';
import { hashApiKey } from './api-key-secret.ts';

/**
 * Verifies a key and records its use in one statement: only an active key
 * (not revoked, not expired) matches, and matching touches last_used_at.
 */
export async function authenticateApiKey({ ctx, input }: { ctx: ServiceContext; input: { key: string } }): Promise<Caller | undefined> {
  const now = nowInMilliseconds(ctx);
  const [row] = await ctx.db
    .update(apiKeys)
    .set({ lastUsedAt: now })
    .where(and(eq(apiKeys.keyHash, hashApiKey(input.key)), isNull(apiKeys.revokedAt), gt(apiKeys.expiresAt, now)))
    .returning({ id: apiKeys.id, name: apiKeys.name, scopes: apiKeys.scopes, expiresAt: apiKeys.expiresAt });
  if (!row) return undefined;
  return { method: 'api-key', keyId: row.id, name: row.name, scopes: row.scopes as Scope[], expiresAt: row.expiresAt };
}
