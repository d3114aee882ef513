import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PS_PER_MS, PS_PER_NS, PS_PER_US, Rng } from '@rocelab/sim';
import { dcqcnDefaults, DCQCN_VARIANTS, type DcqcnParams, type DcqcnVariant } from './dcqcn-params.js';
import { DcqcnReactionPoint } from './dcqcn-rp.js';

const G = 1e9;
const US = PS_PER_US;
const gbps3 = (bps: number): number => Math.round(bps / 1e6) / 1e3;

/**
 * The eager twin (DESIGN §3 "lazy = ticked"): fires every timer expiry one instant at a time,
 * as an event-driven model with periodic timers would, instead of skipping idle runs.
 */
class TickedReactionPoint extends DcqcnReactionPoint {
  protected override readonly lazy = false;

  override advance(nowPs: number): void {
    for (let t = this.nextTimerPs(); t !== null && t <= nowPs; t = this.nextTimerPs()) super.advance(t);
    super.advance(nowPs);
  }

  peekTimerPs(): number | null {
    return this.nextTimerPs();
  }
}

const snapshot = (rp: DcqcnReactionPoint, t: number) => ({
  rate: rp.rateBps(t),
  target: rp.targetRateBps(t),
  alpha: rp.alpha(t),
  next: rp.nextRateChangePs(),
  stats: { ...rp.stats },
});

test('PHYSICS §7a #1 hpcc-ns3, one CNP at 40G: α = (255/256)^4 at +4 µs, cut 1 ns later to 20.311, then FR, AI, HAI every 300 µs', () => {
  const rp = new DcqcnReactionPoint(dcqcnDefaults('hpcc-ns3', 40 * G), 40 * G);
  const t0 = 10 * US;
  rp.onCnp(t0);
  assert.equal(rp.alpha(t0 + 4 * US), 4228250625 / 4294967296); // 0.984466…
  assert.equal(rp.rateBps(t0 + 4 * US), 40 * G); // the check is 1 ns after the α update
  const cutPs = t0 + 4 * US + 1 * PS_PER_NS;
  assert.equal(rp.nextRateChangePs(), cutPs);
  assert.equal(gbps3(rp.rateBps(cutPs)), 20.311);
  assert.equal(rp.targetRateBps(cutPs), 40 * G); // stage 0: no clamp
  const expected = [30.155, 35.078, 37.539, 38.769, 39.385];
  let before = rp.rateBps(cutPs);
  for (const [i, gbps] of expected.entries()) {
    const at = cutPs + (i + 1) * 300 * US;
    assert.equal(rp.nextRateChangePs(), at);
    assert.equal(rp.rateBps(at - 1), before);
    before = rp.rateBps(at);
    assert.equal(gbps3(before), gbps);
    assert.equal(rp.targetRateBps(at), 40 * G);
  }
  assert.deepEqual(rp.stats, { cnps: 1, cuts: 1, increases: 5 });
});

test('PHYSICS §7a #2 hpcc-ns3, a CNP every µs: α stays 1 and each 4 µs check halves, 40 → … → 1.25 → 1.0 (floor) at the 6th', () => {
  const rp = new DcqcnReactionPoint(dcqcnDefaults('hpcc-ns3', 40 * G), 40 * G);
  const t0 = 10 * US;
  rp.onCnp(t0);
  // Each later CNP lands 1 ns before an α tick, so every period has seen one (α = (1 − g) + g = 1).
  const checks: number[] = [];
  for (let k = 1; k <= 30; k++) {
    rp.onCnp(t0 + k * US - 1 * PS_PER_NS);
    assert.equal(rp.alpha(t0 + k * US), 1);
    if (k % 4 !== 0) continue;
    const before = rp.rateBps(t0 + k * US);
    checks.push(rp.rateBps(t0 + k * US + 1 * PS_PER_NS));
    if (k === 24) assert.equal(before, 1.25 * G); // the 6th check, at +24 µs + 1 ns, floors it
  }
  assert.deepEqual(checks, [20 * G, 10 * G, 5 * G, 2.5 * G, 1.25 * G, 1 * G, 1 * G]);
  assert.equal(rp.targetRateBps(t0 + 30 * US), 40 * G); // no increase in between ⇒ never clamped
});

