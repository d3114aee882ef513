import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PS_PER_US } from '@rocelab/sim';
import { checkDcqcnParams, dcqcnDefaults, DCQCN_VARIANTS, type DcqcnParams } from './dcqcn-params.js';
import { DcqcnReactionPoint } from './dcqcn-rp.js';

const G = 1e9;

test('the vendor profile is the ConnectX-4+ firmware dump (PHYSICS §1.2 MLXCFG)', () => {
  const p = dcqcnDefaults('vendor', 100 * G);
  assert.equal(p.gFixed, 1019);
  assert.equal(p.initialAlpha * 1024, 1023);
  assert.equal(p.alphaPeriodPs, 1 * PS_PER_US);
  assert.equal(p.rateDecreasePeriodPs, 4 * PS_PER_US);
  assert.equal(p.rateIncreaseTimerPs, 300 * PS_PER_US);
  assert.equal(p.byteCounterBytes, 2_097_088); // 32767 × 64 B
  assert.deepEqual([p.fastRecoverySteps, p.aiRateBps, p.haiRateBps, p.minRateBps], [1, 5e6, 50e6, 1e6]);
  assert.deepEqual([p.clampTargetRate, p.clampTargetAfterTimeIncrease, p.rateOnFirstCnp], [false, true, 0]);
  assert.deepEqual([p.rpgGd, p.minDecFactorPercent, p.cnpIntervalPs], [11, 50, 4 * PS_PER_US]);
});

test('the paper profile: g 1/256, 55 µs timers, 10 MB, F 5, 40/200 Mb/s, clamp on every CNP, 50 µs CNP window', () => {
  const p = dcqcnDefaults('paper', 40 * G);
  assert.deepEqual([p.g, p.initialAlpha, p.alphaPeriodPs, p.rateDecreasePeriodPs, p.rateIncreaseTimerPs], [1 / 256, 1, 55 * PS_PER_US, null, 55 * PS_PER_US]);
  assert.deepEqual([p.byteCounterBytes, p.fastRecoverySteps, p.aiRateBps, p.haiRateBps, p.minRateBps], [10_000_000, 5, 40e6, 200e6, 100e6]);
  assert.equal(p.clampTargetRate, true);
  assert.equal(p.cnpIntervalPs, 50 * PS_PER_US);
});

test('the hpcc-ns3 profile is run.py --cc dcqcn: AI 5·bw/25 and HAI 50·bw/25 Mb/s scale with the link', () => {
  const at40 = dcqcnDefaults('hpcc-ns3', 40 * G);
  assert.deepEqual([at40.aiRateBps, at40.haiRateBps], [8e6, 80e6]);
  const at100 = dcqcnDefaults('hpcc-ns3', 100 * G);
  assert.deepEqual([at100.aiRateBps, at100.haiRateBps], [20e6, 200e6]);
  assert.deepEqual([at40.g, at40.alphaPeriodPs, at40.rateDecreasePeriodPs, at40.rateIncreaseTimerPs], [1 / 256, PS_PER_US, 4 * PS_PER_US, 300 * PS_PER_US]);
  assert.deepEqual([at40.byteCounterBytes, at40.fastRecoverySteps, at40.minRateBps, at40.rateOnFirstCnp, at40.cnpIntervalPs], [null, 1, 1e9, 1, null]);
});

test('every profile passes its own checks at 10, 40 and 100 Gb/s', () => {
  for (const variant of DCQCN_VARIANTS) {
    for (const line of [10 * G, 40 * G, 100 * G]) assert.deepEqual(checkDcqcnParams(dcqcnDefaults(variant, line), line), [], `${variant} @ ${line}`);
  }
});

test('bad values are reported one per field, with a range a user can read', () => {
  const p: DcqcnParams = { ...dcqcnDefaults('hpcc-ns3', 40 * G), g: 1, fastRecoverySteps: 1.5, alphaPeriodPs: 0, minRateBps: 50 * G, byteCounterBytes: 1000, rateOnFirstCnp: 2 };
  assert.deepEqual(checkDcqcnParams(p, 40 * G), [
    { field: 'g', expected: 'a gain in (0, 1)', actual: 1 },
    { field: 'alphaPeriodPs', expected: 'a period > 0 (integer picoseconds)', actual: 0 },
    { field: 'byteCounterBytes', expected: 'null: hpcc-ns3 has no byte counter', actual: 1000 },
    { field: 'fastRecoverySteps', expected: 'an integer ≥ 0', actual: 1.5 },
    { field: 'minRateBps', expected: '1 bit/s .. line rate', actual: 50 * G },
    { field: 'rateOnFirstCnp', expected: 'a fraction of line rate 0 .. 1 (0 = unchanged)', actual: 2 },
  ]);
});

test('vendor rates must be whole Mb/s and α a multiple of 1/1024; paper cuts on every CNP', () => {
  const vendor: DcqcnParams = { ...dcqcnDefaults('vendor', 40 * G), aiRateBps: 5.5e6, initialAlpha: 0.3, gFixed: 1024 };
  assert.deepEqual(
    checkDcqcnParams(vendor, 40 * G).map((p) => [p.field, p.expected]),
    [
      ['gFixed', 'the α weight in 1/1024 (dce_tcp_g), an integer 1 .. 1023'],
      ['initialAlpha', 'a ratio 0 .. 1023/1024 in steps of 1/1024'],
      ['aiRateBps', 'a rate 0 bit/s .. line rate, in whole Mb/s (the firmware unit)'],
    ],
  );
  const paper: DcqcnParams = { ...dcqcnDefaults('paper', 40 * G), rateDecreasePeriodPs: 4 * PS_PER_US };
  assert.deepEqual(checkDcqcnParams(paper).map((p) => p.field), ['rateDecreasePeriodPs']);
});

test('without a line rate only the rate ranges that do not depend on it are checked', () => {
  assert.deepEqual(checkDcqcnParams({ ...dcqcnDefaults('paper', 40 * G), minRateBps: 1e15 }), []);
  assert.equal(checkDcqcnParams({ ...dcqcnDefaults('paper', 40 * G), minRateBps: 0 })[0]?.expected, '1 bit/s');
});

test('the reaction point refuses parameters that fail the checks', () => {
  assert.throws(() => new DcqcnReactionPoint({ ...dcqcnDefaults('vendor', 40 * G), g: 0 }, 40 * G), /g: expected a gain in \(0, 1\), got 0/);
  assert.throws(() => new DcqcnReactionPoint(dcqcnDefaults('vendor', 40 * G), 0), RangeError);
});
