import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PS_PER_US, Rng } from '@rocelab/sim';
import { checkTimelyParams, TIMELY_DEFAULTS, TIMELY_KEYS, timelyRunPyParams, timelyUpdate, TimelyRp, type TimelyParams, type TimelyState } from './timely.js';

const G = 1e9;
const M = 1e6;
const US = PS_PER_US;

/** A driver that sends one ACK per call, every 10 µs, each acking past the last update (a full update). */
class Driver {
  nowPs = 0;
  acked = 0;
  constructor(readonly rp: TimelyRp) {}
  /** An ACK 10 µs later whose data packet left rttUs ago, acking 1000 B past the last update; snd_nxt runs 9000 B ahead. */
  ack(rttUs: number): number {
    return this.raw(Math.max(this.acked, this.rp.state().lastUpdateSeq) + 1000, rttUs);
  }
  raw(ackedBytes: number, rttUs: number): number {
    this.nowPs += 10 * US;
    this.acked = Math.max(this.acked, ackedBytes);
    this.rp.onAck(this.nowPs, { nowPs: this.nowPs, ackedBytes, nextSendBytes: this.acked + 9000, ecnEcho: false, hops: [], sentTsPs: this.nowPs - rttUs * US });
    return this.rp.rateBps(this.nowPs);
  }
}

test('TIMELY defaults are the rdma-hw.cc attributes and mix/config.txt rates; run.py scales AI/HAI with the link', () => {
  assert.deepEqual(
    [TIMELY_DEFAULTS.tLowPs, TIMELY_DEFAULTS.tHighPs, TIMELY_DEFAULTS.minRttPs, TIMELY_DEFAULTS.alpha, TIMELY_DEFAULTS.beta],
    [50 * US, 500 * US, 20 * US, 0.875, 0.8],
  );
  assert.deepEqual([TIMELY_DEFAULTS.aiRateBps, TIMELY_DEFAULTS.haiRateBps, TIMELY_DEFAULTS.haiRounds, TIMELY_DEFAULTS.minRateBps], [50 * M, 100 * M, 5, 100 * M]);
  // run.py --cc timely at bw = 50: ai = 10·50/10 = 50 Mb/s, hai = 50·50/10 = 250 Mb/s; MIN_RATE 1000Mb/s.
  const p50 = timelyRunPyParams(50 * G);
  assert.deepEqual([p50.aiRateBps, p50.haiRateBps, p50.minRateBps], [50 * M, 250 * M, 1 * G]);
  assert.deepEqual(checkTimelyParams(TIMELY_DEFAULTS, 40 * G), []);
  assert.deepEqual(checkTimelyParams(timelyRunPyParams(100 * G), 100 * G), []);
});

test('bad TIMELY params: each problem names the field, what was expected and what was found; the constructor refuses them', () => {
  const bad: TimelyParams = { ...TIMELY_DEFAULTS, tHighPs: 10 * US, alpha: 0, haiRounds: 1.5, minRateBps: 50 * G };
  const problems = checkTimelyParams(bad, 40 * G);
  assert.deepEqual(
    problems.map((p) => p.field),
    ['tHighPs', 'alpha', 'haiRounds', 'minRateBps'],
  );
  assert.deepEqual(problems[0], { field: 'tHighPs', expected: 'a time > 0 and ≥ tLowPs (integer picoseconds)', actual: 10 * US });
  assert.equal(problems[3]!.expected, '1 bit/s .. line rate');
  assert.throws(() => new TimelyRp(bad, 40 * G), /TIMELY reaction point: line rate 40000000000 bit\/s; tHighPs: expected .*alpha: expected an EWMA weight in \(0, 1\], got 0/);
  assert.throws(() => new TimelyRp(TIMELY_DEFAULTS, 0), /line rate 0 bit\/s/);
});