test('PHYSICS §7a #3 vendor: α = 1023 at the first CNP, a period with a CNP keeps 1023, one without gives 1018', () => {
  const rp = new DcqcnReactionPoint(dcqcnDefaults('vendor', 100 * G), 100 * G);
  const t0 = 10 * US;
  rp.onCnp(t0);
  assert.equal(rp.alpha(t0) * 1024, 1023);
  rp.onCnp(t0 + US / 2);
  assert.equal(rp.alpha(t0 + 1 * US) * 1024, 1023);
  assert.equal(rp.alpha(t0 + 2 * US) * 1024, 1018);
});

test('PHYSICS §7a #3 vendor cut: Rc = 100,000 Mb/s at α = 1023 → 50,049 Mb/s; the first CNP itself does not cut', () => {
  const rp = new DcqcnReactionPoint(dcqcnDefaults('vendor', 100 * G), 100 * G);
  const t0 = 10 * US;
  rp.onCnp(t0);
  assert.equal(rp.nextRateChangePs(), null); // no cut pending, Rc = Rt = line rate
  for (const half of [1, 3, 5, 7]) rp.onCnp(t0 + (half * US) / 2); // keep α at 1023
  assert.equal(rp.nextRateChangePs(), t0 + 4 * US);
  assert.equal(rp.rateBps(t0 + 4 * US - 1), 100 * G);
  // At +4 µs the check (armed 4 µs before) runs before the α tick (armed 1 µs before).
  assert.equal(rp.rateBps(t0 + 4 * US), 50_049e6);
  assert.deepEqual(rp.stats, { cnps: 5, cuts: 1, increases: 0 });
});

test('vendor: at +4 µs the decrease check (armed 4 µs before) cuts with the α of +3 µs, before that instant\'s α tick', () => {
  const rp = new DcqcnReactionPoint(dcqcnDefaults('vendor', 100 * G), 100 * G);
  const t0 = 10 * US;
  rp.onCnp(t0);
  rp.onCnp(t0 + US / 2); // α: 1023 at +1, 1018 at +2, 1013 at +3 µs; then 1008 at +4 µs
  // Check first: 100000 − ⌊100000·1013/2048⌋ = 50,538 Mb/s (α first would give 50,782).
  assert.equal(rp.rateBps(t0 + 4 * US), 50_538e6);
  assert.equal(rp.alpha(t0 + 4 * US) * 1024, 1008);
});

test('vendor, α decayed: CNPs every 4 µs take 40 Gb/s below 0.1 Gb/s in 1 ms; every 7 µs α stays ≤ 5/1024 and Rc above 30 Gb/s', () => {
  // The mechanism behind the slow decline in drill dcqcn-incast: under PFC each QP's CNPs come
  // every ~7 µs, and the fixed-point α (dcqcn-rate.test.ts) cannot grow, so a cut is ≤ 0.25 %.
  const run = (spacingUs: number) => {
    const rp = new DcqcnReactionPoint(dcqcnDefaults('vendor', 40 * G), 40 * G);
    rp.onCnp(0); // starts the timers; the first CNP does not cut
    const t0 = 1 * PS_PER_MS; // α decays to 0 meanwhile, Rc stays at line rate
    assert.equal(rp.alpha(t0), 0);
    let maxAlpha = 0;
    for (let t = t0; t <= t0 + PS_PER_MS; t += spacingUs * US) {
      maxAlpha = Math.max(maxAlpha, rp.alpha(t) * 1024);
      rp.onCnp(t);
    }
    return { rate: rp.rateBps(t0 + PS_PER_MS), maxAlpha };
  };
  const dense = run(4);
  const sparse = run(7);
  assert.ok(dense.rate < 0.1 * G && dense.maxAlpha > 200, JSON.stringify(dense));
  assert.ok(sparse.rate > 30 * G && sparse.maxAlpha <= 5, JSON.stringify(sparse));
});

test('rateOnFirstCnp: a fraction of line rate for Rc and Rt at the first CNP; 0 leaves them unchanged', () => {
  const rp = new DcqcnReactionPoint({ ...dcqcnDefaults('vendor', 100 * G), rateOnFirstCnp: 0.85 }, 100 * G);
  rp.onCnp(0);
  assert.equal(rp.rateBps(0), 85 * G);
  assert.equal(rp.targetRateBps(0), 85 * G);
  const unchanged = new DcqcnReactionPoint(dcqcnDefaults('vendor', 100 * G), 100 * G);
  unchanged.onCnp(0);
  assert.equal(unchanged.rateBps(0), 100 * G);
});

