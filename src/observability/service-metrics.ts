import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { DeliveryOutcome, ServiceObserver } from '../services/service-observer.ts';

/** Methods a route can have; anything else is counted as `other`, so a client cannot mint label values. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** What the gauges read when scraped. */
export interface MetricSources {
  openScoreStreams(): number;
  /** The PostgreSQL connection gate; the embedded database has none. */
  pool?: { inUse(): number; queued(): number };
}

/**
 * The service's Prometheus metrics (docs/spec/DECISIONS.md, "Operations"), one registry per
 * running service so that several in one process (the tests) keep apart.
 * Labels are bounded: routes are templates, never raw paths.
 */
export class ServiceMetrics implements ServiceObserver {
  readonly registry = new Registry();
  private readonly requestDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP requests by route template, method and status, and how long they took',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  private readonly queueWait = new Histogram({
    name: 'db_queue_wait_seconds',
    help: 'How long queries waited for a free PostgreSQL connection, when they had to wait',
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });
  private readonly eventLag = new Histogram({
    name: 'event_poll_lag_seconds',
    help: 'From an event being stored to its reaching the open score streams',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
    registers: [this.registry],
  });
  private readonly deliveries = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome: delivered, retrying, failed (retries used up), disabled (410 Gone)',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });
  private readonly refusals = new Counter({
    name: 'rate_limit_refusals_total',
    help: 'Requests refused with 429 by limit name',
    labelNames: ['limit'] as const,
    registers: [this.registry],
  });

  constructor(sources: MetricSources) {
    collectDefaultMetrics({ register: this.registry });
    new Gauge({
      name: 'score_streams_open',
      help: 'Open live boards on this instance: GET /api/scores/stream, scores.live and Subscription.leaderboard streams',
      registers: [this.registry],
      collect() {
        this.set(sources.openScoreStreams());
      },
    });
    const pool = sources.pool;
    if (pool) {
      new Gauge({
        name: 'db_connections_in_use',
        help: 'PostgreSQL connections running a query or transaction',
        registers: [this.registry],
        collect() {
          this.set(pool.inUse());
        },
      });
      new Gauge({
        name: 'db_queries_queued',
        help: 'Queries waiting for a place on a PostgreSQL connection (DATABASE_PIPELINE_DEPTH statements each)',
        registers: [this.registry],
        collect() {
          this.set(pool.queued());
        },
      });
    }
  }

  requestFinished(route: string, method: string, status: number, seconds: number): void {
    const known = KNOWN_METHODS.has(method) ? method : 'other';
    this.requestDuration.observe({ route, method: known, status }, seconds);
  }

  queueWaited(seconds: number): void {
    this.queueWait.observe(seconds);
  }

  rateLimitRefused(limit: string): void {
    this.refusals.inc({ limit });
  }

  webhookAttempted(outcome: DeliveryOutcome): void {
    this.deliveries.inc({ status: outcome });
  }

  eventsStreamed(lagSeconds: number[]): void {
    for (const lag of lagSeconds) this.eventLag.observe(Math.max(0, lag));
  }

  /** The Prometheus text format and its content type. */
  async exposition(): Promise<{ body: string; contentType: string }> {
    return { body: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}
