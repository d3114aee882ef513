import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PS_PER_US, Rng } from '@rocelab/sim';
import { checkDctcpParams, DCTCP_DEFAULTS, DCTCP_KEYS, DCTCP_RUN_PY, dctcpAck, DctcpRp, type DctcpParams, type DctcpState } from './dctcp.js';

const G = 1e9;
const M = 1e6;
const MTU = 1000; // HPCC PACKET_PAYLOAD_SIZE

/** One ACK per microsecond. */
class Driver {
  nowPs = 0;
  constructor(readonly rp: DctcpRp) {}
  ack(ackedBytes: number, nextSendBytes: number, ecnEcho: boolean): number {
    this.nowPs += PS_PER_US;
    this.rp.onAck(this.nowPs, { nowPs: this.nowPs, ackedBytes, nextSendBytes, ecnEcho, hops: [], sentTsPs: null });
    return this.rp.rateBps(this.nowPs);
  }
}

test('DCTCP defaults are mix/config.txt (g 1/256, DCTCP_RATE_AI 1000Mb/s, MIN_RATE 100Mb/s); run.py --cc dctcp differs', () => {
  assert.deepEqual({ ...DCTCP_DEFAULTS }, { g: 0.00390625, aiRateBps: 1000 * M, minRateBps: 100 * M });
  assert.deepEqual({ ...DCTCP_RUN_PY }, { g: 0.0625, aiRateBps: 615 * M, minRateBps: 1 * G });
  assert.deepEqual(checkDctcpParams(DCTCP_DEFAULTS, 25 * G), []);
  assert.deepEqual(checkDctcpParams(DCTCP_RUN_PY, 25 * G), []);
});

test('bad DCTCP params: each problem names the field, what was expected and what was found; the constructor refuses them', () => {
  const bad: DctcpParams = { g: 1.5, aiRateBps: -1, minRateBps: 0 };
  assert.deepEqual(checkDctcpParams(bad, 40 * G), [
    { field: 'g', expected: 'a gain in (0, 1]', actual: 1.5 },
    { field: 'aiRateBps', expected: 'a rate 0 bit/s .. line rate', actual: -1 },
    { field: 'minRateBps', expected: '1 bit/s .. line rate', actual: 0 },
  ]);
  assert.throws(() => new DctcpRp(bad, 40 * G, MTU), /DCTCP reaction point: line rate 40000000000 bit\/s; g: expected a gain in \(0, 1\], got 1.5/);
  assert.throws(() => new DctcpRp(DCTCP_DEFAULTS, 40 * G, 0), /payloadBytes: expected an integer ≥ 1 \(data bytes per packet\), got 0/);
});

test('DCTCP trace at 40G: the first echo cuts by α/2 = 1/2; CWR holds until ack passes snd_nxt; a window with 3 of 11 marked gives α = 351/352', () => {
  const d = new Driver(new DctcpRp(DCTCP_DEFAULTS, 40 * G, MTU));
  // #1 ack 1000, snd_nxt 10000, marked. First window: m_lastUpdateSeq = 10000, batch = ⌊10000/1000⌋ + 1
  // = 11; the count (1) is not reset. Not in CWR, so cut: 40·(1 − 1/2) = 20 Gb/s; CWR up to 10000.
  assert.equal(d.ack(1000, 10_000, true), 20 * G);
  assert.deepEqual(d.rp.state(), { rateBps: 20 * G, lastUpdateSeq: 10_000, cwr: true, highSeq: 10_000, alpha: 1, ecnCount: 1, batchPackets: 11 });
  // #2–#10 acks 2000..10000 (not beyond 10000: same window, still CWR), two of them marked: no cut, no increase.
  for (let a = 2000; a <= 10_000; a += 1000) assert.equal(d.ack(a, 20_000, a === 3000 || a === 5000), 20 * G);
  assert.equal(d.rp.state().ecnCount, 3);
  // #11 ack 11000 > 10000 closes the window: F = 3/11, α = (255/256)·1 + (1/256)·(3/11) = 1 − 8/2816 = 351/352;
  // next batch = ⌊(20000 − 11000)/1000⌋ + 1 = 10. 11000 > highSeq leaves CWR; unmarked, so + 1 Gb/s = 21 Gb/s.
  assert.equal(d.ack(11_000, 20_000, false), 21 * G);
  assert.deepEqual(d.rp.state(), { rateBps: 21 * G, lastUpdateSeq: 20_000, cwr: false, highSeq: 10_000, alpha: 351 / 352, ecnCount: 0, batchPackets: 10 });
  // #12 marked, outside CWR: 21e9·(1 − 351/704) = 21e9·353/704 = 10,529,829,545.45…, truncated.
  assert.equal(d.ack(12_000, 20_000, true), 10_529_829_545);
  assert.equal(d.rp.state().highSeq, 20_000);
  assert.deepEqual(d.rp.stats, { acks: 12, ecnEchoes: 4, alphaUpdates: 1, cuts: 2, increases: 1 });
});