test('vendor: a single CNP leaves the QP at line rate for good', () => {
  const rp = new DcqcnReactionPoint(dcqcnDefaults('vendor', 40 * G), 40 * G);
  rp.onCnp(5 * US);
  rp.onBytesSent(6 * US, 50_000_000);
  assert.equal(rp.rateBps(1 * PS_PER_MS), 40 * G);
  assert.equal(rp.targetRateBps(1 * PS_PER_MS), 40 * G);
  assert.equal(rp.nextRateChangePs(), null);
  assert.equal(rp.stats.cuts, 0);
});

test('vendor byte counter: every 32767 × 64 B sent after a cut is one increase event', () => {
  const rp = new DcqcnReactionPoint(dcqcnDefaults('vendor', 40 * G), 40 * G);
  rp.onCnp(0);
  rp.onCnp(US / 2);
  const cutMbps = rp.rateBps(4 * US) / 1e6;
  assert.ok(cutMbps < 40_000);
  rp.onBytesSent(5 * US, 2_097_088 - 1);
  assert.equal(rp.rateBps(5 * US), cutMbps * 1e6);
  rp.onBytesSent(6 * US, 1);
  // ts = bs = 0 ⇒ fast recovery toward Rt = 40,000 (no clamp at the cut), in integer Mb/s.
  assert.equal(rp.rateBps(6 * US), Math.floor((cutMbps + 40_000) / 2) * 1e6);
  assert.equal(rp.stats.increases, 1);
});

test('paper: each CNP updates α first, then cuts (ZHU), so α = 0.5 gives Rc·(1 − 0.50195/2)', () => {
  const params: DcqcnParams = { ...dcqcnDefaults('paper', 40 * G), initialAlpha: 0.5 };
  const rp = new DcqcnReactionPoint(params, 40 * G);
  rp.onCnp(10 * US);
  const alpha = 0.5 * (255 / 256) + 1 / 256;
  assert.equal(rp.alpha(10 * US), alpha);
  assert.equal(rp.rateBps(10 * US), 29_960_937_500); // 40 G × (1 − 0.2509765625); cut-then-α would give 30 G
  rp.onCnp(20 * US);
  const alpha2 = (1 - 1 / 256) * alpha + 1 / 256;
  assert.equal(rp.rateBps(20 * US), Math.trunc(29_960_937_500 * (1 - alpha2 / 2)));
  assert.equal(rp.targetRateBps(20 * US), 29_960_937_500); // clamped to Rc before the cut
  assert.deepEqual(rp.stats, { cnps: 2, cuts: 2, increases: 0 });
});

test('paper byte counter: an increase every B bytes after a CNP, the excess carried into the next period', () => {
  const rp = new DcqcnReactionPoint({ ...dcqcnDefaults('paper', 40 * G), byteCounterBytes: 100_000 }, 40 * G);
  rp.onCnp(0);
  assert.equal(rp.rateBps(0), 20 * G);
  rp.onBytesSent(1 * US, 99_999);
  assert.equal(rp.stats.increases, 0);
  rp.onBytesSent(2 * US, 100_001); // completes the first period and carries 100,000 B: a second event
  assert.equal(rp.stats.increases, 2);
  // Two fast-recovery steps toward Rt = 40 G (byteStage 1, 2 < F = 5): 30 G, then 35 G.
  assert.equal(rp.rateBps(2 * US), 35 * G);
});

test('paper: the α-decay timer restarts at every CNP, so α decays only after 55 µs without one', () => {
  const rp = new DcqcnReactionPoint(dcqcnDefaults('paper', 40 * G), 40 * G);
  rp.onCnp(0);
  rp.onCnp(50 * US);
  const alpha = rp.alpha(50 * US);
  assert.equal(rp.alpha(105 * US - 1), alpha);
  assert.equal(rp.alpha(105 * US), (1 - 1 / 256) * alpha);
  assert.equal(rp.alpha(160 * US), (1 - 1 / 256) * ((1 - 1 / 256) * alpha));
});

