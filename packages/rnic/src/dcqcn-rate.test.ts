import assert from 'node:assert/strict';
import { test } from 'node:test';
import { alphaFixed, alphaFloat, cutFixed, cutFloat, raiseRates, recoveryIdle, recoveryStep, type IncreaseKind, type RateRecovery, type RecoveryLimits } from './dcqcn-rate.js';

const G = 1e9;
const fresh = (rate: number, target: number, phase: IncreaseKind = 'fast-recovery'): RateRecovery => ({ rate, target, timeStage: 0, byteStage: 0, phase });

test('float α: four periods without a CNP from 1 give (255/256)^4 exactly; with CNPs α stays 1 (PHYSICS §7a #1, #2)', () => {
  let alpha = 1;
  for (let i = 0; i < 4; i++) alpha = alphaFloat(alpha, 1 / 256, false);
  assert.equal(alpha, 4228250625 / 4294967296); // 255^4 / 256^4 = 0.984466…
  assert.equal(alphaFloat(1, 1 / 256, true), 1);
});

test('fixed-point α: 1023 stays 1023 with a CNP, drops to 1018 without, and 0 is a fixed point (PHYSICS §7a #3)', () => {
  assert.equal(alphaFixed(1023, 1019, true), 1023); // ⌊1019·1023/1024⌋ + 5 = 1018 + 5
  assert.equal(alphaFixed(1023, 1019, false), 1018);
  assert.equal(alphaFixed(0, 1019, true), 5);
  assert.equal(alphaFixed(0, 1019, false), 0);
  assert.equal(alphaFixed(1, 1019, false), 0);
});

test('fixed-point α with a CNP every k periods: k = 4 holds ≈ 0.2, k ≥ 6 cannot hold it above 5/1024 (the floor takes ≥ 1/1024 a period)', () => {
  // ⌊1019·α/1024⌋ removes exactly 1 for 1 ≤ α ≤ 204, a period with a CNP adds 5: sparse CNPs
  // (under PFC a QP's CNPs come every ~7 µs, drill dcqcn-incast) leave α at 0–5/1024, where the
  // float law with the same gain settles at ≈ 1/k. Values over one k-period cycle after 20 ms.
  const cycle = (k: number, step: (alpha: number, cnp: boolean) => number): number[] => {
    let alpha = 1023;
    for (let t = 0; t < 20_000; t++) alpha = step(alpha, t % k === 0);
    const out: number[] = [];
    for (let t = 20_000; t < 20_000 + k; t++) out.push((alpha = step(alpha, t % k === 0)));
    return out;
  };
  const fixed = (alpha: number, cnp: boolean) => alphaFixed(alpha, 1019, cnp);
  const float = (alpha: number, cnp: boolean) => 1024 * alphaFloat(alpha / 1024, 5 / 1024, cnp);
  for (const a of cycle(4, fixed)) assert.ok(a >= 201 && a <= 206, `k = 4: α ${a}`);
  for (const k of [6, 7, 8]) for (const a of cycle(k, fixed)) assert.ok(a <= 5, `k = ${k}: α ${a}`);
  for (const a of cycle(7, float)) assert.ok(a > 135 && a < 160, `float, k = 7: α ${a}`);
});

test('vendor cut: 100,000 Mb/s at α 1023 loses ⌊100000·1023/2048⌋ = 49,951 ⇒ 50,049 Mb/s (PHYSICS §7a #3)', () => {
  assert.equal(cutFixed(100_000, 1023, 11, 50, 1), 50_049);
  // rpg_min_dec_fac caps one cut: with a shift of 10 the α term would remove ~all of it.
  assert.equal(cutFixed(100_000, 1023, 10, 50, 1), 50_000);
  assert.equal(cutFixed(100_000, 1023, 11, 100, 1), 100_000); // 100 prevents reductions (DOC-2790)
  assert.equal(cutFixed(1, 1023, 11, 50, 1), 1); // floored at rpg_min_rate
});

test('float cut: Rc·(1 − α/2) truncated to whole bit/s, floored at the minimum rate', () => {
  assert.equal(cutFloat(40 * G, 1, 1 * G), 20 * G);
  assert.equal(cutFloat(40 * G, 4228250625 / 4294967296, 1 * G), 20_310_673_709); // 20.311 Gb/s (PHYSICS §7a #1)
  assert.equal(cutFloat(1.25 * G, 1, 1 * G), 1 * G);
});