test('TIMELY trace at 40G: first RTT only records; ACKs inside the RTT do nothing; > tHigh cuts by β(1 − tHigh/rtt); < tLow adds RateAI', () => {
  const d = new Driver(new TimelyRp(TIMELY_DEFAULTS, 40 * G));
  // #1 rtt 30 µs, the first full update: m_lastUpdateSeq was 0, so only lastRtt = 30 µs and
  // m_lastUpdateSeq = snd_nxt = 1000 + 9000 = 10000 are recorded.
  assert.equal(d.ack(30), 40 * G);
  assert.deepEqual(d.rp.state(), { rateBps: 40 * G, lastUpdateSeq: 10_000, incStage: 0, lastRttPs: 30 * US, rttDiffPs: 0 });
  // #2 ack_seq 5000 ≤ 10000: FastReactTimely, empty, whatever the RTT.
  assert.equal(d.raw(5000, 5000), 40 * G);
  assert.equal(d.rp.stats.fastReacts, 1);
  // #3 ack 10000 is not > 10000 either (strict).
  d.raw(10_000, 5000);
  assert.equal(d.rp.stats.fastReacts, 2);
  // #4 ack 11000, rtt 600 µs > tHigh: new diff 570 µs, rttDiff = 0.125·0 + 0.875·570 = 498.75 µs;
  // c = 1 − 0.8·(1 − 500/600) = 13/15, rate = ⌊40e9·13/15⌋ = 34,666,666,666.
  assert.equal(d.ack(600), 34_666_666_666);
  assert.equal(d.rp.state().rttDiffPs, 498.75 * US);
  // #5 rtt 40 µs < tLow: new diff −560, rttDiff = 0.125·498.75 − 0.875·560 = −427.65625 µs; + 50 Mb/s.
  assert.equal(d.ack(40), 34_716_666_666);
  assert.equal(d.rp.state().rttDiffPs, -427.65625 * US);
  // #6 rtt 100 µs, in band: new diff +60, rttDiff = 0.125·(−427.65625) + 0.875·60 = −0.95703125 µs
  // ≤ 0, so the gradient −0.0479 increases: + 50 Mb/s.
  assert.equal(d.ack(100), 34_766_666_666);
  assert.equal(d.rp.state().rttDiffPs, -0.95703125 * US);
  assert.deepEqual(d.rp.stats, { updates: 4, increases: 2, haiIncreases: 0, decreases: 1, fastReacts: 2, untimedAcks: 0 });
});

test('TIMELY positive gradient: rate × (1 − β·rttDiff/minRtt), with rttDiff an EWMA of per-RTT differences', () => {
  const d = new Driver(new TimelyRp(TIMELY_DEFAULTS, 40 * G));
  d.ack(100);
  // rtt 116: new diff 16 µs, rttDiff = 0.875·16 = 14 µs, gradient 14/20 = 0.7, c = 1 − 0.56 = 0.44: 40e9·0.44 = 17.6e9.
  assert.equal(d.ack(116), 17.6 * G);
  // rtt 116 again: new diff 0, rttDiff = 0.125·14 = 1.75 µs, gradient 0.0875, c = 0.93: 17.6e9·0.93 = 16.368e9.
  assert.equal(d.ack(116), 16_368_000_000);
  // once more: rttDiff = 0.21875 µs, gradient 0.0109375, c = 0.99125: 16.368e9·0.99125 = 16,224,780,000.
  assert.equal(d.ack(116), 16_224_780_000);
  // rtt 100: new diff −16, rttDiff = 0.125·0.21875 − 14 = −13.97265625 µs ≤ 0: + 50 Mb/s.
  assert.equal(d.ack(100), 16_274_780_000);
  assert.equal(d.rp.state().rttDiffPs, -13.97265625 * US);
});

test('TIMELY gradient above 1/β: c clamps at 0 and the rate stops at MinRate', () => {
  const d = new Driver(new TimelyRp(TIMELY_DEFAULTS, 40 * G));
  d.ack(60);
  // rtt 90: rttDiff = 0.875·30 = 26.25 µs, gradient 1.3125, 1 − 0.8·1.3125 = −0.05 → 0; max(100 Mb/s, 0).
  assert.equal(d.ack(90), 100 * M);
  // in band, gradient still > 0 (rttDiff = 0.125·26.25 = 3.28 µs): 100e6·(1 − 0.8·0.1640625) = 86.9 Mb/s, floored to 100 Mb/s.
  assert.equal(d.ack(90), 100 * M);
});

