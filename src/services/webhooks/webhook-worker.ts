import { and, eq } from 'drizzle-orm';
import { webhookDeliveries, webhookSubscriptions } from '../../db/schema/index.ts';
import type { EventDispatcher } from '../events/event-dispatcher.ts';
import type { Timer } from '../../lib/clock.ts';
import type { ServiceContext } from '../service-context.ts';
import { claimDeliveries, type ClaimedDelivery } from './claim-deliveries.ts';
import { sendWebhook, USER_AGENT, type SendOutcome } from './send-webhook.ts';
import { echoesChallenge, VERIFICATION_RETRIES, VERIFICATION_TYPE } from './verification.ts';
import { PROVEN_WITHIN_MS, ProvenHosts } from './proven-hosts.ts';
import { signWebhook } from './webhook-signature.ts';
import { sweepWebhookStorage } from './webhook-storage.ts';

/**
 * Sends pending deliveries, on every instance: right after an event commits
 * (it is the EventDispatcher) or a subscription's verification is queued, and
 * every WEBHOOK_POLL_MS for retries that fall due and for deliveries left
 * pending by a restart. A delivery is claimed with FOR UPDATE SKIP LOCKED and
 * leased past the send's timeout, so two instances never send one delivery
 * at once.
 *
 * Up to WEBHOOK_CONCURRENCY sends are in flight, and the next is claimed as
 * soon as any one ends — no batch waits for its slowest member — with at most
 * 2 to one host at a time: a receiver that holds its connections delays only
 * its own deliveries (docs/spec/DECISIONS.md, "Webhook sending"). Of the
 * doubtful sends, verification requests hold at most a third of the window,
 * and so do event deliveries to hosts that have not lately answered one
 * quickly (proven-hosts.ts): many receivers that hold their connections,
 * agreed to or not, however fresh, cannot fill the window, and receivers
 * that never answer their challenge do not delay new receivers' events.
 */
