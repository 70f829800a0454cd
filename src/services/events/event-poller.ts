import type { Timer } from '../../lib/clock.ts';
import type { ServiceContext } from '../service-context.ts';
import type { StoredEvent } from './event-dispatcher.ts';
import { latestEventId, listEventsAfter } from './read-events.ts';

/** docs/spec/SPEC.md: up to 100 events at a time, ascending. */
const POLL_BATCH = 100;

/** What one poll learned: the events in the id range (after, upTo], in order. */
export interface EventBatch {
  after: number;
  upTo: number;
  events: StoredEvent[];
}

export type EventListener = (batch: EventBatch) => void;
/** Told when a poll failed (the database is out of reach): the listener should end rather than wait. */
export type FailureListener = (error: unknown) => void;

/**
 * ONE poller per process for every open stream: a single query per interval,
 * whatever the number of listeners, and only while there are listeners.
 * Every tick reports its range, also when it found nothing, so a listener
 * that joined behind the poller can see what it missed and catch up.
 */
export class EventPoller {
  private readonly listeners = new Map<EventListener, FailureListener>();
  private position: number | undefined;
  private timer: Timer | undefined;
  private polling = false;
  /** Queries made since the process started: one per tick, for tests and metrics. */
  queries = 0;

  constructor(
    private readonly service: ServiceContext,
    private readonly intervalMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  get listenerCount(): number {
    return this.listeners.size;
  }

  get running(): boolean {
    return this.timer !== undefined || this.polling;
  }

  subscribe(listener: EventListener, onFailure: FailureListener = () => {}): () => void {
    this.listeners.set(listener, onFailure);
    if (!this.running) this.schedule(0);
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stop();
    };
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = undefined;
    // The next start reads the position afresh: nobody is waiting for the gap.
    this.position = undefined;
  }

  private schedule(delayMs: number): void {
    this.timer = this.service.clock.after(delayMs, () => {
      this.timer = undefined;
      void this.tick();
    });
  }

  private async tick(): Promise<void> {
    this.polling = true;
    try {
      if (this.position === undefined) {
        this.queries++;
        this.position = await latestEventId({ ctx: this.service });
        this.deliver({ after: this.position, upTo: this.position, events: [] });
      } else {
        this.queries++;
        const after = this.position;
        const events = await listEventsAfter({ ctx: this.service, input: { afterId: after, limit: POLL_BATCH } });
        if (this.listeners.size === 0) return;
        this.position = events.at(-1)?.id ?? after;
        this.deliver({ after, upTo: this.position, events });
        const now = this.service.clock.now().getTime();
        if (events.length > 0) this.service.observer.eventsStreamed(events.map((event) => (now - event.createdAt.getTime()) / 1000));
      }
    } catch (error) {
      this.onError(error);
      for (const onFailure of [...this.listeners.values()]) onFailure(error);
    } finally {
      this.polling = false;
      if (this.listeners.size > 0 && this.timer === undefined) this.schedule(this.intervalMs);
      else if (this.listeners.size === 0) this.position = undefined;
    }
  }

  private deliver(batch: EventBatch): void {
    for (const listener of this.listeners.keys()) listener(batch);
  }
}
