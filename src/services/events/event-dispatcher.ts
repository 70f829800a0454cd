/** An event as stored in the log. */
export interface StoredEvent {
  id: number;
  type: string;
  data: Record<string, unknown>;
  createdAt: Date;
}

/**
 * Who hears of an event once it is committed: the seam where webhook delivery
 * plugs in. Called after the commit, never awaited by the request that
 * stored the event, so it cannot delay that request's answer.
 */
export interface EventDispatcher {
  eventStored(event: StoredEvent): void;
  /** Deliveries were queued without an event: a new subscription's verification request. */
  deliveriesQueued(): void;
}

export const noEventDispatcher: EventDispatcher = { eventStored: () => {}, deliveriesQueued: () => {} };
