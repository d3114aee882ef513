import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_WIRE_MODEL, Engine } from '@rocelab/sim';
import { dataFrame, ScriptedNode, testNodes } from '@rocelab/sim/testing';
import { Ecn } from '@rocelab/wire';
import { Mmu, type MmuConfig } from './mmu.js';
import { planSwitch } from './plan.js';
import { profileSettings, type SwitchSettings } from './profiles.js';
import { Switch, type SwitchFault } from './switch.js';
import { testSwitchConfig } from './testing.js';

/**
 * ECN thresholds and the PFC α by a port's link rate (issue 26), as HPCC ns-3's third.cc `main`
 * configures each switch port j: `ConfigEcn(j, rate2kmin[rate], rate2kmax[rate], rate2pmax[rate])`
 * and `pfc_a_shift[j]` = 3 less one per doubling of the port's rate above the NIC's.
 */

const G = 1e9;
const HA_IP = 0x0a_00_00_01;
const HB_IP = 0x0a_00_00_02;
const HS_IP = 0x0a_00_00_03;

test('the plan gives each port its rate’s ECN entry and α, the switch’s where its rate is not listed', () => {
  const s: SwitchSettings = {
    ...profileSettings('hpcc-ns3', 'default', 50 * G),
    ecnByRate: [
      { rateBps: 25 * G, kminBytes: 100_000, kmaxBytes: 400_000, pmax: 0.2 },
      { rateBps: 50 * G, kminBytes: 200_000, kmaxBytes: 800_000, pmax: 0.2 },
    ],
    alphaByRate: [{ rateBps: 50 * G, alpha: 0.25 }],
  };
  const port = (rateBps: number) => ({ in: { rateBps, latencyPs: 1_000_000, mtu: 1000 } });
  const plan = planSwitch(s, [port(25 * G), port(50 * G), port(100 * G)], [])!;
  assert.deepEqual(plan.ecnByPort, [{ kminBytes: 100_000, kmaxBytes: 400_000, pmax: 0.2 }, { kminBytes: 200_000, kmaxBytes: 800_000, pmax: 0.2 }, null]);
  assert.deepEqual(plan.mmu.alphaByPort, [0.125, 0.25, 0.125]);
  // A port's own sending rate decides (third.cc reads the switch device's rate), not what arrives on it.
  const asym = planSwitch(s, [{ in: { rateBps: 25 * G, latencyPs: 1_000_000, mtu: 1000 }, out: { latencyPs: 1_000_000, rateBps: 50 * G } }], [])!;
  assert.deepEqual([asym.ecnByPort![0]!.kminBytes, asym.mmu.alphaByPort![0]], [200_000, 0.25]);
  // Without the maps the plan is what it was: no per-port keys at all.
  const plain = planSwitch(profileSettings('hpcc-ns3', 'default', 50 * G), [port(25 * G), port(50 * G)], [])!;
  assert.equal('ecnByPort' in plain, false);
  assert.equal('alphaByPort' in plain.mmu, false);
});

/**
 * hA —25G— sw —50G— hB, and a sender hS —200G— sw: 20 frames from hS to each of hA and hB queue up
 * at sw's ports 0 (25G) and 1 (50G). One rate's entry marks every departure that leaves bytes behind
 * (Kmin 0, Kmax 1 B: p = 1), the other's marks none (Kmin 1 MB), and the switch-wide `ecn` would mark
 * all: which ports mark shows which thresholds each used.
 */
