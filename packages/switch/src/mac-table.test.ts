import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_TIME_PS, PS_PER_S } from '@rocelab/sim';
import { ARP_AGEING_PS, MAC_AGEING_PS } from './defaults.js';
import { L2Tables, type L2Config } from './mac-table.js';

const H1_IP = 0x0a00010b; // 10.0.1.11
const H2_IP = 0x0a00010c; // 10.0.1.12
const H1_MAC = 0x02_00_00_00_01_0b;
const H2_MAC = 0x02_00_00_00_01_0c;
const MIN = 60 * PS_PER_S;
const MAC_AGEING = 5 * MIN;
/** The shipped ToR: defaults.ts ageing; flooding lossless packets is the out-of-the-box behaviour the deadlock drill needs. */
const L2_DEFAULTS: L2Config = { arpAgeingPs: ARP_AGEING_PS, macAgeingPs: MAC_AGEING_PS, losslessFlood: 'flood' };

/** H1 resolved by ARP at t = 0 and seen on port 3 at `learnedAtPs`. */
function tor(learnedAtPs = 0, config = L2_DEFAULTS): L2Tables {
  const l2 = new L2Tables(config);
  l2.setArp(0, H1_IP, H1_MAC);
  l2.learn(learnedAtPs, H1_MAC, 3);
  return l2;
}

test('defaults.ts ageing: ARP 4 h, MAC 5 min (DESIGN §5, Guo et al.)', () => {
  assert.deepEqual([ARP_AGEING_PS, MAC_AGEING_PS], [4 * 3600 * PS_PER_S, MAC_AGEING]);
});

test('a learned MAC sends unicast to its port; arpMac gives the MAC for rewriting', () => {
  const l2 = tor();
  assert.deepEqual(l2.lookup(1, H1_IP, true), { kind: 'unicast', port: 3 });
  assert.deepEqual(l2.lookup(1, H1_IP, false), { kind: 'unicast', port: 3 });
  assert.equal(l2.arpMac(1, H1_IP), H1_MAC);
  assert.equal(l2.arpMac(1, H2_IP), null);
  assert.equal(l2.macEntries(1), 1);
});

test('a MAC entry is valid while now < learnedAt + 5 min: unicast 1 ps before, flood at that instant', () => {
  const learnedAt = 7 * PS_PER_S;
  const l2 = tor(learnedAt);
  assert.deepEqual(l2.lookup(learnedAt + MAC_AGEING - 1, H1_IP, false), { kind: 'unicast', port: 3 });
  assert.deepEqual(l2.lookup(learnedAt + MAC_AGEING, H1_IP, false), { kind: 'flood' });
  assert.equal(l2.macEntries(learnedAt + MAC_AGEING), 0);
});

test('traffic refreshes the MAC entry: the lifetime restarts at the last frame seen', () => {
  const l2 = tor(0);
  l2.learn(4 * MIN, H1_MAC, 3); // a frame from H1 at 4 min ⇒ valid until 9 min
  assert.deepEqual(l2.lookup(5 * MIN, H1_IP, false), { kind: 'unicast', port: 3 }); // the first lifetime would have ended here
  assert.deepEqual(l2.lookup(9 * MIN - 1, H1_IP, false), { kind: 'unicast', port: 3 });
  assert.deepEqual(l2.lookup(9 * MIN, H1_IP, false), { kind: 'flood' });
});

test('ARP outlives MAC (4 h vs 5 min): a quiet host still resolves but its port is forgotten ⇒ flood', () => {
  const l2 = tor(0);
  const later = 30 * MIN; // ARP learned at 0 lives to 4 h; MAC learned at 0 died at 5 min
  assert.equal(l2.arpMac(later, H1_IP), H1_MAC);
  assert.deepEqual(l2.lookup(later, H1_IP, true), { kind: 'flood' });
  // Within any run the 4 h ARP entry never ages: runs end by MAX_TIME_PS (2^53 ps ≈ 2.5 h).
  assert.equal(l2.arpMac(MAX_TIME_PS, H1_IP), H1_MAC);
});

test("losslessFlood 'drop' blocks the flood for lossless packets only (Guo et al.'s fix); lossy packets still flood", () => {
  const l2 = tor(0, { ...L2_DEFAULTS, losslessFlood: 'drop' });
  const later = 10 * MIN;
  assert.deepEqual(l2.lookup(later, H1_IP, true), { kind: 'floodBlocked' });
  assert.deepEqual(l2.lookup(later, H1_IP, false), { kind: 'flood' });
  // With the MAC known, 'drop' changes nothing.
  l2.learn(later, H1_MAC, 3);
  assert.deepEqual(l2.lookup(later, H1_IP, true), { kind: 'unicast', port: 3 });
});

test('flushMacs (the macFlush fault) empties the MAC table but keeps ARP ⇒ flood until relearned', () => {
  const l2 = tor(0);
  l2.setArp(0, H2_IP, H2_MAC);
  l2.learn(0, H2_MAC, 4);
  assert.equal(l2.macEntries(1), 2);
  l2.flushMacs();
  assert.equal(l2.macEntries(1), 0);
  assert.equal(l2.arpMac(1, H1_IP), H1_MAC);
  assert.deepEqual(l2.lookup(1, H1_IP, true), { kind: 'flood' });
  assert.deepEqual(l2.lookup(1, H2_IP, false), { kind: 'flood' });
  l2.learn(2, H2_MAC, 4);
  assert.deepEqual(l2.lookup(2, H2_IP, false), { kind: 'unicast', port: 4 });
});

test('no ARP entry (never set, or aged out) ⇒ noArp, even when the MAC is known', () => {
  const l2 = new L2Tables({ ...L2_DEFAULTS, arpAgeingPs: 10 * MIN });
  l2.learn(0, H2_MAC, 4);
  assert.deepEqual(l2.lookup(1, H2_IP, true), { kind: 'noArp' });
  l2.setArp(0, H1_IP, H1_MAC);
  l2.learn(0, H1_MAC, 3);
  l2.learn(8 * MIN, H1_MAC, 3); // MAC refreshed to 13 min, ARP still ends at 10 min
  assert.deepEqual(l2.lookup(10 * MIN - 1, H1_IP, true), { kind: 'unicast', port: 3 });
  assert.deepEqual(l2.lookup(10 * MIN, H1_IP, true), { kind: 'noArp' });
  assert.equal(l2.arpMac(10 * MIN, H1_IP), null);
});

test('a MAC seen on another port is relearned there', () => {
  const l2 = tor(0);
  l2.learn(MIN, H1_MAC, 7); // the host moved (or a link failed over)
  assert.deepEqual(l2.lookup(MIN, H1_IP, false), { kind: 'unicast', port: 7 });
  assert.equal(l2.macEntries(MIN), 1);
});

test('the constructor refuses non-positive or fractional ageing and an unknown flood policy', () => {
  assert.throws(() => new L2Tables({ ...L2_DEFAULTS, macAgeingPs: 0 }), /macAgeingPs/);
  assert.throws(() => new L2Tables({ ...L2_DEFAULTS, arpAgeingPs: 1.5 }), /arpAgeingPs/);
  assert.throws(() => new L2Tables({ ...L2_DEFAULTS, losslessFlood: 'pause' as 'drop' }), /losslessFlood/);
});