test('DCTCP, k of n ACKs marked: F = min(1, k/n) with n the window in packets; more echoes than packets count as 1', () => {
  const s: DctcpState = { rateBps: 10 * G, lastUpdateSeq: 50_000, cwr: true, highSeq: 60_000, alpha: 0.5, ecnCount: 4, batchPackets: 8 };
  // ack 51000 closes the window with 4 of 8 marked: α = (255/256)·0.5 + (1/256)·0.5 = 0.5. Still CWR (51000 ≤ 60000).
  const half = dctcpAck(s, { ackedBytes: 51_000, nextSendBytes: 58_000, ecnEcho: false }, DCTCP_DEFAULTS, 40 * G, MTU);
  assert.deepEqual(half.state, { ...s, lastUpdateSeq: 58_000, ecnCount: 0, batchPackets: 8 });
  assert.deepEqual([half.cut, half.increased], [false, false]);
  // 12 echoes for 8 packets: F = 1; with g = 1/16: α = (15/16)·0.5 + 1/16 = 0.53125.
  const over = dctcpAck({ ...s, ecnCount: 12 }, { ackedBytes: 51_000, nextSendBytes: 58_000, ecnEcho: false }, { ...DCTCP_DEFAULTS, g: 1 / 16 }, 40 * G, MTU);
  assert.equal(over.state.alpha, 0.53125);
  // none marked with g = 1/16: α = (15/16)·0.5 = 0.46875.
  const none = dctcpAck({ ...s, ecnCount: 0 }, { ackedBytes: 51_000, nextSendBytes: 58_000, ecnEcho: false }, { ...DCTCP_DEFAULTS, g: 1 / 16 }, 40 * G, MTU);
  assert.equal(none.state.alpha, 0.46875);
});

test('DCTCP min-rate floor: every window marked keeps α = 1 and halves the rate down to MinRate; then + ai per clean window up to line rate', () => {
  const d = new Driver(new DctcpRp({ ...DCTCP_DEFAULTS, minRateBps: 3 * G }, 40 * G, MTU));
  // Each ACK acks everything sent (snd_nxt = ack): the window after the first is ⌊0/1000⌋ + 1 = 1 packet,
  // F = 1/1 and α = (255/256)·1 + 1/256 = 1. Each ACK passes highSeq, so each marked one cuts.
  const cuts = [1, 2, 3, 4, 5, 6].map((k) => d.ack(k * 1000, k * 1000, true));
  assert.deepEqual(cuts, [20 * G, 10 * G, 5 * G, 3 * G, 3 * G, 3 * G]);
  assert.equal(d.rp.state().alpha, 1);
  // Clean ACKs: each closes a window and leaves CWR, α decays by 255/256 and the rate grows 1 Gb/s.
  const ups = [7, 8, 9].map((k) => d.ack(k * 1000, k * 1000, false));
  assert.deepEqual(ups, [4 * G, 5 * G, 6 * G]);
  assert.equal(d.rp.state().alpha, (255 / 256) ** 3);
  for (let k = 10; k < 60; k++) d.ack(k * 1000, k * 1000, false);
  assert.equal(d.rp.rateBps(d.nowPs), 40 * G);
});

test('DCTCP ignores CNP packets and bytes sent; no timer and no window of its own', () => {
  const rp = new DctcpRp(DCTCP_DEFAULTS, 40 * G, MTU);
  rp.onCnp(PS_PER_US);
  rp.onBytesSent(PS_PER_US, 4096);
  assert.deepEqual([rp.kind, rp.rateBps(PS_PER_US), rp.nextRateChangePs(), rp.windowBytes()], ['dctcp', 40 * G, null, null]);
  assert.throws(() => rp.onCnp(0), /before/);
  assert.throws(() => rp.onBytesSent(2 * PS_PER_US, -1), /bytes sent/);
});

test('DCTCP property: over random ACK streams the rate stays in [MinRate, line rate], and the same inputs give the same rates', () => {
  for (const seed of [1, 2, 3]) {
    const run = (): number[] => {
      const rng = new Rng(seed, 'dctcp', 'test');
      const d = new Driver(new DctcpRp(DCTCP_RUN_PY, 100 * G, MTU));
      const rates: number[] = [];
      let acked = 0;
      let sndNxt = 0;
      for (let i = 0; i < 3000; i++) {
        sndNxt += MTU * rng.uniformInt(0, 3);
        acked = Math.min(sndNxt, acked + MTU * rng.uniformInt(0, 2));
        const rate = d.ack(acked, sndNxt, rng.bernoulli(0.3));
        assert.ok(rate >= 1 * G && rate <= 100 * G, `rate ${rate} out of range at step ${i}`);
        rates.push(rate);
      }
      return rates;
    };
    assert.deepEqual(run(), run());
  }
});

test('DCTCP: an ACK beyond snd_nxt (after a go-back-N rewind) opens a one-packet window, not a negative one', () => {
  const s: DctcpState = { rateBps: 10 * G, lastUpdateSeq: 5000, cwr: false, highSeq: 0, alpha: 1, ecnCount: 0, batchPackets: 4 };
  const r = dctcpAck(s, { ackedBytes: 8000, nextSendBytes: 6000, ecnEcho: false }, DCTCP_DEFAULTS, 40 * G, MTU);
  assert.equal(r.state.batchPackets, 1);
});

test('DCTCP_KEYS maps every param once', () => {
  assert.deepEqual(Object.values(DCTCP_KEYS).map((k) => k.param).sort(), Object.keys(DCTCP_DEFAULTS).sort());
});