test('raises: hpcc-ns3 halves each operand, vendor the sum, paper leaves Rt uncapped and stops at line rate', () => {
  assert.deepEqual(raiseRates('hpcc-ns3', 3, 40, 0, 40), [21, 40]); // ⌊3/2⌋ + 20
  assert.deepEqual(raiseRates('hpcc-ns3', 30, 39, 8, 40), [35, 40]); // Rt capped
  assert.deepEqual(raiseRates('vendor', 3, 40, 0, 40), [21, 40]); // ⌊43/2⌋
  assert.deepEqual(raiseRates('vendor', 39_999, 40_000, 5, 40_000), [39_999, 40_000]); // settles 1 Mb/s below target
  assert.deepEqual(raiseRates('paper', 30, 39, 8, 40), [38, 47]); // Rt not capped
  assert.deepEqual(raiseRates('paper', 36, 50, 0, 40), [40, 50]); // Rc capped: ⌊36/2⌋ + 25 = 43 → 40
  assert.deepEqual(raiseRates('paper', 40, 47, 8, 40), [40, 47]); // at line rate nothing moves (HTSIM)
});

test('hpcc-ns3 increases by stage: FR at stage < F, AI at F, HAI above (PHYSICS §7a #1 sequence)', () => {
  const lim: RecoveryLimits = { lineRate: 40 * G, ai: 8e6, hai: 80e6, f: 1 };
  let s = fresh(20_310_673_709, 40 * G);
  const rates: number[] = [];
  for (let i = 0; i < 5; i++) {
    s = recoveryStep('hpcc-ns3', s, lim, 'timer');
    rates.push(Math.round(s.rate / 1e6) / 1e3);
  }
  assert.deepEqual(rates, [30.155, 35.078, 37.539, 38.769, 39.385]);
  assert.equal(s.timeStage, 5);
  assert.equal(s.target, 40 * G);
});

test('vendor increases: first event FR, then AI; HAI only once both counters passed the threshold', () => {
  const lim: RecoveryLimits = { lineRate: 100_000, ai: 5, hai: 50, f: 1 };
  const kinds = (s: RateRecovery, trigger: 'timer' | 'bytes'): number => recoveryStep('vendor', s, lim, trigger).target - s.target;
  const base = fresh(50_000, 60_000);
  assert.equal(kinds(base, 'timer'), 0); // FR
  assert.equal(kinds({ ...base, timeStage: 1 }, 'timer'), 5); // max ≥ 1 ⇒ AI
  assert.equal(kinds({ ...base, timeStage: 5, byteStage: 1 }, 'timer'), 5); // min = 1, not > 1
  assert.equal(kinds({ ...base, timeStage: 2, byteStage: 2 }, 'bytes'), 50); // min > 1 ⇒ HAI
  assert.equal(recoveryStep('vendor', base, lim, 'bytes').byteStage, 1);
  assert.equal(recoveryStep('vendor', base, lim, 'timer').timeStage, 1);
});

test('paper stages (ZHU): timer FR while the counter < F, then AI, HAI × (min − F + 1) once both reach F', () => {
  const lim: RecoveryLimits = { lineRate: 40 * G, ai: 40e6, hai: 200e6, f: 5 };
  let s = fresh(10 * G, 20 * G);
  const phases: IncreaseKind[] = [];
  for (let i = 0; i < 6; i++) {
    s = recoveryStep('paper', s, lim, 'timer');
    phases.push(s.phase);
  }
  assert.deepEqual(phases, ['fast-recovery', 'fast-recovery', 'fast-recovery', 'fast-recovery', 'additive', 'additive']);
  assert.equal(s.target, 20 * G + 2 * 40e6);
  // Byte events in the additive stage raise additively without re-selecting (rpr_active_byte).
  const many = { ...s, timeStage: 7, byteStage: 6 };
  assert.equal(recoveryStep('paper', many, lim, 'bytes').phase, 'additive');
  // A timer event re-selects: both counters ≥ F ⇒ hyper with multiplier min(6, 8) − 5 + 1 = 2.
  const hyper = recoveryStep('paper', many, lim, 'timer');
  assert.equal(hyper.phase, 'hyper');
  assert.equal(hyper.target, many.target + 2 * 200e6);
});

test('recovery is idle once no increase can move Rc or Rt', () => {
  const lim: RecoveryLimits = { lineRate: 40 * G, ai: 8e6, hai: 80e6, f: 1 };
  assert.equal(recoveryIdle('hpcc-ns3', fresh(40 * G - 1, 40 * G), lim), true); // ns-3 settles 1 bit/s below
  assert.equal(recoveryIdle('hpcc-ns3', fresh(40 * G - 3, 40 * G), lim), false);
  assert.equal(recoveryIdle('hpcc-ns3', fresh(30 * G, 30 * G), lim), false); // AI would raise Rt
  assert.equal(recoveryIdle('paper', fresh(40 * G, 41 * G, 'hyper'), lim), true);
  assert.equal(recoveryIdle('paper', fresh(40 * G, 41 * G, 'fast-recovery'), lim), false); // the stage still moves
});
