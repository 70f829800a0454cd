/** What a webhook delivery attempt came to. */
export type DeliveryOutcome = 'delivered' | 'retrying' | 'failed' | 'disabled';

/**
 * What services report as it happens, for the metrics (docs/spec/DECISIONS.md
 * "Operations"). Services know nothing of Prometheus; the metrics module
 * implements this, and without metrics nothing listens.
 */
export interface ServiceObserver {
  rateLimitRefused(limit: string): void;
  webhookAttempted(outcome: DeliveryOutcome): void;
  /** Events handed to the open streams, `lagSeconds` after they were stored. */
  eventsStreamed(lagSeconds: number[]): void;
}

export const noObserver: ServiceObserver = {
  rateLimitRefused: () => {},
  webhookAttempted: () => {},
  eventsStreamed: () => {},
};
