import { Histogram, Registry } from 'prom-client';
import { describe, expect, it, vi } from 'vitest';
import { RecordedHistogram } from '../src/observability/recorded-histogram.ts';

/**
 * The request histogram counts into prom-client's own records
 * (src/observability/recorded-histogram.ts): its exposition must be exactly what
 * prom-client's `observe` gives for the same observations — a prom-client
 * upgrade that changes how it keeps them fails here.
 */
const buckets = [0.001, 0.01, 0.1, 1];
const observations: [string, string, number][] = [
  ['/api/health', '200', 0.0004],
  ['/api/health', '200', 0.001], // exactly on a bound: that bucket
  ['/api/tasks/{id}', '404', 0.02],
  ['/api/health', '200', 0.5],
  ['/api/health', '200', 7], // above every bound: only +Inf
  ['/api/tasks/{id}', '404', 0.01],
  ['/api/health', '500', 0.0001],
];

async function expositionOf(observe: (histogram: Histogram<'route' | 'status'>, route: string, status: string, value: number) => void, recorded: boolean): Promise<string> {
  const registry = new Registry();
  const configuration = { name: 'latency_seconds', help: 'latency', labelNames: ['route', 'status'] as const, buckets, registers: [registry] };
  const histogram = recorded ? new RecordedHistogram(configuration) : new Histogram(configuration);
  for (const [route, status, value] of observations) observe(histogram, route, status, value);
  return registry.metrics();
}

describe('RecordedHistogram', () => {
  it('exposes what prom-client’s observe exposes, label set by label set', async () => {
    const expected = await expositionOf((histogram, route, status, value) => histogram.observe({ route, status }, value), false);
    const recorded = await expositionOf(
      (histogram, route, status, value) => (histogram as RecordedHistogram<'route' | 'status'>).record(`${route} ${status}`, () => ({ route, status }), value),
      true,
    );
    expect(recorded).toBe(expected);
    expect(recorded).toContain('latency_seconds_bucket{le="0.001",route="/api/health",status="200"} 2');
    expect(recorded).toContain('latency_seconds_bucket{le="+Inf",route="/api/health",status="200"} 4');
    expect(recorded).toContain('latency_seconds_count{route="/api/tasks/{id}",status="404"} 2');
  });

  it('goes through observe once per label set, with labels or without', () => {
    for (const [key, labels] of [['/api/health 200', { route: '/api/health', status: '200' }], ['', {}]] as const) {
      const histogram = new RecordedHistogram<'route' | 'status'>({ name: 'h', help: 'h', labelNames: key === '' ? [] : ['route', 'status'], buckets, registers: [] });
      const observe = vi.spyOn(histogram, 'observe');
      for (let time = 0; time < 3; time++) histogram.record(key, () => ({ ...labels }), 0.05);
      expect(observe).toHaveBeenCalledTimes(1);
    }
  });

  it('starts from nothing again after a reset', async () => {
    const registry = new Registry();
    const histogram = new RecordedHistogram({ name: 'waits_seconds', help: 'waits', buckets, registers: [registry] });
    histogram.record('', () => ({}), 0.5);
    histogram.reset();
    histogram.record('', () => ({}), 0.05);
    histogram.record('', () => ({}), 0.05);
    const text = await registry.metrics();
    expect(text).toContain('waits_seconds_count 2');
    expect(text).toContain('waits_seconds_bucket{le="0.1"} 2');
    expect(text).toContain('waits_seconds_bucket{le="0.01"} 0');
  });
});
