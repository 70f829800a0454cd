import { and, eq, sql } from 'drizzle-orm';
import { rowsOf } from '../../db/rows.ts';
import { webhookDeliveries, webhookSubscriptions } from '../../db/schema/index.ts';
import type { EventDispatcher } from '../events/event-dispatcher.ts';
import type { Timer } from '../../lib/clock.ts';
import type { ServiceContext } from '../service-context.ts';
import { sendWebhook, USER_AGENT, type SendOutcome } from './send-webhook.ts';
import { keyAlive } from './subscription-lifetime.ts';
import { signWebhook } from './webhook-signature.ts';
import { isoTimestampOf } from '../../lib/iso-timestamp.ts';

/** Deliveries claimed per round; each round sends them side by side. */
const CLAIM_BATCH = 10;

interface Claimed {
  id: string;
  subscriptionId: string;
  payload: string;
  attempts: number;
  url: string;
  secret: string;
}

/**
 * Sends pending deliveries, on every instance: right after an event commits
 * (it is the EventDispatcher), and every WEBHOOK_POLL_MS for retries that
 * fall due and for deliveries left pending by a restart. A delivery is
 * claimed with FOR UPDATE SKIP LOCKED and leased past the send's timeout, so
 * two instances never send one delivery at once.
 */
export class WebhookWorker implements EventDispatcher {
  private timer: Timer | undefined;
  private draining: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(
    private readonly service: ServiceContext,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  /** Stops claiming and waits for sends under way (each bounded by its timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    await this.draining;
  }

  eventStored(): void {
    this.wake();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = this.service.clock.after(this.service.settings.webhooks.pollMs, () => this.wake());
  }

  private wake(): void {
    if (this.stopped) return;
    if (this.draining) {
      this.again = true;
      return;
    }
    this.timer?.cancel();
    this.draining = this.drain()
      .catch(this.onError)
      .finally(() => {
        this.draining = undefined;
        if (this.again) {
          this.again = false;
          this.wake();
        } else {
          this.schedule();
        }
      });
  }

  private async drain(): Promise<void> {
    while (!this.stopped) {
      const claimed = await this.claim();
      if (claimed.length === 0) return;
      await Promise.all(claimed.map((delivery) => this.attempt(delivery)));
    }
  }

  /**
   * One statement: locks up to a batch of due deliveries, leases those whose
   * key is alive (one more attempt each) and ends those whose key is not —
   * the delivery and its subscription disabled, nothing sent (DECISIONS "a
   * subscription lives as long as its key"). Of the deliveries, only those it
   * locked are changed, so workers on several instances never wait on each
   * other in a cycle (at most on one subscription row, in turn).
   */
  private async claim(): Promise<Claimed[]> {
    const { settings, clock, db } = this.service;
    const now = isoTimestampOf(clock.now());
    const leaseEnd = isoTimestampOf(new Date(clock.now().getTime() + 2 * settings.webhooks.timeoutMs + 5_000));
    const result = await db.execute(sql`
      with due as (
        select d.id, d.subscription_id, ${keyAlive(sql`s.owner_key_id`, sql`${now}::timestamptz`)} as alive
        from ${webhookDeliveries} d join ${webhookSubscriptions} s on s.id = d.subscription_id
        where d.status = 'pending' and d.next_attempt_at <= ${now}::timestamptz
        order by d.next_attempt_at
        limit ${CLAIM_BATCH}
        for update of d skip locked
      ), ended_subscriptions as (
        update ${webhookSubscriptions} set status = 'disabled'
        where status = 'active' and id in (select subscription_id from due where not alive)
      ), ended as (
        update ${webhookDeliveries} set status = 'disabled', next_attempt_at = null
        where id in (select id from due where not alive)
      ), claimed as (
        update ${webhookDeliveries} set next_attempt_at = ${leaseEnd}::timestamptz, attempts = attempts + 1
        where id in (select id from due where alive)
        returning id, subscription_id, payload, attempts
      )
      select claimed.id, claimed.subscription_id as "subscriptionId", claimed.payload, claimed.attempts, s.url, s.secret
      from claimed join ${webhookSubscriptions} s on s.id = claimed.subscription_id`);
    return rowsOf<Claimed>(result);
  }

  private async attempt(delivery: Claimed): Promise<void> {
    const { webhooks } = this.service.settings;
    const timestamp = Math.floor(this.service.clock.now().getTime() / 1000);
    const outcome = await sendWebhook({
      url: delivery.url,
      body: delivery.payload,
      headers: {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        'webhook-id': delivery.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signWebhook(delivery.secret, delivery.id, timestamp, delivery.payload),
      },
      timeoutMs: webhooks.timeoutMs,
      allowPrivate: webhooks.allowPrivate,
    });
    await this.record(delivery, outcome);
  }

  /**
   * Only the attempt that holds the lease (its attempt number) may record the
   * result, and only while the delivery is pending: one ended meanwhile (its
   * key revoked) stays ended.
   */
  private async record(delivery: Claimed, outcome: SendOutcome): Promise<void> {
    const { db, clock, settings } = this.service;
    const status = 'status' in outcome ? outcome.status : null;
    const ours = and(eq(webhookDeliveries.id, delivery.id), eq(webhookDeliveries.attempts, delivery.attempts), eq(webhookDeliveries.status, 'pending'));
    if (status !== null && status >= 200 && status < 300) {
      await db.update(webhookDeliveries).set({ status: 'delivered', lastResponseStatus: status, nextAttemptAt: null }).where(ours);
      this.service.observer.webhookAttempted('delivered');
      return;
    }
    if (status === 410) {
      this.service.observer.webhookAttempted('disabled');
      // The receiver is gone for good: stop sending to it at all.
      await db.transaction(async (tx) => {
        await tx.update(webhookSubscriptions).set({ status: 'disabled' }).where(eq(webhookSubscriptions.id, delivery.subscriptionId));
        await tx.update(webhookDeliveries).set({ status: 'disabled', lastResponseStatus: 410, nextAttemptAt: null }).where(ours);
        await tx
          .update(webhookDeliveries)
          .set({ status: 'disabled', nextAttemptAt: null })
          .where(and(eq(webhookDeliveries.subscriptionId, delivery.subscriptionId), eq(webhookDeliveries.status, 'pending')));
      });
      return;
    }
    const wait = settings.webhooks.retryScheduleMs[delivery.attempts - 1];
    if (wait === undefined) {
      await db.update(webhookDeliveries).set({ status: 'failed', lastResponseStatus: status, nextAttemptAt: null }).where(ours);
      this.service.observer.webhookAttempted('failed');
      return;
    }
    this.service.observer.webhookAttempted('retrying');
    // ±20 % jitter, so receivers that failed together are not retried together.
    const nextAttemptAt = new Date(clock.now().getTime() + Math.round(wait * (0.8 + Math.random() * 0.4)));
    await db.update(webhookDeliveries).set({ lastResponseStatus: status, nextAttemptAt }).where(ours);
  }
}
