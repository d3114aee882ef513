/**
 * The data behind the drill plots, as plain rows: which series to show and their points, bounded
 * so a plot stays small however long the run (queue.csv has a row per queue per µs). Pure
 * selection and binning over trace rows; the Vega-Lite specs live in plot-specs.ts.
 */
import { naturalCompare, nearestRank, pauseIntervals, type NodeReport, type PfcRow, type QueueRow, type RateRow, type SlowdownSummary, type TraceRows } from '@rocelab/results';
import type { FaultOutcome } from './report-model.js';

/** Points per series at most: 2,000 is finer than a 720-pixel plot can show. */
export const MAX_POINTS_PER_SERIES = 2000;
/** Queues shown when none are named: the deepest ones. */
export const TOP_QUEUES = 3;
/** Flows shown at most (the busiest); more lines than this do not read. */
export const MAX_RATE_SERIES = 16;
/** Time bins of the pause heatmap, and its rows at most (the most paused ports). */
export const PAUSE_BINS = 100;
export const MAX_PAUSE_ROWS = 40;
/** Probe bins (p50 and p99 per bin) once there are more probes than MAX_POINTS_PER_SERIES. */
export const PROBE_BINS = 200;

export interface Point { series: string; t: number; value: number }

/**
 * At most `maxPoints` of (t, value), sorted by t: equal bins over [0, endUs], one point per
 * non-empty bin — the largest sample at its own time (`max`: a queue's peak never vanishes),
 * or the mean of the bin's times and values (`mean`: a rate keeps its average).
 */
export function downsample(points: ReadonlyArray<{ t: number; value: number }>, endUs: number, maxPoints: number, how: 'max' | 'mean'): Array<{ t: number; value: number }> {
  if (points.length <= maxPoints) return points.map((p) => ({ t: p.t, value: p.value }));
  const span = Math.max(endUs, points[points.length - 1]!.t, Number.MIN_VALUE);
  const bins = new Map<number, { t: number; value: number; n: number }>();
  for (const p of points) {
    const i = Math.min(maxPoints - 1, Math.max(0, Math.floor((p.t / span) * maxPoints)));
    const bin = bins.get(i);
    if (bin === undefined) bins.set(i, { t: p.t, value: p.value, n: 1 });
    else if (how === 'max') {
      if (p.value > bin.value) Object.assign(bin, { t: p.t, value: p.value });
    } else Object.assign(bin, { t: bin.t + p.t, value: bin.value + p.value, n: bin.n + 1 });
  }
  return [...bins.keys()].sort((a, b) => a - b).map((i) => {
    const b = bins.get(i)!;
    return how === 'max' ? { t: b.t, value: b.value } : { t: b.t / b.n, value: b.value / b.n };
  });
}

/** Rows grouped by key, in the order each key first appears. */
function groupBy<T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const row of rows) {
    const k = key(row);
    const list = out.get(k);
    if (list === undefined) out.set(k, [row]);
    else list.push(row);
  }
  return out;
}

const byTime = <T extends { timeUs: number }>(rows: T[]): T[] => [...rows].sort((a, b) => a.timeUs - b.timeUs);

export const queueKey = (r: { node: string; port: string; priority: number }): string => `${r.node}:${r.port}:${r.priority}`;

/**
 * Queue depth of the named queues (`node:port:priority`; names not in the table are returned
 * as `missing`), else of the TOP_QUEUES with the largest peak, max-downsampled.
 */
export function queueSeries(rows: readonly QueueRow[], endUs: number, named?: readonly string[]): { queues: string[]; missing: string[]; points: Point[] } {
  const byQueue = groupBy(rows, queueKey);
  const peak = (q: string): number => byQueue.get(q)!.reduce((m, r) => Math.max(m, r.queueBytes), 0);
  const queues = named !== undefined && named.length > 0
    ? named.filter((q) => byQueue.has(q))
    : [...byQueue.keys()].sort((a, b) => peak(b) - peak(a) || naturalCompare(a, b)).slice(0, TOP_QUEUES);
  const missing = (named ?? []).filter((q) => !byQueue.has(q));
  const points = queues.flatMap((q) =>
    downsample(byTime(byQueue.get(q)!).map((r) => ({ t: r.timeUs, value: r.queueBytes })), endUs, MAX_POINTS_PER_SERIES, 'max').map((p) => ({ series: q, ...p })),
  );
  return { queues, missing, points };
}

/**
 * Throughput of the busiest flows (a sending QP: `node qpN → dst`), mean-downsampled; `omitted`
 * counts the quieter flows left out. Each point is `wireThroughput` of the flow's rows, so no
 * point exceeds the flow's line rate.
 */
