// HPCC's sender against traces computed by hand from HPCC ns-3 rdma-hw.cc (UpdateRateHp) and
// rdma-queue-pair.cc (GetWin). The common case: a 100 Gb/s NIC, base RTT T = 10 µs, window
// W = 125,000 B (100 Gb/s × 10 µs / 8), η = 0.95, W_AI = 50 Mb/s.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AckFeedback, IntHop } from './cc.js';
import { HPCC_DEFAULTS, HpccRp, type HpccParams, type HpccPath } from './hpcc.js';

const LINE = 100e9;
const PATH: HpccPath = { baseRttPs: 10_000_000, windowBytes: 125_000, windowLimits: true, varWin: true };
const hop = (tsPs: number, txBytes: number, qlenBytes: number, lineRateBps = LINE): IntHop => ({ tsPs, txBytes, qlenBytes, lineRateBps });
const ack = (ackedBytes: number, nextSendBytes: number, hops: IntHop[]): AckFeedback => ({ nowPs: 0, ackedBytes, nextSendBytes, ecnEcho: false, hops, sentTsPs: null });
const rp = (p: Partial<HpccParams> = {}, path: Partial<HpccPath> = {}) => new HpccRp({ ...HPCC_DEFAULTS, ...p }, LINE, { ...PATH, ...path });

test('the first ACK only keeps the records; the next one past snd_nxt is a full update', () => {
  const cc = rp();
  // First RTT (m_lastUpdateSeq == 0): m_lastUpdateSeq ← snd_nxt = 10,000; hop 0 kept; rate unchanged.
  cc.onAck(0, ack(1_000, 10_000, [hop(1_000_000, 0, 12_000)]));
  assert.equal(cc.rateBps(0), LINE);
  assert.equal(cc.windowBytes(), 125_000, 'VAR_WIN at line rate: W');
  // 11,000 > 10,000: full update. Hop 0: τ = 2 µs − 1 µs = 1 µs; 12,800 B in 1 µs = 102.4 Gb/s,
  // txRate/B = 1.024; queue term min(24,000, 12,000) · 100G / 100G / 125,000 = 0.096;
  // u = 1.12 = U, dt = τ = 1 µs.
  // hp.u = (1 · (10 − 1) + 1.12 · 1) / 10 = 1.012; c = 1.012 / 0.95 = 1.06526…
  // c ≥ 1: R = trunc(100e9 / 1.06526…) + 50e6 = trunc(93,873,517,786.56) + 50,000,000 = 93,923,517,786.
  cc.onAck(0, ack(11_000, 30_000, [hop(2_000_000, 12_800, 24_000)]));
  assert.ok(Math.abs(cc.utilisation - 1.012) < 1e-12);
  assert.equal(cc.rateBps(0), 93_923_517_786);
  assert.equal(cc.referenceRateBps, 93_923_517_786, 'a full update moves Rc');
  assert.equal(cc.stage, 0);
  // VAR_WIN: floor(125,000 · 93,923,517,786 / 100e9) = floor(117,404.39…) = 117,404.
  assert.equal(cc.windowBytes(), 117_404);
  assert.deepEqual(cc.stats, { updates: 1, fastReactions: 0 });
});

test('an ACK before the recorded snd_nxt reacts fast: the rate moves from Rc, Rc and the stage stay', () => {
  const cc = rp();
  cc.onAck(0, ack(1_000, 10_000, [hop(1_000_000, 0, 12_000)]));
  cc.onAck(0, ack(11_000, 30_000, [hop(2_000_000, 12_800, 24_000)]));
  // 12,000 ≤ 30,000: fast react. τ = 1 µs, 6,400 B → 51.2 Gb/s, 0.512; queue min(0, 24,000) = 0: u = 0.512.
  // hp.u = (1.012 · 9 + 0.512 · 1) / 10 = 0.962 (kept even by a fast reaction); c = 0.962/0.95 = 1.01263…
  // R = trunc(Rc / c) + W_AI = trunc(93,923,517,786 / 1.01263…) + 50e6 = trunc(92,751,914,653.53) + 50e6 = 92,801,914,653.
  cc.onAck(0, ack(12_000, 31_000, [hop(3_000_000, 19_200, 0)]));
  assert.ok(Math.abs(cc.utilisation - 0.962) < 1e-12);
  assert.equal(cc.rateBps(0), 92_801_914_653);
  assert.equal(cc.referenceRateBps, 93_923_517_786, 'Rc stays');
  assert.deepEqual(cc.stats, { updates: 1, fastReactions: 1 });
});