test('hpcc-ns3: an increase due with a decrease check runs first (armed earlier), so that cut clamps Rt', () => {
  const rp = new DcqcnReactionPoint(dcqcnDefaults('hpcc-ns3', 40 * G), 40 * G);
  const t0 = 10 * US;
  rp.onCnp(t0);
  const cutPs = t0 + 4 * US + 1 * PS_PER_NS;
  const first = rp.rateBps(cutPs);
  rp.onCnp(cutPs + 299 * US); // pending for the check at cutPs + 300 µs, where the FR increase is also due
  const recovered = Math.floor(first / 2) + 20 * G;
  assert.equal(rp.targetRateBps(cutPs + 300 * US), recovered); // stage 1 ⇒ Rt ← Rc after the increase
  assert.ok(rp.rateBps(cutPs + 300 * US) < recovered);
  // The increase timer restarts from this cut: next event at +600 µs, not … +300 µs later than the old phase.
  assert.equal(rp.nextRateChangePs(), cutPs + 600 * US);
});

test('nextRateChangePs names the instant the rate next moves, and no timer before it moves the rate', () => {
  for (const variant of DCQCN_VARIANTS) {
    const rp = new TickedReactionPoint(dcqcnDefaults(variant, 40 * G), 40 * G);
    for (const t of [0, 1, 2, 3, 9].map((u) => u * US)) rp.onCnp(t);
    let now = 10 * US;
    // paper clamps Rt at every CNP and, with no bytes sent, climbs back 40 Mb/s per 55 µs: ~900 events.
    for (let round = 0; round < 2000; round++) {
      const next = rp.nextRateChangePs();
      if (next === null) break;
      const rate = rp.rateBps(now);
      const cuts = rp.stats.cuts;
      for (let t = rp.peekTimerPs(); t !== null && t < next; t = rp.peekTimerPs()) assert.equal(rp.rateBps(t), rate, `${variant} at ${t}`);
      assert.ok(rp.rateBps(next) !== rate || rp.stats.cuts > cuts, `${variant}: nothing changed at ${next}`);
      now = next;
    }
    assert.equal(rp.nextRateChangePs(), null, `${variant} recovers and goes quiet`);
    // Quiet means quiet: a second of timers later the rate is where it was.
    const settled = rp.rateBps(now);
    assert.equal(rp.rateBps(now + 20 * PS_PER_MS), settled);
  }
});

test('before the first CNP a QP runs at line rate, α at its initial value, and nothing is scheduled', () => {
  for (const variant of DCQCN_VARIANTS) {
    const p = dcqcnDefaults(variant, 25 * G);
    const rp = new DcqcnReactionPoint(p, 25 * G);
    rp.onBytesSent(1 * US, 100_000_000);
    assert.equal(rp.rateBps(3 * PS_PER_MS), 25 * G);
    assert.equal(rp.alpha(3 * PS_PER_MS), p.initialAlpha);
    assert.equal(rp.nextRateChangePs(), null);
  }
});

test('time never runs backwards', () => {
  const rp = new DcqcnReactionPoint(dcqcnDefaults('vendor', 40 * G), 40 * G);
  rp.advance(10 * US);
  assert.throws(() => rp.rateBps(9 * US), RangeError);
  assert.throws(() => rp.advance(1.5), RangeError);
  assert.throws(() => rp.onBytesSent(11 * US, -1), RangeError);
});

// ---- Lazy = ticked (DESIGN §3) ----

type Event = { t: number; kind: 'cnp' } | { t: number; kind: 'bytes'; bytes: number };

/** Congestion episodes of scattered CNPs and bursty traffic over `endPs`, from a seeded stream. */
function scenario(seed: number, endPs: number): Event[] {
  const rng = new Rng(seed, 'dcqcn-rp.test', 'scenario');
  const events: Event[] = [];
  for (let episode = 0; episode < 8; episode++) {
    let t = rng.uniformInt(0, endPs);
    const count = rng.uniformInt(1, 25);
    for (let i = 0; i < count && t < endPs; i++, t += rng.uniformInt(200_000, 12 * US)) events.push({ t, kind: 'cnp' });
  }
  for (let t = rng.uniformInt(0, 20 * US); t < endPs; t += rng.uniformInt(1 * US, 60 * US)) {
    events.push({ t, kind: 'bytes', bytes: rng.uniformInt(16_000, 256_000) });
  }
  return events.sort((a, b) => a.t - b.t);
}

