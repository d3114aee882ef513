import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PfcRow, QueueRow, RateRow, TraceRows } from '@rocelab/results';
import {
  MAX_PAUSE_ROWS, MAX_POINTS_PER_SERIES, MAX_RATE_SERIES, PAUSE_BINS, downsample, faultMarks, pauseHeatmap, probeSeries, queueSeries, rateSeries, wireThroughput, cdfByVariant,
} from './plot-series.js';

const queue = (timeUs: number, node: string, port: string, queueBytes: number): QueueRow => ({
  run: '', timeUs, node, port, priority: 3, queueBytes, thresholdBytes: 0, ingressBytes: 0, headroomBytes: 0, paused: false, pausing: false, ecnMarks: 0, txPackets: 0,
});
const pfc = (timeUs: number, node: string, port: string, event: 'pause' | 'resume', pauseUs = 0, priority = 3): PfcRow => ({
  run: '', timeUs, node, port, priority, event, quanta: event === 'pause' ? 65535 : 0, pauseUs,
});
const rate = (timeUs: number, node: string, qp: number, throughputGbps: number): RateRow => ({
  run: '', timeUs, node, qp, flow: String(qp), dst: 'h9', rateGbps: 40, targetGbps: 40, alpha: null, ackedBytes: 0, cnps: 0, throughputGbps,
});

test('downsample keeps at most maxPoints, each bin its peak at its own time (max) or its mean (mean)', () => {
  const points = Array.from({ length: 100_000 }, (_, i) => ({ t: i / 10, value: i === 54_321 ? 1e9 : i % 7 }));
  const max = downsample(points, 10_000, MAX_POINTS_PER_SERIES, 'max');
  assert.ok(max.length <= MAX_POINTS_PER_SERIES && max.length > MAX_POINTS_PER_SERIES / 2, `${max.length} points`);
  assert.ok(max.some((p) => p.t === 5432.1 && p.value === 1e9), 'the single spike survives');
  assert.ok(max.every((p, i) => i === 0 || p.t > max[i - 1]!.t), 'in time order');
  const mean = downsample(points.map((p) => ({ t: p.t, value: 4 })), 10_000, 100, 'mean');
  assert.equal(mean.length, 100);
  assert.ok(mean.every((p) => p.value === 4));
  // Short series pass through untouched.
  assert.deepEqual(downsample([{ t: 1, value: 2 }], 10, 5, 'max'), [{ t: 1, value: 2 }]);
});

test('queueSeries: the 3 deepest queues by default, or the named ones (and which names are not in the table)', () => {
  const rows = ['a', 'b', 'c', 'd'].flatMap((port, k) => Array.from({ length: 10 }, (_, i) => queue(i, 'sw1', port, i * (k + 1) * 100)));
  const top = queueSeries(rows, 10);
  assert.deepEqual(top.queues, ['sw1:d:3', 'sw1:c:3', 'sw1:b:3']);
  assert.equal(top.points.length, 30);
  const named = queueSeries(rows, 10, ['sw1:a:3', 'sw9:x:3']);
  assert.deepEqual([named.queues, named.missing], [['sw1:a:3'], ['sw9:x:3']]);
  // 10^5 rows per queue: bounded.
  const big = Array.from({ length: 100_000 }, (_, i) => queue(i / 10, 'sw1', 'p1', i % 1000));
  assert.ok(queueSeries(big, 10_000).points.length <= MAX_POINTS_PER_SERIES);
});

test('pauseHeatmap: paused fraction per bin, clipped at the run end; never-paused ports omitted; rows capped', () => {
  const end = 1000;
  const width = end / PAUSE_BINS;
  const h = pauseHeatmap([
    pfc(0, 'sw1', 'p1', 'pause', 15), // bins 0 (1.0) and 1 (0.5)
    pfc(950, 'sw2', 'p1', 'pause', 500), // open past the end: clipped at 1000
    pfc(100, 'sw3', 'p1', 'resume'), // a resume alone: never paused
    pfc(200, 'sw4', 'p1', 'pause', 0), // zero quanta: never paused
  ], end);
  assert.deepEqual(h.rows, ['sw2:p1', 'sw1:p1'], 'most paused first; sw3 and sw4 never paused');
  assert.deepEqual(h.priorities, [3]);
  assert.deepEqual(h.cells.filter((c) => c.row === 'sw1:p1').map((c) => [c.t, c.t2, c.fraction]), [[0, width, 1], [width, 2 * width, 0.5]]);
  assert.deepEqual(h.cells.filter((c) => c.row === 'sw2:p1').map((c) => [c.t, c.t2, c.fraction]), [[950, 1000, 1]], 'five full bins as one cell');

  const many = Array.from({ length: MAX_PAUSE_ROWS + 7 }, (_, i) => pfc(0, `sw${i}`, 'p1', 'pause', i + 1));
  const capped = pauseHeatmap(many, end);
  assert.equal(capped.rows.length, MAX_PAUSE_ROWS);
  assert.equal(capped.omitted, 7);
  assert.equal(capped.rows[0], `sw${MAX_PAUSE_ROWS + 6}:p1`, 'the longest paused first');
  assert.ok(!capped.rows.includes('sw0:p1'));

  const twoPriorities = pauseHeatmap([pfc(0, 'sw1', 'p1', 'pause', 10, 3), pfc(0, 'sw1', 'p1', 'pause', 5, 4)], end);
  assert.deepEqual(twoPriorities.rows, ['sw1:p1 p3', 'sw1:p1 p4']);
});

