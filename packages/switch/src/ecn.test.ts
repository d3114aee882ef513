import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rng } from '@rocelab/sim';
import { Ecn } from '@rocelab/wire';
import { ECN_VENDOR } from './defaults.js';
import { checkEcnConfig, markProbability, shouldMark, type EcnConfig } from './ecn.js';

/** DESIGN §9 vendor values: Kmin 104,000 B, Kmax 312,000 B (span 208,000 B), Pmax 0.1. */
/** The vendor profile's marking (DESIGN §9), ECT packets only. */
const V: EcnConfig = { ...ECN_VENDOR, markNonEct: false };
const NON_ECT_TOO: EcnConfig = { ...V, markNonEct: true };

test('the vendor values are the DESIGN §9 ones and pass the config check', () => {
  assert.deepEqual({ ...V }, { kminBytes: 104_000, kmaxBytes: 312_000, pmax: 0.1, markNonEct: false });
  assert.deepEqual(checkEcnConfig(V), []);
});

test('marking probability at the boundaries of the RED ramp', () => {
  assert.equal(markProbability(0, V), 0);
  assert.equal(markProbability(104_000, V), 0, 'q = Kmin: no mark');
  // q = Kmin + 1: 0.1 × 1/208,000 = 4.8077e-7
  assert.ok(Math.abs(markProbability(104_001, V) - 0.1 / 208_000) < 1e-20);
  assert.equal(markProbability(156_000, V), 0.025, 'a quarter of the ramp: Pmax/4');
  assert.equal(markProbability(208_000, V), 0.05, 'midpoint: Pmax/2');
  assert.equal(markProbability(312_000, V), 0.1, 'q = Kmax: Pmax');
  assert.equal(markProbability(312_001, V), 1, 'above Kmax: always');
  assert.equal(markProbability(12_766_208, V), 1);
});

/** Whether `act` consumed exactly `floats` nextFloat draws from a stream (compared with a twin stream). */
function drawsOf(act: (rng: Rng) => void, floats: number): boolean {
  const used = new Rng(1, 'sw1', 'ecn');
  const twin = new Rng(1, 'sw1', 'ecn');
  act(used);
  for (let i = 0; i < floats; i++) twin.nextFloat();
  return used.nextU32() === twin.nextU32();
}

test('a decision draws exactly one number when 0 < p < 1 and none otherwise', () => {
  const mark = (ecn: number, q: number, c: EcnConfig = V) => (rng: Rng) => void shouldMark(ecn, q, c, rng);
  assert.ok(drawsOf(mark(Ecn.ect0, 50_000), 0), 'below Kmin: p = 0');
  assert.ok(drawsOf(mark(Ecn.ect0, 104_000), 0), 'at Kmin: p = 0');
  assert.ok(drawsOf(mark(Ecn.ect0, 400_000), 0), 'above Kmax: p = 1');
  assert.ok(drawsOf(mark(Ecn.ect0, 312_000, { ...V, pmax: 1 }), 0), 'at Kmax with Pmax 1: p = 1');
  assert.ok(drawsOf(mark(Ecn.ect0, 208_000, { ...V, pmax: 0 }), 0), 'Pmax 0: p = 0');
  assert.ok(drawsOf(mark(Ecn.notEct, 208_000), 0), 'not-ECT is not a candidate');
  assert.ok(drawsOf(mark(Ecn.ect0, 104_001), 1));
  assert.ok(drawsOf(mark(Ecn.ect1, 208_000), 1));
  assert.ok(drawsOf(mark(Ecn.ce, 312_000), 1));
  assert.ok(drawsOf(mark(Ecn.notEct, 208_000, NON_ECT_TOO), 1));
});

test('the decision is the draw compared with p', () => {
  const rng = new Rng(9, 'sw1', 'ecn');
  const twin = new Rng(9, 'sw1', 'ecn');
  for (let i = 0; i < 1000; i++) assert.equal(shouldMark(Ecn.ect0, 280_000, V, rng), twin.nextFloat() < markProbability(280_000, V));
});

test('marked fractions match the formula within 3σ (100,000 decisions per depth, 3 seeds)', () => {
  const n = 100_000;
  for (const seed of [1, 2, 3]) {
    const rng = new Rng(seed, 'sw1', 'ecn');
    // p = 0.1 × 46/208 ≈ 0.0221, 0.1 × 104/208 = 0.05, 0.1 × 176/208 ≈ 0.0846
    for (const queueBytes of [150_000, 208_000, 280_000]) {
      const p = markProbability(queueBytes, V);
      let marked = 0;
      for (let i = 0; i < n; i++) if (shouldMark(Ecn.ect0, queueBytes, V, rng)) marked++;
      const sigma = Math.sqrt((p * (1 - p)) / n);
      assert.ok(Math.abs(marked / n - p) <= 3 * sigma, `seed ${seed}, ${queueBytes} B: ${marked / n} vs ${p} ± ${3 * sigma}`);
    }
  }
});

test('not-ECT packets are never marked by default, and are when markNonEct (hpcc-ns3 parity)', () => {
  const rng = new Rng(4, 'sw1', 'ecn');
  for (const q of [0, 208_000, 312_000, 312_001, 10_000_000]) assert.equal(shouldMark(Ecn.notEct, q, V, rng), false);
  assert.equal(shouldMark(Ecn.notEct, 312_001, NON_ECT_TOO, rng), true);
  assert.equal(shouldMark(Ecn.notEct, 104_000, NON_ECT_TOO, rng), false);
  let marked = 0;
  for (let i = 0; i < 100_000; i++) if (shouldMark(Ecn.notEct, 208_000, NON_ECT_TOO, rng)) marked++;
  assert.ok(Math.abs(marked / 100_000 - 0.05) <= 3 * Math.sqrt((0.05 * 0.95) / 100_000));
  // ECT(1) and CE are candidates like ECT(0).
  assert.equal(shouldMark(Ecn.ect1, 312_001, V, rng), true);
  assert.equal(shouldMark(Ecn.ce, 312_001, V, rng), true);
});

test('config problems are all reported with field, expectation and value', () => {
  const bad: EcnConfig = { kminBytes: -1, kmaxBytes: -2, pmax: 1.5, markNonEct: false };
  assert.deepEqual(
    checkEcnConfig(bad).map((p) => [p.field, p.actual]),
    [
      ['kminBytes', -1],
      ['kmaxBytes', -2],
      ['pmax', 1.5],
    ],
  );
  assert.deepEqual(checkEcnConfig({ ...V, kmaxBytes: V.kminBytes }).map((p) => p.field), ['kmaxBytes'], 'Kmax must exceed Kmin');
  assert.deepEqual(checkEcnConfig({ ...V, pmax: Number.NaN }).map((p) => p.field), ['pmax']);
  assert.deepEqual(checkEcnConfig({ ...V, kmaxBytes: Infinity }).map((p) => p.field), ['kmaxBytes']);
  assert.deepEqual(checkEcnConfig({ ...V, pmax: 0 }), [], 'Pmax 0 (never mark on the ramp) is allowed');
  assert.deepEqual(checkEcnConfig({ ...V, pmax: 1 }), []);
});
