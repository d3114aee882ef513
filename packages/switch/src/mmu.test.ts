import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Mmu, type MmuConfig } from './mmu.js';

const LOSSLESS_3 = [false, false, false, true, false, false, false, false];

/** PHYSICS §7a #4: the HPCC ns-3 MMU of a 3-port switch (12 MiB, 15,000 B headroom and 4,096 B reserve per port, α = 1/8). */
const HPCC_3PORT: MmuConfig = {
  bufferBytes: 12 * 1024 * 1024,
  alpha: 1 / 8,
  reserveBytes: 4_096,
  headroomBytes: [15_000, 15_000, 15_000],
  lossless: LOSSLESS_3,
  totalReserveBytes: 3 * 4_096,
  totalHeadroomBytes: 3 * 15_000,
  xonOffsetBytes: 3_072,
  staticThresholds: null,
  egressLossyAlpha: 8,
};

test('the hpcc-ns3 starting threshold is (12,582,912 − 45,000 − 12,288) >> 3 = 1,565,703 B (PHYSICS §7a #4)', () => {
  const mmu = new Mmu(HPCC_3PORT, 3);
  assert.equal(mmu.threshold(), 1_565_703);
});

test('two saturated ingress groups settle at 12,525,624 / 10 = 1,252,562 B of shared each (PHYSICS §7a #4)', () => {
  // Fixed point of q = α·(P − 2q): q = αP / (1 + 2α) = P / 10 with P = 12,525,624 B of pool.
  const mmu = new Mmu(HPCC_3PORT, 3);
  const packet = 1_000;
  const full = [false, false];
  while (!full[0] || !full[1]) {
    for (const port of [0, 1]) {
      if (full[port]) continue;
      mmu.admit(port, 3, 2, 3, packet);
      if (mmu.headroomBytes(port, 3) > 0) full[port] = true; // past the threshold: into headroom
    }
  }
  for (const port of [0, 1]) assert.ok(Math.abs(mmu.sharedOf(port, 3) - 1_252_562) <= packet, `port ${port}: ${mmu.sharedOf(port, 3)} B shared`);
});

test('a group uses its reserve before the shared pool', () => {
  const mmu = new Mmu(HPCC_3PORT, 3);
  mmu.admit(0, 3, 2, 3, 4_000);
  assert.deepEqual([mmu.ingressBytes(0, 3), mmu.sharedOf(0, 3), mmu.sharedUsedBytes()], [4_000, 0, 0]);
  mmu.admit(0, 3, 2, 3, 1_000); // 96 B still fit the reserve, 904 B are shared
  assert.deepEqual([mmu.ingressBytes(0, 3), mmu.sharedOf(0, 3), mmu.sharedUsedBytes()], [5_000, 904, 904]);
});

test('dynamic-threshold admission: one lossy group grows to about P/9, then is dropped as `buffer`', () => {
  // A single group is admitted while q + s ≤ ⌊α(P − q)⌋, i.e. q ≤ P·α/(1 + α) = P/9.
  const config: MmuConfig = { ...HPCC_3PORT, lossless: new Array(8).fill(false), reserveBytes: 0, totalReserveBytes: 0 };
  const mmu = new Mmu(config, 3);
  const pool = config.bufferBytes - config.totalHeadroomBytes;
  let verdict = 'admitted';
  let admitted = 0;
  while (verdict === 'admitted') {
    verdict = mmu.admit(0, 0, 2, 0, 1_000);
    if (verdict === 'admitted') admitted++;
  }
  assert.equal(verdict, 'buffer');
  const q = mmu.sharedOf(0, 0);
  assert.equal(q, admitted * 1_000);
  assert.ok(q + 1_000 > Math.floor((pool - q) / 8) && q <= Math.floor((pool - (q - 1_000)) / 8), `stopped at ${q} B`);
  assert.ok(Math.abs(q - pool / 9) <= 1_000);
});

test('XOFF at the threshold, headroom after it, headroom_full beyond, XON with the offset once headroom is empty', () => {
  const config: MmuConfig = { ...HPCC_3PORT, staticThresholds: { xoffBytes: 10_000, xonBytes: 4_000 } };
  const mmu = new Mmu(config, 3);
  // Reserve 4,096 B first, then shared up to the static XOFF of 10,000 B.
  for (let i = 0; i < 14; i++) assert.equal(mmu.admit(0, 3, 2, 3, 1_000), 'admitted');
  assert.deepEqual([mmu.ingressBytes(0, 3), mmu.sharedOf(0, 3), mmu.headroomBytes(0, 3)], [14_000, 9_904, 0]);
  assert.equal(mmu.shouldPause(0, 3), false, '9,904 B shared < 10,000 B');
  mmu.admit(0, 3, 2, 3, 1_000); // 10,904 would pass XOFF: into headroom
  assert.deepEqual([mmu.sharedOf(0, 3), mmu.headroomBytes(0, 3)], [9_904, 1_000]);
  assert.equal(mmu.shouldPause(0, 3), true);
  for (let i = 0; i < 14; i++) mmu.admit(0, 3, 2, 3, 1_000); // headroom 15,000 of 15,000
  assert.equal(mmu.headroomBytes(0, 3), 15_000);
  assert.equal(mmu.admit(0, 3, 2, 3, 1_000), 'headroom_full');
  // Departures leave headroom first: 15 releases empty it, shared is untouched.
  for (let i = 0; i < 15; i++) mmu.release(0, 3, 2, 3, 1_000);
  assert.deepEqual([mmu.sharedOf(0, 3), mmu.headroomBytes(0, 3)], [9_904, 0]);
  assert.equal(mmu.shouldResume(0, 3), false, 'shared 9,904 B > XON 4,000 B');
  for (let i = 0; i < 5; i++) mmu.release(0, 3, 2, 3, 1_000);
  assert.equal(mmu.shouldResume(0, 3), false, '4,904 B');
  mmu.release(0, 3, 2, 3, 1_000);
  assert.equal(mmu.shouldResume(0, 3), true, '3,904 B ≤ 4,000 B');
  assert.equal(mmu.egressBytes(2, 3), 14_000 + 15_000 - 21_000);
});

