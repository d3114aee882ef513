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
