/**
 * Metrics that read plain model state at scrape time (STYLE §10): the models keep counters as
 * numbers; these turn them into prom-client series only when Prometheus asks.
 */
import { Counter, Gauge, type Registry } from 'prom-client';

export type Labels = Record<string, string>;
export type Emit = (labels: Labels, value: number) => void;

/** A counter whose value is read from the model at each scrape. */
export function readCounter(registry: Registry, name: string, help: string, labelNames: readonly string[], read: (emit: Emit) => void): void {
  new Counter({
    name,
    help,
    labelNames,
    registers: [registry],
    collect(this: Counter) {
      this.reset();
      read((labels, value) => this.inc(labels, value));
    },
  });
}

/** A gauge whose value is read from the model at each scrape. */
export function readGauge(registry: Registry, name: string, help: string, labelNames: readonly string[], read: (emit: Emit) => void): void {
  new Gauge({
    name,
    help,
    labelNames,
    registers: [registry],
    collect(this: Gauge) {
      this.reset();
      read((labels, value) => this.set(labels, value));
    },
  });
}

/** The bucket view of a model's histogram (see FixedHistogram in @rocelab/sim). */
export interface HistogramView {
  readonly bounds: readonly number[];
  cumulative(): number[];
  readonly sum: number;
  readonly count: number;
}

/**
 * A histogram read from the model at each scrape. prom-client's Histogram can only observe,
 * so this registers a metric object of its own that renders buckets, sum and count.
 */
export function readHistogram(registry: Registry, name: string, help: string, labelNames: readonly string[], read: (emit: (labels: Labels, h: HistogramView) => void) => void): void {
  const metric = {
    name,
    help,
    type: 'histogram' as const,
    labelNames,
    aggregator: 'sum' as const,
    reset: () => undefined,
    get: async () => {
      const values: Array<{ metricName: string; labels: Labels; value: number }> = [];
      read((labels, h) => {
        const cumulative = h.cumulative();
        h.bounds.forEach((le, i) => values.push({ metricName: `${name}_bucket`, labels: { ...labels, le: String(le) }, value: cumulative[i]! }));
        values.push({ metricName: `${name}_bucket`, labels: { ...labels, le: '+Inf' }, value: h.count });
        values.push({ metricName: `${name}_sum`, labels, value: h.sum });
        values.push({ metricName: `${name}_count`, labels, value: h.count });
      });
      return { name, help, type: 'histogram', values, aggregator: 'sum' };
    },
  };
  registry.registerMetric(metric as unknown as Parameters<Registry['registerMetric']>[0]);
}
