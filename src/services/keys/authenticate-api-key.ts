import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import { compiledQuery } from '../../db/compiled-statement.ts';
import { apiKeys } from '../../db/schema/index.ts';
import type { Caller, Scope } from '../auth/caller.ts';
import { nowInMilliseconds, type ServiceContext } from '../service-context.ts';
import { hashApiKey } from './api-key-secret.ts';
import { isoTimestampOf } from '../../lib/iso-timestamp.ts';

/** On every request a key makes: built once. `now` is ISO text (a placeholder outside `values` reaches the driver as given). */
const now = sql`${sql.placeholder('now')}::timestamptz`;
const USE_ACTIVE_KEY = compiledQuery((db) =>
  db
    .update(apiKeys)
    .set({ lastUsedAt: now })
    .where(and(eq(apiKeys.keyHash, sql.placeholder('keyHash')), isNull(apiKeys.revokedAt), gt(apiKeys.expiresAt, now)))
    .returning({ id: apiKeys.id, name: apiKeys.name, scopes: apiKeys.scopes, expiresAt: apiKeys.expiresAt }),
);

/**
 * Verifies a key and records its use in one statement: only an active key
 * (not revoked, not expired) matches, and matching touches last_used_at.
 */
export async function authenticateApiKey({ ctx, input }: { ctx: ServiceContext; input: { key: string } }): Promise<Caller | undefined> {
  const [row] = await USE_ACTIVE_KEY.run(ctx.db, { now: isoTimestampOf(nowInMilliseconds(ctx)), keyHash: hashApiKey(input.key) });
  if (!row) return undefined;
  return { method: 'api-key', keyId: row.id, name: row.name, scopes: row.scopes as Scope[], expiresAt: row.expiresAt };
}