test('TIMELY hyper-additive increase: after haiRounds (5) consecutive increases the step is RateHAI; any decrease resets the count', () => {
  const d = new Driver(new TimelyRp(TIMELY_DEFAULTS, 40 * G));
  d.ack(40);
  // rtt 1000 > tHigh: c = 1 − 0.8·(1 − 0.5) = 0.6 → 24 Gb/s.
  assert.equal(d.ack(1000), 24 * G);
  // five increases at + 50 Mb/s (incStage 0..4), then + 100 Mb/s (incStage ≥ 5).
  const got = Array.from({ length: 7 }, () => d.ack(40));
  assert.deepEqual(got, [24.05, 24.1, 24.15, 24.2, 24.25, 24.35, 24.45].map((g) => Math.round(g * 1e3) * M));
  assert.equal(d.rp.state().incStage, 7);
  // a decrease: ⌊24.45e9·0.6⌋ = 14.67e9, incStage 0, so the next increase is + 50 Mb/s again.
  assert.equal(d.ack(1000), 14.67 * G);
  assert.equal(d.ack(40), 14.72 * G);
  assert.deepEqual([d.rp.stats.increases, d.rp.stats.haiIncreases, d.rp.stats.decreases], [6, 2, 2]);
});

test('TIMELY haiRounds is the N of the paper: with N = 2 the third consecutive increase is hyper', () => {
  const d = new Driver(new TimelyRp({ ...TIMELY_DEFAULTS, haiRounds: 2 }, 40 * G));
  d.ack(40);
  d.ack(1000); // 24 Gb/s
  assert.deepEqual([d.ack(40), d.ack(40), d.ack(40)], [24.05 * G, 24.1 * G, 24.2 * G]);
});

test('TIMELY below tLow increases even on a rising RTT (rdma-hw.cc, as in Algorithm 1), and increases stop at line rate', () => {
  const s: TimelyState = { rateBps: 10 * G, lastUpdateSeq: 1000, incStage: 0, lastRttPs: 20 * US, rttDiffPs: 0 };
  // rtt 45 µs < tLow: gradient 0.875·25/20 = 1.09 > 0 would cut, but tLow comes first.
  const up = timelyUpdate(s, 45 * US, 2000, TIMELY_DEFAULTS, 40 * G);
  assert.equal(up.decision, 'increase');
  assert.deepEqual(up.state, { rateBps: 10.05 * G, lastUpdateSeq: 2000, incStage: 1, lastRttPs: 45 * US, rttDiffPs: 21.875 * US });
  const capped = timelyUpdate({ ...s, rateBps: 39.99 * G }, 45 * US, 2000, TIMELY_DEFAULTS, 40 * G);
  assert.equal(capped.state.rateBps, 40 * G);
});

test('TIMELY: ACKs without an echoed timestamp are counted and ignored; an echo from the future or time going back is refused', () => {
  const rp = new TimelyRp(TIMELY_DEFAULTS, 40 * G);
  rp.onAck(10 * US, { nowPs: 10 * US, ackedBytes: 1000, nextSendBytes: 2000, ecnEcho: true, hops: [], sentTsPs: null });
  assert.equal(rp.stats.untimedAcks, 1);
  assert.equal(rp.state().lastUpdateSeq, 0);
  assert.throws(() => rp.onAck(20 * US, { nowPs: 20 * US, ackedBytes: 1000, nextSendBytes: 2000, ecnEcho: false, hops: [], sentTsPs: 21 * US }), /echoed send time/);
  assert.throws(() => rp.rateBps(5 * US), /before/);
  rp.onCnp(30 * US);
  rp.onBytesSent(30 * US, 1000);
  assert.deepEqual([rp.kind, rp.rateBps(30 * US), rp.nextRateChangePs(), rp.windowBytes()], ['timely', 40 * G, null, null]);
});

test('TIMELY property: over random RTT traces the rate stays in [MinRate, line rate], and the same inputs give the same rates', () => {
  for (const seed of [1, 2, 3]) {
    const run = (): number[] => {
      const rng = new Rng(seed, 'timely', 'test');
      const d = new Driver(new TimelyRp(timelyRunPyParams(100 * G), 100 * G));
      const rates: number[] = [];
      for (let i = 0; i < 2000; i++) {
        const rate = rng.bernoulli(0.2) ? d.raw(d.acked, rng.uniformInt(1, 900)) : d.ack(rng.uniformInt(1, 900));
        assert.ok(rate >= 1 * G && rate <= 100 * G, `rate ${rate} out of range at step ${i}`);
        rates.push(rate);
      }
      return rates;
    };
    assert.deepEqual(run(), run());
  }
});

test('TIMELY_KEYS maps every param once', () => {
  assert.deepEqual(Object.values(TIMELY_KEYS).map((k) => k.param).sort(), Object.keys(TIMELY_DEFAULTS).sort());
});
