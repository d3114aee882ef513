/**
 * A histogram with fixed upper bounds, kept by models as plain numbers (telemetry exports it
 * at scrape time as a Prometheus histogram: cumulative `le` buckets, sum and count).
 */
export class FixedHistogram {
  /** Observations per bucket (not cumulative); the last is +Inf. */
  private readonly counts: number[];
  sum = 0;
  count = 0;

  constructor(readonly bounds: readonly number[]) {
    for (let i = 1; i < bounds.length; i++) if (!(bounds[i]! > bounds[i - 1]!)) throw new RangeError('histogram bounds must increase');
    this.counts = new Array<number>(bounds.length + 1).fill(0);
  }

  observe(value: number): void {
    let i = 0;
    while (i < this.bounds.length && value > this.bounds[i]!) i++;
    this.counts[i]!++;
    this.sum += value;
    this.count++;
  }

  /** Cumulative counts for each bound, then +Inf (= count). */
  cumulative(): number[] {
    let running = 0;
    return this.counts.map((n) => (running += n));
  }
}

/** Bounds growing by `factor` from `start`: start, start·f, start·f², … (n bounds). */
export function exponentialBounds(start: number, factor: number, n: number): number[] {
  return Array.from({ length: n }, (_, i) => start * factor ** i);
}