/** Default profiles plus short timers and small byte counters that reach every stage in 2 ms. */
const CASES: Array<[string, DcqcnVariant, Partial<DcqcnParams>]> = [
  ['vendor', 'vendor', {}],
  ['paper', 'paper', {}],
  ['hpcc-ns3', 'hpcc-ns3', {}],
  ['vendor, fast timers', 'vendor', { rateIncreaseTimerPs: 37 * US, byteCounterBytes: 150_000, clampTargetRate: true }],
  ['paper, fast timers', 'paper', { rateIncreaseTimerPs: 21 * US, alphaPeriodPs: 13 * US, byteCounterBytes: 300_000, clampTargetRate: false, clampTargetAfterTimeIncrease: true }],
  ['hpcc-ns3, fast timers', 'hpcc-ns3', { rateIncreaseTimerPs: 29 * US, fastRecoverySteps: 3, rateDecreasePeriodPs: 3 * US }],
];

test('lazy = ticked: 2 ms of CNPs and traffic give bit-identical rate, target and α after every CNP and at the end', () => {
  const endPs = 2 * PS_PER_MS;
  for (const [name, variant, overrides] of CASES) {
    for (const seed of [1, 2, 3]) {
      const params = { ...dcqcnDefaults(variant, 40 * G), ...overrides };
      const lazy = new DcqcnReactionPoint(params, 40 * G);
      const ticked = new TickedReactionPoint(params, 40 * G);
      for (const ev of scenario(seed, endPs)) {
        if (ev.kind === 'bytes') {
          lazy.onBytesSent(ev.t, ev.bytes);
          ticked.onBytesSent(ev.t, ev.bytes);
          continue;
        }
        lazy.onCnp(ev.t);
        ticked.onCnp(ev.t);
        assert.deepEqual(snapshot(lazy, ev.t), snapshot(ticked, ev.t), `${name}, seed ${seed}, CNP at ${ev.t} ps`);
      }
      assert.deepEqual(snapshot(lazy, endPs), snapshot(ticked, endPs), `${name}, seed ${seed}, end`);
      // A long idle tail: α decays to its fixed point, recovery settles, checks find no CNP.
      const idlePs = endPs + 250 * PS_PER_MS;
      assert.deepEqual(snapshot(lazy, idlePs), snapshot(ticked, idlePs), `${name}, seed ${seed}, idle`);
    }
  }
});

test('rates stay between the minimum and line rate through random congestion', () => {
  for (const [name, variant, overrides] of CASES) {
    const params = { ...dcqcnDefaults(variant, 40 * G), ...overrides };
    const rp = new DcqcnReactionPoint(params, 40 * G);
    let cuts = 0;
    for (const ev of scenario(7, 2 * PS_PER_MS)) {
      if (ev.kind === 'cnp') rp.onCnp(ev.t);
      else rp.onBytesSent(ev.t, ev.bytes);
      const rate = rp.rateBps(ev.t);
      assert.ok(rate >= params.minRateBps && rate <= 40 * G, `${name}: Rc ${rate} at ${ev.t}`);
      // paper keeps Rt uncapped like ZHU and HTSIM; the others cap it at line rate.
      if (variant !== 'paper') assert.ok(rp.targetRateBps(ev.t) <= 40 * G, `${name}: Rt at ${ev.t}`);
      cuts = rp.stats.cuts;
    }
    assert.ok(cuts > 0, `${name} saw cuts`);
  }
});

test('an idle QP is cheap: ten virtual seconds after an episode take one call', () => {
  for (const variant of DCQCN_VARIANTS) {
    const rp = new DcqcnReactionPoint(dcqcnDefaults(variant, 100 * G), 100 * G);
    for (let k = 0; k < 20; k++) rp.onCnp(k * 2 * US);
    assert.ok(rp.rateBps(10_000 * PS_PER_MS) > 99 * G, variant);
    assert.equal(rp.nextRateChangePs(), null, variant);
  }
});