export function rateSeries(rows: readonly RateRow[], endUs: number): { series: string[]; omitted: number; points: Point[] } {
  const byFlow = groupBy(rows, (r) => `${r.node} qp${r.qp} → ${r.dst}`);
  const total = new Map([...byFlow].map(([k, list]) => [k, list.reduce((s, r) => s + r.throughputGbps, 0)]));
  const ranked = [...byFlow.keys()].sort((a, b) => total.get(b)! - total.get(a)! || naturalCompare(a, b));
  const series = ranked.slice(0, MAX_RATE_SERIES).sort(naturalCompare);
  const points = series.flatMap((s) => downsample(wireThroughput(byFlow.get(s)!), endUs, MAX_POINTS_PER_SERIES, 'mean').map((p) => ({ series: s, ...p })));
  return { series, omitted: ranked.length - series.length, points };
}

/**
 * One flow's throughput (Gb/s) over each grid interval, never above its line rate. rates.csv's
 * `throughput_gbps` is the bytes *acknowledged* in the interval, and acknowledgements come in
 * bursts — ACKs that queued behind data on the way back, a cumulative ACK after a pause — so
 * 20 µs can acknowledge more than a 40 Gb/s link carries in 20 µs (96.7 Gb/s in
 * is-lossless-mandatory). Here each byte acknowledged by t is placed on the wire no earlier than
 * it must have been: W(t) = max over later samples s of A(s) − C·(s − t), with A the cumulative
 * acknowledged bytes and C the flow's highest `rate_gbps` (its line rate, or its pacing cap) —
 * the least wire curve that carries every acknowledged byte in time at C. W ≥ A, W ends where A
 * ends (the same bytes), and its slope never exceeds C. Without a rate, the rows as written.
 */
export function wireThroughput(rows: readonly RateRow[]): Array<{ t: number; value: number }> {
  const list = byTime([...rows]);
  const capGbps = list.reduce((m, r) => Math.max(m, r.rateGbps), 0);
  if (list.length === 0 || !(capGbps > 0)) return list.map((r) => ({ t: r.timeUs, value: r.throughputGbps }));
  const bytesPerUs = (capGbps * 1e3) / 8;
  const wire = list.map((r) => r.ackedBytes);
  for (let i = list.length - 2; i >= 0; i--) wire[i] = Math.max(wire[i]!, wire[i + 1]! - bytesPerUs * (list[i + 1]!.timeUs - list[i]!.timeUs));
  // Before its first row the flow had `ackedBytes - throughput × interval` acknowledged, one grid interval earlier.
  const step = list.length > 1 ? list[1]!.timeUs - list[0]!.timeUs : 0;
  const before = Math.max(0, list[0]!.ackedBytes - (list[0]!.throughputGbps * 1e3 * step) / 8);
  return list.map((r, i) => {
    const [t0, w0] = i === 0 ? [r.timeUs - step, Math.min(before, wire[0]!)] : [list[i - 1]!.timeUs, wire[i - 1]!];
    const dt = r.timeUs - t0;
    const gbps = dt > 0 ? ((wire[i]! - w0) * 8) / dt / 1e3 : 0;
    return { t: r.timeUs, value: Math.min(capGbps, Math.max(0, gbps)) };
  });
}

export interface PauseCell { row: string; t: number; t2: number; fraction: number }

/**
 * The fraction of each time bin that each transmitter priority was paused (pfc.csv through
 * `pauseIntervals`, clipped at `endUs`). Rows are `node:port`, with ` p<priority>` when more
 * than one priority paused; only rows that were paused at all, the MAX_PAUSE_ROWS most paused
 * first (`omitted` counts the rest). Only cells with a paused fraction are returned, a run of
 * bins with the same fraction as one cell.
 */
