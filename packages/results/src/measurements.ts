/**
 * What `rocelab compare` measures in one run: one named value per row, computed from that run's
 * trace tables alone. A value is null when the run has none (a flow that did not complete, no
 * pauses to average); `none` says why, for the notes.
 */
import { pauseIntervals, pauseSummary } from './pause-intervals.js';
import { nearestRank } from './percentile.js';
import { bucketLabel, SLOWDOWN_PERCENTILES, slowdownBuckets } from './slowdown-buckets.js';
import type { ToleranceKey } from './tolerance.js';
import type { FctRow, QueueRow, RateRow, TraceTables } from './trace-tables.js';

/** `ratio`: a dimensionless quotient (an FCT slowdown), printed like a count. */
export type Unit = 'µs' | 'Gb/s' | 'B' | 'count' | 'ratio';

export interface Measurement {
  /** The group of rows; also the key of its tolerance. */
  group: ToleranceKey;
  /** Unique within the group, e.g. `flow 17`, `h1 qp3 → h2`, `sw1:p3:3 p95`. */
  name: string;
  unit: Unit;
  value: number | null;
  /** Why the value may be null, e.g. `not completed`. */
  none: string;
}

/** The steady window of rates.csv rows: [startUs, endUs), or [startUs, endUs] when `endInclusive`. */
export interface Window {
  startUs: number;
  endUs: number;
  endInclusive: boolean;
}

/** The second half of the span rates.csv covers, last row included; null without rows. */
export function defaultWindow(rates: readonly RateRow[]): Window | null {
  if (rates.length === 0) return null;
  let first = Infinity;
  let last = -Infinity;
  for (const r of rates) {
    first = Math.min(first, r.timeUs);
    last = Math.max(last, r.timeUs);
  }
  return { startUs: (first + last) / 2, endUs: last, endInclusive: true };
}

/** Every measurement of the files present in `tables`, group by group. */
export function measure(tables: TraceTables, window: Window | null): Measurement[] {
  const out: Measurement[] = [];
  const fct = tables['fct.csv'];
  const rates = tables['rates.csv'];
  const queue = tables['queue.csv'];
  const pfc = tables['pfc.csv'];
  if (fct !== undefined) out.push(...fctMeasurements(fct));
  if (rates !== undefined) out.push(...rateMeasurements(rates, window));
  if (queue !== undefined) out.push(...queueMeasurements(queue));
  if (pfc !== undefined) {
    const { count, meanUs } = pauseSummary(pauseIntervals(pfc));
    out.push({ group: 'pauses', name: 'count', unit: 'count', value: count, none: '' });
    out.push({ group: 'pauses', name: 'mean length', unit: 'µs', value: meanUs, none: 'no pauses' });
  }
  if (queue !== undefined) out.push({ group: 'marks', name: 'CE marks', unit: 'count', value: sumOfLast(queue, queueKey, (r) => r.ecnMarks), none: '' });
  if (rates !== undefined) out.push({ group: 'cnps', name: 'CNPs', unit: 'count', value: sumOfLast(rates, flowKey, (r) => r.cnps), none: '' });
  if (fct !== undefined) out.push(...slowdownMeasurements(fct));
  return out;
}

/** FCT per flow id, then min, mean and max over the completed flows. */
function fctMeasurements(rows: readonly FctRow[]): Measurement[] {
  const done = rows.flatMap((r) => (r.fctUs === null ? [] : [r.fctUs]));
  const none = 'no completed flows';
  const summary = (name: string, value: number | null): Measurement => ({ group: 'fct', name, unit: 'µs', value, none });
  return [
    summary('min', done.length === 0 ? null : done.reduce((a, b) => Math.min(a, b))),
    summary('mean', done.length === 0 ? null : done.reduce((a, b) => a + b, 0) / done.length),
    summary('max', done.length === 0 ? null : done.reduce((a, b) => Math.max(a, b))),
    ...[...rows]
      .sort((a, b) => naturalCompare(a.flow, b.flow))
      .map((r): Measurement => ({ group: 'fct', name: `flow ${r.flow}`, unit: 'µs', value: r.fctUs, none: 'not completed' })),
  ];
}

/**
 * P50/P95/P99 FCT slowdown per size group (`slowdownBuckets`, HPCC's grouping), from the
 * completed messages' sizes and `slowdown` column: named `bucket 0-5% p50`, so runs with the same
 * number of messages have the same rows whatever the sizes drawn. Groups come from the sizes,
 * not the file's `bucket` column, so a reference written before that column compares too.
 */