function marksByPort(byRate: SwitchSettings['ecnByRate'], fault?: SwitchFault): { at25G: number; at50G: number } {
  const nodes = testNodes([
    { a: 'hA', b: 'sw', rateBps: 25 * G },
    { a: 'hB', b: 'sw', rateBps: 50 * G },
    { a: 'hS', b: 'sw', rateBps: 200 * G },
  ]); // sorted: hA = 0, hB = 1, hS = 2, sw = 3; sw's port 0 faces hA, 1 hB, 2 hS
  const engine = new Engine({ seed: 1, nodes, hosted: [0, 1, 2, 3], wire: DEFAULT_WIRE_MODEL });
  const ctx = engine.context(3);
  const base = testSwitchConfig(ctx, { profile: 'hpcc-ns3', routes: [{ ip: HA_IP, ports: [0] }, { ip: HB_IP, ports: [1] }] });
  const settings: SwitchSettings = { ...base.settings, ecn: { ...base.settings.ecn, kminBytes: 0, kmaxBytes: 1, pmax: 1 }, ecnByRate: byRate };
  const sw = new Switch(ctx, testSwitchConfig(ctx, { profile: 'hpcc-ns3', routes: [{ ip: HA_IP, ports: [0] }, { ip: HB_IP, ports: [1] }], settings }));
  const hosts = [0, 1, 2].map((i) => new ScriptedNode(engine.context(i)));
  hosts.forEach((h, i) => engine.attach(i, h));
  engine.attach(3, sw);
  if (fault !== undefined) sw.onFault(0, fault);
  for (let psn = 0; psn < 20; psn++) {
    hosts[2]!.send(0, dataFrame({ srcIp: HS_IP, dstIp: HA_IP, ttl: 64, dscp: 26, ecn: Ecn.ect0, psn }));
    hosts[2]!.send(0, dataFrame({ srcIp: HS_IP, dstIp: HB_IP, ttl: 64, dscp: 26, ecn: Ecn.ect0, psn }));
  }
  engine.runUntil(100_000_000);
  assert.deepEqual([hosts[0]!.received.length, hosts[1]!.received.length], [20, 20], 'every frame arrives');
  const ce = (h: ScriptedNode) => h.received.filter((r) => r.frame.ecn === Ecn.ce).length;
  return { at25G: ce(hosts[0]!), at50G: ce(hosts[1]!) };
}

const MARK_ALL = { kminBytes: 0, kmaxBytes: 1, pmax: 1 };
const MARK_NONE = { kminBytes: 1_000_000, kmaxBytes: 2_000_000, pmax: 1 };

test('a port at 50G marks with the 50G thresholds, a port at 25G with the 25G ones', () => {
  // All 20 queue behind one another (100G of each in, 25G/50G out) except the first, which leaves alone,
  // and the last, which leaves an empty queue: 18 departures with bytes behind them.
  assert.deepEqual(marksByPort([{ rateBps: 25 * G, ...MARK_NONE }, { rateBps: 50 * G, ...MARK_ALL }]), { at25G: 0, at50G: 18 });
  assert.deepEqual(marksByPort([{ rateBps: 25 * G, ...MARK_ALL }, { rateBps: 50 * G, ...MARK_NONE }]), { at25G: 18, at50G: 0 });
  // A rate not listed takes the switch-wide ecn (here: mark all).
  assert.deepEqual(marksByPort([{ rateBps: 25 * G, ...MARK_NONE }]), { at25G: 0, at50G: 18 });
  // Without byRate every port takes the switch-wide ecn.
  assert.deepEqual(marksByPort([]), { at25G: 18, at50G: 18 });
});

test('an ecnMisconfig fault applies on top of the port’s rate thresholds, and its end restores them', () => {
  const byRate = [{ rateBps: 25 * G, ...MARK_NONE }, { rateBps: 50 * G, ...MARK_ALL }];
  // A fault changing Pmax alone keeps the port's Kmin and Kmax: the 25G port stays below its 1 MB
  // Kmin (the switch-wide Kmax of 1 B would have marked all 18), the 50G port above its 1 B Kmax.
  assert.deepEqual(marksByPort(byRate, { kind: 'ecn', port: null, priority: null, change: { pmax: 0.5 } }), { at25G: 0, at50G: 18 });
  // Kmin and Kmax changed on one queue of one port: that queue marks by the fault's.
  assert.deepEqual(marksByPort(byRate, { kind: 'ecn', port: 0, priority: 3, change: { kminBytes: 0, kmaxBytes: 1 } }), { at25G: 18, at50G: 18 });
  assert.deepEqual(marksByPort(byRate, { kind: 'ecn', port: 1, priority: 3, change: { enabled: false } }), { at25G: 0, at50G: 0 });
  // The end of a fault (change null) goes back to the port's rate entry, not to the switch-wide ecn.
  assert.deepEqual(marksByPort(byRate, { kind: 'ecn', port: null, priority: null, change: null }), { at25G: 0, at50G: 18 });
});