export function pauseHeatmap(rows: readonly PfcRow[], endUs: number): { rows: string[]; omitted: number; priorities: number[]; cells: PauseCell[] } {
  if (!(endUs > 0)) return { rows: [], omitted: 0, priorities: [], cells: [] };
  const intervals = pauseIntervals(rows)
    .map((i) => ({ ...i, endUs: Math.min(i.endUs, endUs) }))
    .filter((i) => i.endUs > i.startUs);
  const priorities = [...new Set(intervals.map((i) => i.priority))].sort((a, b) => a - b);
  const label = (i: { node: string; port: string; priority: number }): string => (priorities.length > 1 ? `${i.node}:${i.port} p${i.priority}` : `${i.node}:${i.port}`);
  const byRow = groupBy(intervals, label);
  const paused = (row: string): number => byRow.get(row)!.reduce((s, i) => s + (i.endUs - i.startUs), 0);
  const ranked = [...byRow.keys()].sort((a, b) => paused(b) - paused(a) || naturalCompare(a, b));
  const shown = ranked.slice(0, MAX_PAUSE_ROWS);
  const width = endUs / PAUSE_BINS;
  const cells: PauseCell[] = [];
  for (const row of shown) {
    const fractions = new Array<number>(PAUSE_BINS).fill(0);
    for (const i of byRow.get(row)!) {
      for (let b = Math.floor(i.startUs / width); b < PAUSE_BINS && b * width < i.endUs; b++) {
        fractions[b]! += (Math.min(i.endUs, (b + 1) * width) - Math.max(i.startUs, b * width)) / width;
      }
    }
    // Rounded to 1e-6, so fully paused bins are exactly 1; runs of equal bins become one cell.
    let from = 0;
    for (let b = 1; b <= PAUSE_BINS; b++) {
      const f = Math.min(1, Math.round(fractions[from]! * 1e6) / 1e6);
      if (b < PAUSE_BINS && Math.min(1, Math.round(fractions[b]! * 1e6) / 1e6) === f) continue;
      if (f > 0) cells.push({ row, t: from * width, t2: b * width, fraction: f });
      from = b;
    }
  }
  return { rows: shown, omitted: ranked.length - shown.length, priorities, cells };
}

export type ProbeKind = 'round trip' | 'p50' | 'p99' | 'lost';
export interface ProbePoint { kind: ProbeKind; t: number; rttUs: number | null }

/**
 * Probe round trips by post time: every probe while there are at most MAX_POINTS_PER_SERIES,
 * else p50 and p99 (nearest rank) per PROBE_BINS bin. Lost probes (no round trip) are `lost`
 * points without a value — one per bin with a loss once binned.
 */
export function probeSeries(rows: ReadonlyArray<TraceRows['probes.csv']>, endUs: number): { binned: boolean; lost: number; points: ProbePoint[] } {
  const probes = byTime([...rows]);
  const lost = probes.filter((p) => p.rttUs === null).length;
  if (probes.length <= MAX_POINTS_PER_SERIES) {
    return { binned: false, lost, points: probes.map((p) => ({ kind: p.rttUs === null ? 'lost' : 'round trip', t: p.timeUs, rttUs: p.rttUs })) };
  }
  const span = Math.max(endUs, probes[probes.length - 1]!.timeUs);
  const bins = groupBy(probes, (p) => String(Math.min(PROBE_BINS - 1, Math.floor((p.timeUs / span) * PROBE_BINS))));
  const points: ProbePoint[] = [];
  for (const [bin, list] of bins) {
    const t = ((Number(bin) + 0.5) * span) / PROBE_BINS;
    const rtts = list.flatMap((p) => (p.rttUs === null ? [] : [p.rttUs])).sort((a, b) => a - b);
    if (rtts.length > 0) points.push({ kind: 'p50', t, rttUs: nearestRank(rtts, 50) }, { kind: 'p99', t, rttUs: nearestRank(rtts, 99) });
    if (rtts.length < list.length) points.push({ kind: 'lost', t, rttUs: null });
  }
  return { binned: true, lost, points };
}

export interface FaultMark { t: number; label: string }

/** The instants faults began and ended, in trace time (µs from `originUs`), within [0, endUs]. */
export function faultMarks(faults: readonly FaultOutcome[], originUs: number, endUs: number): FaultMark[] {
  return [...faults]
    .sort((a, b) => a.atNs - b.atNs || a.id - b.id)
    .flatMap((f) => [
      { t: f.atNs / 1000 - originUs, label: `${f.kind} ${f.target}` },
      ...(f.untilNs === null ? [] : [{ t: f.untilNs / 1000 - originUs, label: `${f.kind} ends` }]),
    ])
    .filter((m) => m.t >= 0 && m.t <= endUs);
}

/** One point of a variant's CDF: the fraction of its samples at or below `value`. */
export interface CdfPoint {
  variant: string;
  value: number;
  fraction: number;
}

/**
 * Each variant's CDF of a measure (an FCT slowdown, a probe round trip): one step per distinct
 * value. A sample without a value (a message not completed, a probe lost) keeps the curve below
 * 1 by its share, and `missing` says how many. Variants without samples are left out.
 */
