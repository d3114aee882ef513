import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultWindow, measure, naturalCompare, type Measurement } from './measurements.js';
import type { FctRow, QueueRow, RateRow } from './trace-tables.js';

const rate = (timeUs: number, node: string, qp: number, throughputGbps: number, cnps = 0): RateRow => ({
  run: '', timeUs, node, qp, flow: `${qp}`, dst: 'h9', rateGbps: 40, targetGbps: 40, alpha: 1, ackedBytes: 0, cnps, throughputGbps,
});
const queue = (timeUs: number, port: string, queueBytes: number, ecnMarks = 0): QueueRow => ({
  run: '', timeUs, node: 'sw1', port, priority: 3, queueBytes, thresholdBytes: 0, ingressBytes: 0, headroomBytes: 0, paused: false, pausing: false, ecnMarks, txPackets: 0,
});
const fct = (flow: string, fctUs: number | null): FctRow => ({
  run: '', flow, from: 'h1', to: 'h2', sizeBytes: 1000, startUs: 0, completionUs: fctUs, fctUs, idealFctUs: 1, slowdown: fctUs, status: fctUs === null ? 'incomplete' : 'success',
});
const values = (ms: Measurement[]): Record<string, number | null> => Object.fromEntries(ms.map((m) => [`${m.group} ${m.name}`, m.value]));

test('FCT per flow in flow order, and min, mean and max over the completed flows only', () => {
  const ms = measure({ 'fct.csv': [fct('10', 30), fct('9', 10), fct('11', null)] }, null);
  assert.deepEqual(ms.filter((m) => m.group === 'fct').map((m) => m.name), ['min', 'mean', 'max', 'flow 9', 'flow 10', 'flow 11']);
  assert.deepEqual(values(ms.filter((m) => m.group === 'fct')), { 'fct min': 10, 'fct mean': 20, 'fct max': 30, 'fct flow 9': 10, 'fct flow 10': 30, 'fct flow 11': null });
  assert.equal(ms.find((m) => m.name === 'flow 11')!.none, 'not completed');
});

test('slowdown per size group: the completed messages only, equal sizes in flow-id order', () => {
  const ms = measure({ 'fct.csv': [fct('10', 30), fct('9', 10), fct('11', null)] }, null).filter((m) => m.group === 'slowdown');
  // Two measured messages of 1000 B: flow 9 (slowdown 10) in the 45-50 % group, flow 10 (30) in 95-100 %.
  assert.deepEqual(values(ms), {
    'slowdown bucket 45-50% p50': 10, 'slowdown bucket 45-50% p95': 10, 'slowdown bucket 45-50% p99': 10,
    'slowdown bucket 95-100% p50': 30, 'slowdown bucket 95-100% p95': 30, 'slowdown bucket 95-100% p99': 30,
  });
  assert.ok(ms.every((m) => m.unit === 'ratio'));
});

test('steady rates: mean over the grid instants of the window (a QP without a row sent nothing); aggregate is the sum', () => {
  const rows = [rate(0, 'h1', 1, 99), rate(10, 'h1', 1, 20), rate(20, 'h1', 1, 30), rate(30, 'h1', 1, 40), rate(20, 'h2', 1, 10), rate(30, 'h2', 1, 30)];
  const w = defaultWindow(rows)!;
  assert.deepEqual(w, { startUs: 15, endUs: 30, endInclusive: true });
  assert.deepEqual(values(measure({ 'rates.csv': rows }, w)), { 'rate aggregate': 55, 'rate h1 qp1 → h9': 35, 'rate h2 qp1 → h9': 20, 'cnps CNPs': 0 });
  // Half-open [10, 30): instants 10 and 20; h2 had a row at 20 only.
  assert.deepEqual(values(measure({ 'rates.csv': rows }, { startUs: 10, endUs: 30, endInclusive: false })), { 'rate aggregate': 30, 'rate h1 qp1 → h9': 25, 'rate h2 qp1 → h9': 5, 'cnps CNPs': 0 });
  const empty = measure({ 'rates.csv': rows }, { startUs: 100, endUs: 200, endInclusive: false });
  assert.equal(empty[0]!.value, null);
  assert.equal(empty[0]!.none, 'no rates.csv rows in the steady window');
  assert.equal(defaultWindow([]), null);
});

test('queues: mean, p95 by nearest rank and max of queue_bytes per node:port:priority', () => {
  // 20 samples 1..20: nearest-rank p95 is the 19th value (the interpolated one would be 19.05).
  const rows = Array.from({ length: 20 }, (_, i) => queue(i, 'p2', i + 1));
  rows.push(queue(0, 'p10', 7));
  const v = values(measure({ 'queue.csv': rows }, null));
  assert.deepEqual(v, {
    'queue sw1:p2:3 mean': 10.5, 'queue sw1:p2:3 p95': 19, 'queue sw1:p2:3 max': 20,
    'queue sw1:p10:3 mean': 7, 'queue sw1:p10:3 p95': 7, 'queue sw1:p10:3 max': 7,
    'marks CE marks': 0,
  });
});

test('CE marks and CNPs: the sum over queues (flows) of the last cumulative value', () => {
  const q = [queue(1, 'p1', 0, 5), queue(3, 'p1', 0, 9), queue(2, 'p1', 0, 7), queue(1, 'p2', 0, 4)];
  const r = [rate(10, 'h1', 1, 0, 2), rate(20, 'h1', 1, 0, 3), rate(10, 'h1', 2, 0, 6)];
  const v = values(measure({ 'queue.csv': q, 'rates.csv': r }, null));
  assert.equal(v['marks CE marks'], 13);
  assert.equal(v['cnps CNPs'], 9);
});

test('pauses: count of paused intervals and their mean length; null mean without pauses', () => {
  const p = (timeUs: number, event: 'pause' | 'resume', pauseUs: number) => ({ run: '', timeUs, node: 'h1', port: 'p0', priority: 3, event, quanta: pauseUs === 0 ? 0 : 65535, pauseUs });
  assert.deepEqual(values(measure({ 'pfc.csv': [p(0, 'pause', 10), p(5, 'pause', 10), p(8, 'resume', 0), p(20, 'pause', 4)] }, null)), { 'pauses count': 2, 'pauses mean length': 6 });
  assert.deepEqual(values(measure({ 'pfc.csv': [] }, null)), { 'pauses count': 0, 'pauses mean length': null });
});

test('natural order: digit runs compare as numbers', () => {
  assert.deepEqual(['flow 10', 'flow 9', 'flow 012', 'flow 13'].sort(naturalCompare), ['flow 9', 'flow 10', 'flow 012', 'flow 13']);
  assert.deepEqual(['sw1:p10:3', 'sw1:p2:3', 'h10', 'h2'].sort(naturalCompare), ['h2', 'h10', 'sw1:p2:3', 'sw1:p10:3']);
});