test('without fastReact an ACK between updates changes nothing, not even the kept records', () => {
  const cc = rp({ fastReact: false });
  cc.onAck(0, ack(1_000, 10_000, [hop(1_000_000, 0, 12_000)]));
  cc.onAck(0, ack(11_000, 30_000, [hop(2_000_000, 12_800, 24_000)]));
  cc.onAck(0, ack(12_000, 31_000, [hop(3_000_000, 19_200, 0)]));
  assert.equal(cc.rateBps(0), 93_923_517_786);
  // The next full update measures from the record of the last full update (2 µs), not the skipped one:
  // τ = 2 µs, 25,600 − 12,800 = 12,800 B → 51.2 Gb/s, 0.512; queue 0: U = 0.512, dt = 2 µs.
  // hp.u = (1.012 · 8 + 0.512 · 2) / 10 = 0.912; c = 0.96; maxStage 0: multiplicative all the same.
  // R = trunc(93,923,517,786 / 0.96) + 50e6 = trunc(97,836,997,693.75) + 50e6 = 97,886,997,693.
  cc.onAck(0, ack(31_000, 50_000, [hop(4_000_000, 25_600, 0)]));
  assert.ok(Math.abs(cc.utilisation - 0.912) < 1e-12);
  assert.equal(cc.rateBps(0), 97_886_997_693);
});

test('the stage counts additive steps up to maxStage, then a multiplicative step restarts it', () => {
  const cc = rp({ maxStage: 2 }, { baseRttPs: 1_000_000 });
  // T = 1 µs and τ = 1 µs: each update sets hp.u to this ACK's u exactly.
  let seq = 1_000;
  let t = 1_000_000;
  let tx = 0;
  const step = (txDelta: number, qlen: number) => {
    t += 1_000_000;
    tx += txDelta;
    seq += 10_000;
    cc.onAck(0, ack(seq, seq + 5_000, [hop(t, tx, qlen)]));
  };
  cc.onAck(0, ack(seq, seq + 5_000, [hop(t, tx, 0)]));
  // Congested: 12,800 B/µs = 1.024, queue 0: u = 1.024, c = 1.0778…: R = trunc(100e9/1.0778…) + 50e6
  // = trunc(92,773,437,500) + 50e6 = 92,823,437,500; stage 0.
  step(12_800, 0);
  assert.equal(cc.rateBps(0), 92_823_437_500);
  assert.equal(cc.stage, 0);
  // Light: 6,400 B/µs = 0.512, c = 0.5389… < 1 and stage 0 < 2: R = Rc + W_AI, stage 1, then 2.
  step(6_400, 0);
  assert.equal(cc.rateBps(0), 92_873_437_500);
  assert.equal(cc.stage, 1);
  step(6_400, 0);
  assert.equal(cc.rateBps(0), 92_923_437_500);
  assert.equal(cc.stage, 2);
  // Stage 2 ≥ maxStage: multiplicative although c < 1: R = trunc(92,923,437,500 / (0.512/0.95)) + 50e6
  // = trunc(172,416,748,046.875) + 50e6, above the line: 100 Gb/s; stage 0.
  step(6_400, 0);
  assert.equal(cc.rateBps(0), LINE);
  assert.equal(cc.stage, 0);
});