export class WebhookWorker implements EventDispatcher {
  private timer: Timer | undefined;
  private filling: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  /** Sends in flight, by host. */
  private readonly sendingTo = new Map<string, number>();
  private readonly sends = new Set<Promise<void>>();
  private readonly provenHosts = new ProvenHosts();
  /** Doubtful sends in flight: verification requests, and event deliveries to hosts not proven when they started. */
  private readonly doubtful = { verifications: 0, unproven: 0 };

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
    await this.filling;
    await Promise.all(this.sends);
  }

  eventStored(): void {
    this.wake();
  }

  deliveriesQueued(): void {
    this.wake();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer?.cancel();
    this.timer = this.service.clock.after(this.service.settings.webhooks.pollMs, () => this.wake());
  }

  /** Claims what the window has room for; one claim at a time, and one more if woken meanwhile. */
  private wake(): void {
    if (this.stopped) return;
    if (this.filling) {
      this.again = true;
      return;
    }
    this.timer?.cancel();
    this.filling = this.fill()
      .catch(this.onError)
      .finally(() => {
        this.filling = undefined;
        if (this.again) {
          this.again = false;
          this.wake();
        } else {
          this.schedule();
        }
      });
  }

  private async fill(): Promise<void> {
    const { housekeeping, clock, settings } = this.service;
    // One moment for the whole round, so the sweep sees what its claims saw (a clock moved meanwhile waits for the next round).
    const at = clock.now();
    // Deliveries of keys that are gone are ended even while every place is taken (they need none).
    while (!this.stopped) {
      const { claimed, ended } = await claimDeliveries(this.service, { at, ...this.room() });
      for (const delivery of claimed) this.startSend(delivery);
      if (ended === 0 && (claimed.length === 0 || this.sends.size >= settings.webhooks.concurrency)) break;
    }
    // After the claims, which end the deliveries of keys that are gone: their subscriptions can go at once.
    if (!this.stopped && housekeeping.due('webhook-storage', at.getTime())) await sweepWebhookStorage(this.service, at);
  }

  /**
   * What the next claim may take: the free places, the hosts it may give
   * none or fewer (those at their cap), and of each kind of doubtful send
   * what is left of its third of the window.
   */
  private room(): { slots: number; busy: ReadonlyMap<string, number>; provenHosts: string[]; doubtfulRoom: { verifications: number; unproven: number } } {
    const { concurrency } = this.service.settings.webhooks;
    const third = Math.max(1, Math.floor(concurrency / 3));
    return {
      slots: Math.max(0, concurrency - this.sends.size),
      busy: this.sendingTo,
      provenHosts: this.provenHosts.all(Date.now()),
      doubtfulRoom: { verifications: Math.max(0, third - this.doubtful.verifications), unproven: Math.max(0, third - this.doubtful.unproven) },
    };
  }

  private startSend(delivery: ClaimedDelivery): void {
    this.sendingTo.set(delivery.host, (this.sendingTo.get(delivery.host) ?? 0) + 1);
    const doubtful: 'verifications' | 'unproven' | undefined =
      delivery.type === VERIFICATION_TYPE ? 'verifications' : this.provenHosts.has(delivery.host, Date.now()) ? undefined : 'unproven';
    if (doubtful) this.doubtful[doubtful]++;
    const send: Promise<void> = this.attempt(delivery)
      .catch(this.onError)
      .finally(() => {
        if (doubtful) this.doubtful[doubtful]--;
        const left = (this.sendingTo.get(delivery.host) ?? 1) - 1;
        if (left === 0) this.sendingTo.delete(delivery.host);
        else this.sendingTo.set(delivery.host, left);
        this.sends.delete(send);
        // A place is free: the next due delivery goes now, not at the next poll.
        this.wake();
      });
    this.sends.add(send);
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const { webhooks } = this.service.settings;
    const timestamp = Math.floor(this.service.clock.now().getTime() / 1000);
    // Real time, not the service's clock: how long the receiver took.
    const started = Date.now();
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
      readBody: delivery.type === VERIFICATION_TYPE,
    });
    const took = Date.now() - started;
    const quick = !('error' in outcome && outcome.error === 'timed out') && took < Math.min(PROVEN_WITHIN_MS, webhooks.timeoutMs / 2);
    this.provenHosts.answered(delivery.host, { quick, event: delivery.type !== VERIFICATION_TYPE }, Date.now());
    await this.record(delivery, outcome);
  }

  /**
   * Only the attempt that holds the lease (its attempt number) may record the
   * result, and only while the delivery is pending: one ended meanwhile (its
   * key revoked) stays ended. A verification request succeeds only when the
   * receiver echoed the challenge, and then the subscription is active; it is
   * retried on the first three steps of the schedule, then the subscription
   * has failed.
   */
  private async record(delivery: ClaimedDelivery, outcome: SendOutcome): Promise<void> {
    const { db, clock, settings } = this.service;
    const status = 'status' in outcome ? outcome.status : null;
    const verification = delivery.type === VERIFICATION_TYPE;
    const ours = and(eq(webhookDeliveries.id, delivery.id), eq(webhookDeliveries.attempts, delivery.attempts), eq(webhookDeliveries.status, 'pending'));
    const succeeded = verification ? echoesChallenge(delivery.payload, status, 'body' in outcome ? outcome.body : undefined) : status !== null && status >= 200 && status < 300;
    if (succeeded) {
      await db.transaction(async (tx) => {
        const [recorded] = await tx.update(webhookDeliveries).set({ status: 'delivered', lastResponseStatus: status, nextAttemptAt: null }).where(ours).returning({ id: webhookDeliveries.id });
        if (verification && recorded) {
          await tx.update(webhookSubscriptions).set({ status: 'active' }).where(and(eq(webhookSubscriptions.id, delivery.subscriptionId), eq(webhookSubscriptions.status, 'pending')));
        }
      });
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
    const retries = verification ? settings.webhooks.retryScheduleMs.slice(0, VERIFICATION_RETRIES) : settings.webhooks.retryScheduleMs;
    const wait = retries[delivery.attempts - 1];
    if (wait === undefined) {
      await db.transaction(async (tx) => {
        const [recorded] = await tx.update(webhookDeliveries).set({ status: 'failed', lastResponseStatus: status, nextAttemptAt: null }).where(ours).returning({ id: webhookDeliveries.id });
        // A receiver that never proved it wants the deliveries gets none.
        if (verification && recorded) {
          await tx.update(webhookSubscriptions).set({ status: 'failed' }).where(and(eq(webhookSubscriptions.id, delivery.subscriptionId), eq(webhookSubscriptions.status, 'pending')));
        }
      });
      this.service.observer.webhookAttempted('failed');
      return;
    }
    this.service.observer.webhookAttempted('retrying');
    // ±20 % jitter, so receivers that failed together are not retried together.
    const nextAttemptAt = new Date(clock.now().getTime() + Math.round(wait * (0.8 + Math.random() * 0.4)));
    await db.update(webhookDeliveries).set({ lastResponseStatus: status, nextAttemptAt }).where(ours);
  }
}