test('dynamic XON: headroom empty and shared + offset ≤ threshold (HPCC CheckShouldResume)', () => {
  const mmu = new Mmu(HPCC_3PORT, 3);
  while (mmu.headroomBytes(0, 3) === 0) mmu.admit(0, 3, 2, 3, 1_000);
  assert.equal(mmu.shouldPause(0, 3), true);
  while (mmu.headroomBytes(0, 3) > 0) mmu.release(0, 3, 2, 3, 1_000);
  // Release until XON; the threshold rises as the pool frees, so compare with it at each step.
  let before = { shared: mmu.sharedOf(0, 3), threshold: mmu.threshold() };
  while (!mmu.shouldResume(0, 3)) {
    before = { shared: mmu.sharedOf(0, 3), threshold: mmu.threshold() };
    mmu.release(0, 3, 2, 3, 1_000);
  }
  assert.ok(mmu.sharedOf(0, 3) + 3_072 <= mmu.threshold(), 'resumed: shared + offset ≤ threshold');
  assert.ok(before.shared + 3_072 > before.threshold, 'one release earlier it was not');
});

test('a lossy egress queue is limited to α_e of the free pool', () => {
  const config: MmuConfig = { ...HPCC_3PORT, lossless: new Array(8).fill(false), egressLossyAlpha: 0.5, alpha: 100 };
  const mmu = new Mmu(config, 3);
  const pool = config.bufferBytes - config.totalHeadroomBytes - config.totalReserveBytes;
  let n = 0;
  // Spread over three ingress groups so only the egress limit binds: e + s ≤ 0.5·(P − shared) + reserve.
  while (mmu.admit(n % 2, n % 8, 2, 0, 10_000) === 'admitted') n++;
  const e = mmu.egressBytes(2, 0);
  assert.ok(e + 10_000 > 0.5 * (pool - mmu.sharedUsedBytes()) + 4_096, `egress ${e} B`);
});

test('the buffer must leave a shared pool after reserves and headrooms', () => {
  assert.throws(() => new Mmu({ ...HPCC_3PORT, bufferBytes: 57_288 }, 3), /leave no shared pool/);
});

test('split pools: a lossy class that fills its own pool leaves the lossless threshold where it was; in one shared pool it shrinks it', () => {
  const lossyFill = (config: MmuConfig): { lossless: number; lossyHeld: number } => {
    const mmu = new Mmu(config, 3);
    // Priority 0 (lossy) from port 0 to port 2 until the MMU drops it.
    let held = 0;
    while (mmu.admit(0, 0, 2, 0, 1_000) === 'admitted' && held < 20_000_000) held += 1_000;
    return { lossless: mmu.threshold(3), lossyHeld: held };
  };
  const shared = lossyFill(HPCC_3PORT);
  const space = HPCC_3PORT.bufferBytes - HPCC_3PORT.totalReserveBytes - HPCC_3PORT.totalHeadroomBytes;
  const split = lossyFill({ ...HPCC_3PORT, pools: [{ priorities: [3], bytes: space / 2, alpha: 1 / 8 }, { priorities: [0, 1, 2, 4, 5, 6, 7], bytes: space / 2, alpha: 1 / 8 }] });
  assert.ok(shared.lossless < 1_565_703, `one pool: the lossy bytes shrank the lossless threshold to ${shared.lossless}`);
  assert.equal(split.lossless, Math.floor((1 / 8) * (space / 2)), 'split: the lossless pool is untouched');
  assert.ok(split.lossyHeld < shared.lossyHeld, 'and the lossy class has only its own half to fill');
});

test('pools must cover every priority exactly once', () => {
  assert.throws(() => new Mmu({ ...HPCC_3PORT, pools: [{ priorities: [3], bytes: 1000, alpha: 1 }] }, 3), /pools must cover every priority 0\.\.7, they cover 3/);
  assert.throws(() => new Mmu({ ...HPCC_3PORT, pools: [{ priorities: [0, 1, 2, 3], bytes: 1000, alpha: 1 }, { priorities: [3, 4, 5, 6, 7], bytes: 1000, alpha: 1 }] }, 3), /priority 3 is in two pools/);
});
