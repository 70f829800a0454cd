import { randomUUID } from 'node:crypto';
import { and, desc, eq } from 'drizzle-orm';
import { webhookSubscriptions, type WebhookSubscriptionRow } from '../../db/schema/index.ts';
import { AppError } from '../../errors/app-error.ts';
import type { Caller } from '../auth/caller.ts';
import { nowInMilliseconds, type ServiceContext } from '../service-context.ts';
import { resolveHost } from './address-guard.ts';
import { generateWebhookSecret } from './webhook-signature.ts';

/** The event types a subscription can ask for. */
export const EVENT_TYPES = ['score.submitted'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface Subscription {
  id: string;
  url: string;
  events: EventType[];
  description: string | null;
  status: 'active' | 'disabled';
  createdAt: string;
}

export function toSubscription(row: WebhookSubscriptionRow): Subscription {
  return {
    id: row.id,
    url: row.url,
    events: row.events as EventType[],
    description: row.description,
    status: row.status,
    createdAt: row.createdAt.toISOString(),
  };
}

/**
 * Registers a receiver for the caller's key. The URL's host must not resolve
 * to a loopback, private or link-local address (SSRF), unless the deployment
 * allows it. The signing secret is returned here and never again.
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
  const [row] = await ctx.db
    .insert(webhookSubscriptions)
    .values({
      id: randomUUID(),
      ownerKeyId: input.caller.keyId,
      url: input.url,
      events: [...new Set(input.events ?? EVENT_TYPES)],
      description: input.description ?? null,
      secret: generateWebhookSecret(),
      status: 'active',
      createdAt: nowInMilliseconds(ctx),
    })
    .returning();
  return { ...toSubscription(row!), secret: row!.secret };
}

export async function listSubscriptions({ ctx, input }: { ctx: ServiceContext; input: { caller: Caller } }): Promise<Subscription[]> {
  const rows = await ctx.db
    .select()
    .from(webhookSubscriptions)
    .where(eq(webhookSubscriptions.ownerKeyId, input.caller.keyId))
    .orderBy(desc(webhookSubscriptions.createdAt), desc(webhookSubscriptions.id));
  return rows.map(toSubscription);
}

/** One of the caller's subscriptions; another key's is as good as missing (404, not 403). */
export async function getSubscription({ ctx, input }: { ctx: ServiceContext; input: { caller: Caller; id: string } }): Promise<Subscription> {
  const [row] = await ctx.db
    .select()
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