export function cdfByVariant(byVariant: ReadonlyArray<{ variant: string; values: ReadonlyArray<number | null> }>): { variants: string[]; points: CdfPoint[]; missing: Map<string, number> } {
  const variants: string[] = [];
  const points: CdfPoint[] = [];
  const missing = new Map<string, number>();
  for (const { variant, values } of byVariant) {
    if (values.length === 0) continue;
    variants.push(variant);
    const known = values.filter((x): x is number => x !== null).sort((a, b) => a - b);
    missing.set(variant, values.length - known.length);
    for (let i = 0; i < known.length; i++) {
      if (i + 1 < known.length && known[i + 1] === known[i]) continue;
      points.push({ variant, value: known[i]!, fraction: (i + 1) / values.length });
    }
  }
  return { variants, points, missing };
}

/** One node's held time in one variant: what its transmitters spent paused by PFC and waiting for credit. */
export interface HoldBar { node: string; variant: string; ms: number }

/** One node's held time in one variant, in ps (`heldTimes`). */
export interface HeldTime { node: string; ps: number }

/** Per node, in pod order: the time its transmitters were held — paused by received PFC plus waiting for credit — summed over its ports and priorities. */
export function heldTimes(nodes: readonly NodeReport[]): HeldTime[] {
  return nodes.map((n) => {
    let ps = 0;
    for (const p of n.ports) {
      for (const x of p.pausedPs) ps += x;
      for (const x of p.credit?.waitPs ?? []) ps += x;
    }
    return { node: n.node, ps };
  });
}

/**
 * How far back-pressure spread, per variant (issue 14, credit vs PFC): for every node, the time
 * its transmitters were held — paused by received PFC plus waiting for credit — summed over its
 * ports and priorities, in ms. Nodes held in no variant are left out; rows in pod order.
 */
export function holdBars(variants: ReadonlyArray<{ name: string; nodes: readonly NodeReport[] }>): { rows: string[]; bars: HoldBar[] } {
  return holdBarsOf(variants.map((v) => ({ name: v.name, held: heldTimes(v.nodes) })));
}

/** `holdBars` from each variant's `heldTimes`, kept when the variant ran. */
export function holdBarsOf(variants: ReadonlyArray<{ name: string; held: readonly HeldTime[] }>): { rows: string[]; bars: HoldBar[] } {
  const bars: HoldBar[] = [];
  const held = new Set<string>();
  for (const v of variants) {
    for (const { node, ps } of v.held) {
      bars.push({ node, variant: v.name, ms: ps / 1e9 });
      if (ps > 0) held.add(node);
    }
  }
  const rows = (variants[0]?.held ?? []).map((n) => n.node).filter((n) => held.has(n));
  return { rows, bars: bars.filter((b) => held.has(b.node)) };
}

/** One point of the slowdown-by-size plot: a variant's percentile of one size group. */
export interface SlowdownPoint {
  variant: string;
  /** The x label: the group's upper edge and the first variant's largest size in it, e.g. `10% ≤64.0K`. */
  group: string;
  percentile: 'p50' | 'p95' | 'p99';
  slowdown: number;
}

/** Bytes as HPCC's figures label sizes: 1.5K, 2.0M. */
const sizeLabel = (bytes: number): string => (bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)}M` : bytes >= 1e3 ? `${(bytes / 1e3).toFixed(1)}K` : `${bytes}`);

/**
 * The points of the slowdown-by-size plot (HPCC's FCT slowdown figures): per variant, per size
 * group it has, its P50, P95 and P99. Groups are matched across variants by their place in the
 * size order (`toPercent`); the x label shows the first variant's largest size in the group,
 * the sizes of the others being the same whenever they run the same workload and seed.
 */
export function slowdownBySizeSeries(variants: ReadonlyArray<{ variant: string; summary: SlowdownSummary }>): { groups: string[]; variants: string[]; points: SlowdownPoint[] } {
  const labels = new Map<number, string>();
  for (const v of variants) for (const b of v.summary.buckets) if (!labels.has(b.toPercent)) labels.set(b.toPercent, `${b.toPercent}% ≤${sizeLabel(b.upToBytes)}`);
  const points = variants.flatMap((v) =>
    v.summary.buckets.flatMap((b) => (['p50', 'p95', 'p99'] as const).map((percentile) => ({ variant: v.variant, group: labels.get(b.toPercent)!, percentile, slowdown: b[percentile] }))),
  );
  return {
    groups: [...labels.entries()].sort((a, b) => a[0] - b[0]).map(([, label]) => label),
    variants: variants.filter((v) => v.summary.buckets.length > 0).map((v) => v.variant),
    points,
  };
}