/** PHYSICS §7a #4's 3-port HPCC MMU (12 MiB, 15,000 B headroom and 4,096 B reserve per port), α per ingress port. */
const HPCC_3PORT: MmuConfig = {
  bufferBytes: 12 * 1024 * 1024,
  alpha: 1 / 8,
  reserveBytes: 4_096,
  headroomBytes: [15_000, 15_000, 15_000],
  lossless: [false, false, false, true, false, false, false, false],
  totalReserveBytes: 3 * 4_096,
  totalHeadroomBytes: 3 * 15_000,
  xonOffsetBytes: 3_072,
  staticThresholds: null,
  egressLossyAlpha: 8,
  // Port 1 at twice the NIC rate: pfc_a_shift 2 (third.cc main); ports 0 and 2 at the NIC rate: 3.
  alphaByPort: [1 / 8, 1 / 4, 1 / 8],
};

test('the PFC threshold of an ingress port with pfc_a_shift 2 is twice that of one with 3 (switch-mmu.cc GetPfcThreshold)', () => {
  const mmu = new Mmu(HPCC_3PORT, 3);
  // 1,000,000 B of shared use, from port 2's group 3 (its first 4,096 B fill its reserve).
  mmu.admit(2, 3, 0, 3, 4_096);
  for (let i = 0; i < 1_000; i++) assert.equal(mmu.admit(2, 3, 0, 3, 1_000), 'admitted');
  assert.equal(mmu.sharedUsedBytes(), 1_000_000);
  // GetPfcThreshold(port) = (buffer_size − total_hdrm − total_rsrv − shared_used_bytes) >> pfc_a_shift[port]
  //   = (12,582,912 − 45,000 − 12,288 − 1,000,000) >> shift = 11,525,624 >> shift:
  //   shift 3 → 1,440,703; shift 2 → 2,881,406.
  assert.equal(mmu.threshold(3, 0), 1_440_703);
  assert.equal(mmu.threshold(3, 1), 2_881_406);
  assert.equal(mmu.groupLimit(3, 2), 1_440_703);
  assert.equal(mmu.threshold(3), 1_440_703, 'without a port: the switch α');
  // 1,500,000 B of shared on each of ports 0 and 1 would need the pool to stay above 8 × and 4 × that:
  // feed them alike and port 0 (shift 3) pauses first, port 1 (shift 2) admits on into the shared pool.
  mmu.admit(0, 3, 2, 3, 4_096);
  mmu.admit(1, 3, 2, 3, 4_096);
  let first: number | null = null;
  for (let i = 0; i < 2_000 && first === null; i++) {
    for (const port of [0, 1]) {
      mmu.admit(port, 3, 2, 3, 1_000);
      if (first === null && mmu.shouldPause(port, 3)) first = port;
    }
  }
  assert.equal(first, 0);
  assert.equal(mmu.shouldPause(1, 3), false);
  // Port 0 is at its threshold (its last packet went to headroom); port 1 holds as much, half its own.
  assert.ok(mmu.headroomBytes(0, 3) > 0 || mmu.sharedOf(0, 3) >= mmu.threshold(3, 0));
  assert.ok(mmu.sharedOf(1, 3) < mmu.threshold(3, 1) / 1.5, `port 1: ${mmu.sharedOf(1, 3)} of ${mmu.threshold(3, 1)} B`);
});

test('an α per port does not combine with pools, and must name every port', () => {
  const pools = [{ priorities: [0, 1, 2, 3, 4, 5, 6, 7], bytes: 1_000_000, alpha: 0.5 }];
  assert.throws(() => new Mmu({ ...HPCC_3PORT, pools }, 3), /per ingress port and buffer pools/);
  assert.throws(() => new Mmu(HPCC_3PORT, 4), /3 per-port α for 4 ports/);
});
