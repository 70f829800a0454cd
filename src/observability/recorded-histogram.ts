import { Histogram, type HistogramConfiguration, type LabelValues } from 'prom-client';

/** What prom-client 15's Histogram keeps per label set (lib/histogram.js); its exposition is built from these. */
interface LabelSetRecord {
  labels: object;
  bucketValues: Record<string, number>;
  sum: number;
  count: number;
}

/**
 * prom-client's Histogram with a second way in for observations made on every
 * request. `observe` converts, validates and hashes the labels each time (a
 * closure, a sorted key string, a number turned into a bucket key): a couple
 * of microseconds, on a health check that costs thirty. `record` does that
 * once per label set — through `observe` itself — then keeps the record
 * prom-client made and counts into it directly, so the exposition is
 * prom-client's own, unchanged.
 */
export class RecordedHistogram<T extends string> extends Histogram<T> {
  private readonly records = new Map<string, LabelSetRecord>();
  private readonly bounds: readonly number[];
  private readonly boundKeys: readonly string[];

  constructor(configuration: HistogramConfiguration<T> & { buckets: number[] }) {
    super(configuration);
    this.bounds = [...configuration.buckets];
    this.boundKeys = this.bounds.map(String);
  }

  /** `observe(labels(), value)`, for label sets that `key` names one to one. */
  record(key: string, labels: () => LabelValues<T>, value: number): void {
    const record = this.records.get(key);
    if (record === undefined) {
      const first = labels();
      this.observe(first, value);
      const created = Object.values((this as unknown as { hashMap: Record<string, LabelSetRecord> }).hashMap).find((candidate) => sameLabels(candidate.labels, first));
      if (created) this.records.set(key, created);
      return;
    }
    record.sum += value;
    record.count += 1;
    // As prom-client's findBound: the first bound at or above the value; above them all, only the count (+Inf) grows.
    for (let index = 0; index < this.bounds.length; index++) {
      if (value <= this.bounds[index]!) {
        record.bucketValues[this.boundKeys[index]!]! += 1;
        return;
      }
    }
  }

  override reset(): void {
    super.reset();
    // prom-client's constructor resets too, before this class's fields exist.
    (this.records as Map<string, LabelSetRecord> | undefined)?.clear();
  }
}

/** A record's label set: a histogram without labels starts with one of its own, not the object `observe` was given. */
function sameLabels(recorded: object, wanted: object): boolean {
  const names = Object.keys(wanted);
  return Object.keys(recorded).length === names.length && names.every((name) => (recorded as Record<string, unknown>)[name] === (wanted as Record<string, unknown>)[name]);
}