test('rateSeries: one series per sending QP, the busiest MAX_RATE_SERIES, named with their destination', () => {
  const rows = Array.from({ length: MAX_RATE_SERIES + 4 }, (_, qp) => [rate(10, 'h1', qp, qp), rate(20, 'h1', qp, qp)]).flat();
  const r = rateSeries(rows, 20);
  assert.equal(r.series.length, MAX_RATE_SERIES);
  assert.equal(r.omitted, 4);
  assert.ok(r.series.includes(`h1 qp${MAX_RATE_SERIES + 3} → h9`) && !r.series.includes('h1 qp0 → h9'));
});

test('wireThroughput: a burst of ACKs (is-lossless-mandatory pfc-gbn, h4 qp9: 96.7 Gb/s on a 40 Gb/s link) is placed back on the wire at line rate', () => {
  // The rows as rates.csv wrote them: 241,664 bytes acknowledged between 340 and 360 µs.
  const acked = [557056, 577536, 606208, 643072, 712704, 954368, 1000000];
  const rows = acked.map((ackedBytes, i): RateRow => ({ ...rate(260 + 20 * i, 'h4', 9, i === 0 ? 3.2768 : ((ackedBytes - acked[i - 1]!) * 8) / 20e3), ackedBytes }));
  assert.ok(Math.abs(rows[5]!.throughputGbps - 96.6656) < 1e-9, 'the row as written exceeds line rate');
  const wire = wireThroughput(rows);
  assert.deepEqual(wire.map((p) => p.t), [260, 280, 300, 320, 340, 360, 380]);
  assert.ok(wire.every((p) => p.value <= 40), wire.map((p) => p.value.toFixed(3)).join(' '));
  // The same bytes, moved earlier: 40 Gb/s for the two intervals before the burst.
  const bytes = wire.slice(1).reduce((n, p) => n + (p.value * 20e3) / 8, 0);
  assert.ok(Math.abs(bytes - (1000000 - 557056)) < 1e-6, `${bytes} bytes`);
  assert.deepEqual(wire.slice(4, 6).map((p) => p.value), [40, 40]);
  // Through rateSeries, what the plot draws.
  assert.ok(rateSeries(rows, 400).points.every((p) => p.value <= 40));
  // A flow below its rate everywhere is drawn as written.
  const smooth = [0, 10, 20].map((t, i): RateRow => ({ ...rate(t, 'h1', 2, 20), ackedBytes: 25000 * (i + 1) }));
  assert.deepEqual(wireThroughput(smooth).map((p) => p.value), [20, 20, 20]);
});

test('probeSeries: each probe while few, lost ones marked; p50/p99 per bin once many', () => {
  const probe = (timeUs: number, rttUs: number | null): TraceRows['probes.csv'] => ({ run: '', timeUs, from: 'h1', to: 'h2', rttUs });
  const few = probeSeries([probe(2, 5), probe(1, null)], 10);
  assert.deepEqual(few, { binned: false, lost: 1, points: [{ kind: 'lost', t: 1, rttUs: null }, { kind: 'round trip', t: 2, rttUs: 5 }] });
  const many = probeSeries(Array.from({ length: 5000 }, (_, i) => probe(i, i % 100 === 0 ? null : (i % 100) + 1)), 5000);
  assert.equal(many.binned, true);
  assert.equal(many.lost, 50);
  assert.ok(many.points.length <= 3 * 200);
  const p50 = many.points.filter((p) => p.kind === 'p50');
  const p99 = many.points.filter((p) => p.kind === 'p99');
  assert.equal(p99.length, 200);
  // Bin 0 holds probes 0..24: 0 is lost, the others took 2..25 µs.
  assert.deepEqual([p50[0]!.rttUs, p99[0]!.rttUs], [13, 25]);
  assert.equal(many.points.filter((p) => p.kind === 'lost').length, 50, 'one marker per bin with a loss');
});

test('faultMarks: start and end of each fault in trace time, outside the run dropped', () => {
  const f = (id: number, atNs: number, untilNs: number | null) => ({ id, kind: 'linkDown', target: 'sw1:p1', atNs, untilNs, params: {}, source: 'drill' as const });
  assert.deepEqual(faultMarks([f(1, 2_000_000, 3_000_000), f(0, 9_000_000, null)], 100, 5000), [
    { t: 1900, label: 'linkDown sw1:p1' },
    { t: 2900, label: 'linkDown ends' },
  ]);
});

test('cdfByVariant: one step per distinct value, fractions of all samples (those without a value keep the curve below 1); empty variants left out', () => {
  const cdf = cdfByVariant([
    { variant: 'a', values: [2, 1, 2, null] },
    { variant: 'empty', values: [] },
    { variant: 'b', values: [3] },
  ]);
  assert.deepEqual(cdf.variants, ['a', 'b']);
  assert.deepEqual(cdf.points, [
    { variant: 'a', value: 1, fraction: 0.25 },
    { variant: 'a', value: 2, fraction: 0.75 },
    { variant: 'b', value: 3, fraction: 1 },
  ]);
  assert.deepEqual([...cdf.missing], [['a', 1], ['b', 0]]);
});