test('the rate stays within [minRate, line rate]; the window can be fixed or off', () => {
  const cc = rp({ minRateBps: 1e9 }, { varWin: false });
  cc.onAck(0, ack(1_000, 10_000, [hop(1_000_000, 0, 0)]));
  // A full queue of 1.2 MB: queue term 9.6 (min of both records, the first is 0: so 0 first).
  cc.onAck(0, ack(11_000, 30_000, [hop(2_000_000, 12_800, 1_200_000)]));
  cc.onAck(0, ack(31_000, 50_000, [hop(3_000_000, 25_600, 1_200_000)]));
  // Second update: u = 1.024 + 9.6 = 10.624; hp.u = (1.012·9 + 10.624)/10 = 1.97320…; R = trunc(Rc/c) + 50e6 ≥ 1e9.
  assert.ok(cc.rateBps(0) >= 1e9 && cc.rateBps(0) < LINE);
  assert.equal(cc.windowBytes(), 125_000, 'VAR_WIN off: W whatever the rate');
  assert.equal(rp({}, { windowLimits: false }).windowBytes(), null);
  const floor = rp({ minRateBps: 90e9 });
  floor.onAck(0, ack(1_000, 10_000, [hop(1_000_000, 0, 0)]));
  floor.onAck(0, ack(11_000, 30_000, [hop(2_000_000, 25_600, 0)]));
  assert.equal(floor.rateBps(0), 90e9, 'u = 2.048 would give 46 Gb/s: held at minRate');
});

test('sampleFeedback: a fast reaction ignores a hop with an empty queue', () => {
  const cc = rp({ sampleFeedback: true });
  cc.onAck(0, ack(1_000, 10_000, [hop(1_000_000, 0, 12_000)]));
  cc.onAck(0, ack(11_000, 30_000, [hop(2_000_000, 12_800, 24_000)]));
  cc.onAck(0, ack(12_000, 31_000, [hop(3_000_000, 19_200, 0)]));
  assert.equal(cc.rateBps(0), 93_923_517_786, 'no hop updated: no rate change');
  assert.ok(Math.abs(cc.utilisation - 1.012) < 1e-12);
});

test('multiRate: each hop keeps its U, Rc and stage; the rate is the least of the hops', () => {
  const cc = rp({ multiRate: true });
  cc.onAck(0, ack(1_000, 10_000, [hop(1_000_000, 0, 0), hop(1_000_000, 0, 0)]));
  // Hop 0 busy (1.024), hop 1 light (0.512), τ = 1 µs each:
  // hop 0: u = (1·9 + 1.024)/10 = 1.0024, c = 1.05515…, R0 = trunc(100e9/1.05515…) + 50e6 = trunc(94,772,545,889.86) + 50e6 = 94,822,545,889;
  // hop 1: u = (1·9 + 0.512)/10 = 0.9512, c = 1.00126…, R1 = trunc(100e9/1.00126…) + 50e6 = trunc(99,873,843,566.02) + 50e6 = 99,923,843,566.
  cc.onAck(0, ack(11_000, 30_000, [hop(2_000_000, 12_800, 0), hop(2_000_000, 6_400, 0)]));
  assert.equal(cc.rateBps(0), 94_822_545_889);
});

test('records that wrap (time at 2^24 ns, bytes at 2^20 · 128) still give the right differences', () => {
  const a = rp();
  a.onAck(0, ack(1_000, 10_000, [hop(1_000_000, 0, 12_000)]));
  a.onAck(0, ack(11_000, 30_000, [hop(2_000_000, 12_800, 24_000)]));
  const wrapped = rp();
  const ns = 2 ** 24 * 1000;
  const bytes = 2 ** 20 * 128;
  // The same records shifted so both counters wrap between the two ACKs.
  wrapped.onAck(0, ack(1_000, 10_000, [hop(ns - 500_000, bytes - 6_400, 12_000)]));
  wrapped.onAck(0, ack(11_000, 30_000, [hop(500_000, 6_400, 24_000)]));
  assert.equal(wrapped.rateBps(0), a.rateBps(0));
});

test('bad parameters are refused with the field and the range', () => {
  assert.throws(() => rp({ eta: 1.5 }), /eta: expected a target utilisation 0 < η ≤ 1, got 1.5/);
  assert.throws(() => rp({ maxStage: -1 }), /maxStage: expected an integer ≥ 0/);
  assert.throws(() => rp({}, { windowBytes: 0 }), /window.bytes: expected a window ≥ 1 byte/);
});
