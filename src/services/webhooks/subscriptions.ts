import { randomUUID } from 'node:crypto';
import { and, count, desc, eq, getTableColumns, sql } from 'drizzle-orm';
import { apiKeys, webhookDeliveries, webhookSubscriptions, type WebhookSubscriptionRow } from '../../db/schema/index.ts';
import { AppError } from '../../errors/app-error.ts';
import { EVENT_TYPES, type EventType } from '../../schemas/event-types.ts';
import type { Caller } from '../auth/caller.ts';
import { nowInMilliseconds, onCommit, withTransaction, type ServiceContext } from '../service-context.ts';
import { resolveHost } from './address-guard.ts';
import { keyAlive } from './subscription-lifetime.ts';
import { VERIFICATION_TYPE, verificationPayload } from './verification.ts';
import { generateWebhookSecret } from './webhook-signature.ts';
import { isoTimestampOf } from '../../lib/iso-timestamp.ts';

/** DECISIONS "Webhook subscriptions": one score must not fan out to any number of signed POSTs. */
const SUBSCRIPTIONS_PER_KEY = 10;

export interface Subscription {
  id: string;
  url: string;
  events: EventType[];
  description: string | null;
  status: WebhookSubscriptionRow['status'];
  createdAt: string;
}

/** A stored subscription as the API shows it: disabled once its key is gone, even before the worker has noticed. */
function toSubscription(row: WebhookSubscriptionRow & { keyAlive: boolean }): Subscription {
  return {
    id: row.id,
    url: row.url,
    events: row.events as EventType[],
    description: row.description,
    status: row.keyAlive ? row.status : 'disabled',
    createdAt: isoTimestampOf(row.createdAt),
  };
}

/** Every column, and whether the owner key is still alive. */
function withKeyAlive(ctx: ServiceContext) {
  return { ...getTableColumns(webhookSubscriptions), keyAlive: keyAlive(webhookSubscriptions.ownerKeyId, sql`${isoTimestampOf(nowInMilliseconds(ctx))}::timestamptz`) };
}

/**
 * Registers a receiver for the caller's key. The URL's host must resolve to
 * public addresses only (SSRF), unless the deployment allows private ones. A
 * key holds at most 10 subscriptions, and only while it is alive: its row is
 * locked while they are counted, so concurrent requests take turns and
 * cannot pass the cap together. The signing secret is returned here and
 * never again.
 *
 * The subscription starts pending, with its verification request queued in
 * the same transaction and sent at once after the commit: nothing else goes
 * to the URL until its receiver echoes the challenge (DECISIONS "Webhook
 * endpoint verification"), so nobody can point our deliveries at a host that
 * did not ask for them.
 */
export async function createSubscription({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { caller: Caller; url: string; events?: EventType[] | undefined; description?: string | undefined };
}): Promise<Subscription & { secret: string }> {
  if (!ctx.settings.webhooks.allowPrivate) {
    const resolved = await resolveHost(new URL(input.url).hostname);
    if ('refused' in resolved) {
      throw new AppError('validation', { detail: `url: ${resolved.refused}.`, errors: [{ path: 'url', message: resolved.refused }] });
    }
  }
  const now = nowInMilliseconds(ctx);
  const row = await withTransaction(ctx, async (tx) => {
    const [key] = await tx.db
      .select({ revokedAt: apiKeys.revokedAt, expiresAt: apiKeys.expiresAt })
      .from(apiKeys)
      .where(eq(apiKeys.id, input.caller.keyId))
      .for('update');
    if (!key || key.revokedAt !== null || key.expiresAt <= now) {
      // A token outlives its key by up to 15 minutes; a subscription may not outlive it at all.
      throw new AppError('forbidden', { detail: 'The key behind this token is revoked, expired or gone; a subscription cannot outlive its key.' });
    }
    const [held] = await tx.db.select({ count: count() }).from(webhookSubscriptions).where(eq(webhookSubscriptions.ownerKeyId, input.caller.keyId));
    if ((held?.count ?? 0) >= SUBSCRIPTIONS_PER_KEY) {
      const message = `A key can have at most ${SUBSCRIPTIONS_PER_KEY} webhook subscriptions`;
      throw new AppError('validation', { detail: `${message}; delete one to add another.`, errors: [{ path: '', message }] });
    }
    const [inserted] = await tx.db
      .insert(webhookSubscriptions)
      .values({
        id: randomUUID(),
        ownerKeyId: input.caller.keyId,
        url: input.url,
        targetHost: new URL(input.url).hostname.toLowerCase(),
        events: [...new Set(input.events ?? EVENT_TYPES)],
        description: input.description ?? null,
        secret: generateWebhookSecret(),
        status: 'pending',
        createdAt: now,
      })
      .returning();
    await tx.db.insert(webhookDeliveries).values({
      id: randomUUID(),
      subscriptionId: inserted!.id,
      eventId: null,
      type: VERIFICATION_TYPE,
      payload: verificationPayload(now),
      status: 'pending',
      attempts: 0,
      nextAttemptAt: now,
      createdAt: now,
    });
    onCommit(tx, () => ctx.dispatcher.deliveriesQueued());
    return inserted!;
  });
  return { ...toSubscription({ ...row, keyAlive: true }), secret: row.secret };
}

export async function listSubscriptions({ ctx, input }: { ctx: ServiceContext; input: { caller: Caller } }): Promise<Subscription[]> {
  const rows = await ctx.db
    .select(withKeyAlive(ctx))
    .from(webhookSubscriptions)
    .where(eq(webhookSubscriptions.ownerKeyId, input.caller.keyId))
    .orderBy(desc(webhookSubscriptions.createdAt), desc(webhookSubscriptions.id));
  return rows.map(toSubscription);
}

/** One of the caller's subscriptions; another key's is as good as missing (404, not 403). */
export async function getSubscription({ ctx, input }: { ctx: ServiceContext; input: { caller: Caller; id: string } }): Promise<Subscription> {
  const [row] = await ctx.db
    .select(withKeyAlive(ctx))
    .from(webhookSubscriptions)
    .where(and(eq(webhookSubscriptions.id, input.id), eq(webhookSubscriptions.ownerKeyId, input.caller.keyId)));
  if (!row) throw subscriptionNotFound(input.id);
  return toSubscription(row);
}

export async function deleteSubscription({ ctx, input }: { ctx: ServiceContext; input: { caller: Caller; id: string } }): Promise<void> {
  const deleted = await ctx.db
    .delete(webhookSubscriptions)
    .where(and(eq(webhookSubscriptions.id, input.id), eq(webhookSubscriptions.ownerKeyId, input.caller.keyId)))
    .returning({ id: webhookSubscriptions.id });
  if (deleted.length === 0) throw subscriptionNotFound(input.id);
}

function subscriptionNotFound(id: string): AppError {
  return new AppError('not-found', { detail: `No webhook subscription with id ${id}.` });
}