function slowdownMeasurements(rows: readonly FctRow[]): Measurement[] {
  const samples = rows.flatMap((r) => (r.status === 'success' && r.slowdown !== null ? [{ flow: r.flow, sizeBytes: r.sizeBytes, slowdown: r.slowdown }] : []));
  return slowdownBuckets(samples).buckets.flatMap((b) =>
    SLOWDOWN_PERCENTILES.map((p): Measurement => ({ group: 'slowdown', name: `bucket ${bucketLabel(b.fromPercent, b.toPercent)} ${p.name}`, unit: 'ratio', value: b[p.name], none: '' })),
  );
}

/**
 * Mean throughput of each sending QP (node and qp number: stable across seeds, and a QP may
 * carry several messages) over the grid instants of the window, and their sum. A QP without a
 * row at an instant (not started, or done) sent nothing then.
 */
function rateMeasurements(rows: readonly RateRow[], window: Window | null): Measurement[] {
  const inWindow = (t: number): boolean => window !== null && t >= window.startUs && (window.endInclusive ? t <= window.endUs : t < window.endUs);
  const instants = new Set<number>();
  const flows = new Map<string, { name: string; sum: number }>();
  for (const r of rows) {
    const key = flowKey(r);
    let flow = flows.get(key);
    if (flow === undefined) flows.set(key, (flow = { name: `${r.node} qp${r.qp} → ${r.dst}`, sum: 0 }));
    if (!inWindow(r.timeUs)) continue;
    instants.add(r.timeUs);
    flow.sum += r.throughputGbps;
  }
  const none = 'no rates.csv rows in the steady window';
  const perFlow = [...flows.values()]
    .sort((a, b) => naturalCompare(a.name, b.name))
    .map((f): Measurement => ({ group: 'rate', name: f.name, unit: 'Gb/s', value: instants.size === 0 ? null : f.sum / instants.size, none }));
  const aggregate = instants.size === 0 ? null : perFlow.reduce((sum, m) => sum + m.value!, 0);
  return [{ group: 'rate', name: 'aggregate', unit: 'Gb/s', value: aggregate, none }, ...perFlow];
}

/** Mean, p95 (nearest rank) and max of queue_bytes over all rows of each queue. */
function queueMeasurements(rows: readonly QueueRow[]): Measurement[] {
  const queues = new Map<string, number[]>();
  for (const r of rows) {
    const key = queueKey(r);
    const list = queues.get(key);
    if (list === undefined) queues.set(key, [r.queueBytes]);
    else list.push(r.queueBytes);
  }
  return [...queues.keys()].sort(naturalCompare).flatMap((key) => {
    const bytes = queues.get(key)!.sort((a, b) => a - b);
    const m = (stat: string, value: number | null): Measurement => ({ group: 'queue', name: `${key} ${stat}`, unit: 'B', value, none: '' });
    return [m('mean', bytes.reduce((a, b) => a + b, 0) / bytes.length), m('p95', nearestRank(bytes, 95)), m('max', bytes[bytes.length - 1]!)];
  });
}

const queueKey = (r: QueueRow): string => `${r.node}:${r.port}:${r.priority}`;
const flowKey = (r: RateRow): string => `${r.node}:${r.qp}`;

/** The sum over keys of a cumulative counter's value at each key's last row (latest time; file order breaks ties). */
function sumOfLast<T extends { timeUs: number }>(rows: readonly T[], key: (r: T) => string, counter: (r: T) => number): number {
  const last = new Map<string, T>();
  for (const r of rows) {
    const k = key(r);
    const seen = last.get(k);
    if (seen === undefined || r.timeUs >= seen.timeUs) last.set(k, r);
  }
  let sum = 0;
  for (const r of last.values()) sum += counter(r);
  return sum;
}

/** Orders `flow 9` before `flow 10` and `h2` before `h10`: digit runs compare as numbers. */
export function naturalCompare(a: string, b: string): number {
  const pa = a.match(/\d+|\D+/g) ?? [];
  const pb = b.match(/\d+|\D+/g) ?? [];
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const [x, y] = [pa[i]!, pb[i]!];
    if (x === y) continue;
    if (/^\d/.test(x) && /^\d/.test(y)) {
      const [u, v] = [x.replace(/^0+/, ''), y.replace(/^0+/, '')];
      if (u.length !== v.length) return u.length - v.length;
      if (u !== v) return u < v ? -1 : 1;
      return x.length - y.length;
    }
    return x < y ? -1 : 1;
  }
  return pa.length - pb.length;
}
