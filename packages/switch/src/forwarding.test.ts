import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hpccEcmpHash } from './ecmp-hash-hpcc.js';
import { defaultEcmpSeed, flowHash, Forwarding, NO_ROUTE, ROCE_UDP_PORT } from './forwarding.js';

/** `10.0.1.11` → 0x0a00010b (routes and frames carry IPv4 as unsigned 32-bit integers). */
const ip = (text: string): number => text.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);

const H1 = ip('10.0.1.11');
const H2 = ip('10.0.1.12');
const FAR = ip('10.0.2.11');
/** The RoCEv2 source-port range FlowSender uses (49152 + flow index). */
const EPHEMERAL = 49152;

/** How many of `flows` flows H1 → FAR with ports EPHEMERAL + k leave on each port. */
function spread(fwd: Forwarding, flows: number, port: (k: number) => number = (k) => EPHEMERAL + k): Map<number, number> {
  const counts = new Map<number, number>();
  for (let k = 0; k < flows; k++) {
    const out = fwd.egressPort(H1, FAR, port(k));
    counts.set(out, (counts.get(out) ?? 0) + 1);
  }
  return counts;
}

test('a single-port route sends every flow to that port, whatever the source and UDP port', () => {
  const fwd = new Forwarding([
    { ip: H1, ports: [0] },
    { ip: H2, ports: [3] },
  ]);
  for (const udp of [0, 1, EPHEMERAL, 0xffff]) {
    assert.equal(fwd.egressPort(H2, H1, udp), 0);
    assert.equal(fwd.egressPort(H1, H2, udp), 3);
    assert.equal(fwd.egressPort(FAR, H2, udp), 3);
  }
});

test('a destination with no route (or only an empty port list) is NO_ROUTE (-1)', () => {
  const fwd = new Forwarding([
    { ip: H1, ports: [0] },
    { ip: H2, ports: [] },
  ]);
  assert.equal(NO_ROUTE, -1);
  assert.equal(fwd.egressPort(H1, FAR, EPHEMERAL), NO_ROUTE);
  // An empty next-hop list is not a route: it must not index ports[NaN].
  assert.equal(fwd.egressPort(H1, H2, EPHEMERAL), NO_ROUTE);
  assert.equal(new Forwarding([]).egressPort(H1, H2, EPHEMERAL), NO_ROUTE);
});

test('one flow (srcIp, dstIp, udpSrcPort) always takes the same ECMP port: a flow is never reordered', () => {
  const routes = [{ ip: FAR, ports: [4, 5, 6, 7] }];
  const a = new Forwarding(routes);
  const b = new Forwarding(routes); // a second switch with the same table hashes identically
  for (let k = 0; k < 200; k++) {
    const udp = EPHEMERAL + k * 7;
    const first = a.egressPort(H1, FAR, udp);
    assert.ok([4, 5, 6, 7].includes(first), `port ${first} is one of the route's ports`);
    for (let again = 0; again < 3; again++) assert.equal(a.egressPort(H1, FAR, udp), first);
    assert.equal(b.egressPort(H1, FAR, udp), first);
    // The port is the hash modulo the number of next hops, indexing the sorted list.
    assert.equal(first, [4, 5, 6, 7][flowHash(H1, FAR, udp) % 4]);
  }
});

test('the flow hash reads every field of the 5-tuple: changing one of them moves some flows', () => {
  const fwd = new Forwarding([{ ip: FAR, ports: [0, 1] }]);
  let movedBySource = 0;
  let movedByPort = 0;
  for (let k = 0; k < 100; k++) {
    const udp = EPHEMERAL + k;
    if (fwd.egressPort(H1, FAR, udp) !== fwd.egressPort(H2, FAR, udp)) movedBySource++;
    if (fwd.egressPort(H1, FAR, udp) !== fwd.egressPort(H1, FAR, udp + 1)) movedByPort++;
  }
  assert.ok(movedBySource > 0, 'the source IP takes part in the hash');
  assert.ok(movedByPort > 0, 'the UDP source port takes part in the hash');
  assert.notEqual(flowHash(H1, FAR, EPHEMERAL), flowHash(H1, H2, EPHEMERAL), 'the destination IP takes part in the hash');
});

test('1,000 flows with consecutive UDP source ports spread over 2 equal-cost ports within 10 % of even (450..550 each)', () => {
  // Even = 1000 / 2 = 500 per port; ±10 % = 450..550.
  const counts = spread(new Forwarding([{ ip: FAR, ports: [1, 2] }]), 1000);
  assert.deepEqual([...counts.keys()].sort(), [1, 2]);
  for (const [port, n] of counts) assert.ok(n >= 450 && n <= 550, `port ${port} got ${n} of 1000 flows`);
});

test('1,000 flows with consecutive UDP source ports spread over 4 equal-cost ports within 10 % of even (225..275 each)', () => {
  // Even = 1000 / 4 = 250 per port; ±10 % = 225..275.
  const counts = spread(new Forwarding([{ ip: FAR, ports: [0, 1, 2, 3] }]), 1000);
  assert.deepEqual([...counts.keys()].sort(), [0, 1, 2, 3]);
  for (const [port, n] of counts) assert.ok(n >= 225 && n <= 275, `port ${port} got ${n} of 1000 flows`);
});

// Without a final avalanche, FNV-1a's `hash mod 2^k` depends only on the low k bits of each
// input byte: ports 49152 + 4j would all share ONE of 4 paths (and so would hosts .0, .4, .8…).
test(
  'flows whose UDP source ports differ only above the low two bits still spread over 4 equal-cost ports',
  () => {
    // 64 flows, even = 16 per port; allow ±8 (about ±2σ of a fair 4-way split).
    const counts = spread(new Forwarding([{ ip: FAR, ports: [0, 1, 2, 3] }]), 64, (j) => EPHEMERAL + 4 * j);
    assert.equal(counts.size, 4, `flows landed on ports ${JSON.stringify([...counts])}`);
    for (const [port, n] of counts) assert.ok(n >= 8 && n <= 24, `port ${port} got ${n} of 64 flows`);
  },
);

// Seeds (`ecmpSeed`) and HPCC ns-3's hash (`ecmpHash: hpcc-ns3`, the hpcc-ns3 profile).

test('with no seed the rocelab hash is the one of earlier runs: pinned values, and seed 0 is the same', () => {
  // Printed by the flowHash of commit c18121e (before seeds existed): existing pods keep their paths.
  const pinned: Array<[number, number, number, number]> = [
    [H1, FAR, 49152, 0x8578f421],
    [H1, FAR, 49153, 0x3f63f1b7],
    [H2, FAR, 50000, 0x964f7987],
    [ip('10.1.2.3'), ip('10.3.2.1'), 65535, 0x89ea9b58],
  ];
  for (const [src, dst, udp, want] of pinned) {
    assert.equal(flowHash(src, dst, udp), want);
    assert.equal(flowHash(src, dst, udp, 0), want);
  }
  const routes = [{ ip: FAR, ports: [0, 1, 2, 3] }];
  const unseeded = new Forwarding(routes);
  const seeded0 = new Forwarding(routes, { hash: 'rocelab', seed: defaultEcmpSeed('rocelab', 17) });
  for (let k = 0; k < 100; k++) assert.equal(seeded0.egressPort(H1, FAR, EPHEMERAL + k), unseeded.egressPort(H1, FAR, EPHEMERAL + k));
});

test('a seed moves flows to other paths, and each seed still spreads them evenly', () => {
  const routes = [{ ip: FAR, ports: [0, 1, 2, 3] }];
  const base = new Forwarding(routes);
  for (const seed of [1, 7, 0xffffffff]) {
    const fwd = new Forwarding(routes, { hash: 'rocelab', seed });
    let moved = 0;
    for (let k = 0; k < 1000; k++) if (fwd.egressPort(H1, FAR, EPHEMERAL + k) !== base.egressPort(H1, FAR, EPHEMERAL + k)) moved++;
    // Independent choices over 4 ports move 3/4 of the flows: 750 of 1000, ±60 is about ±4σ.
    assert.ok(moved > 690 && moved < 810, `seed ${seed} moved ${moved} of 1000 flows`);
    // Even = 250 per port, σ = √(1000 · ¼ · ¾) ≈ 13.7: within 4σ (195..305) for every seed and port.
    for (const [port, n] of spread(fwd, 1000)) assert.ok(n >= 195 && n <= 305, `seed ${seed}: port ${port} got ${n} of 1000 flows`);
  }
});

test('hpcc-ns3: the port is nexthops[EcmpHash(sip, dip, sport | 4791 << 16, seed) % n], in the route’s port order', () => {
  const routes = [{ ip: FAR, ports: [4, 5, 6] }];
  for (const seed of [0, 3, 12345]) {
    const fwd = new Forwarding(routes, { hash: 'hpcc-ns3', seed });
    for (let k = 0; k < 200; k++) {
      const udp = EPHEMERAL + k;
      assert.equal(fwd.egressPort(H1, FAR, udp), [4, 5, 6][hpccEcmpHash(H1, FAR, udp, ROCE_UDP_PORT, seed) % 3]);
    }
  }
  // The vector of ecmp-hash-hpcc.test.ts: 10.0.1.11 → 10.0.2.11, port 49152, seed 7 → 0x90c2b494, even.
  assert.equal(new Forwarding([{ ip: FAR, ports: [8, 9] }], { hash: 'hpcc-ns3', seed: 7 }).egressPort(H1, FAR, 49152), 8);
  for (const [port, n] of spread(new Forwarding([{ ip: FAR, ports: [0, 1, 2, 3] }], { hash: 'hpcc-ns3', seed: 5 }), 1000)) {
    assert.ok(n >= 195 && n <= 305, `port ${port} got ${n} of 1000 flows (250 ± 4σ)`);
  }
});

test('the default seed: 0 for the rocelab hash, the node index for HPCC’s (m_ecmpSeed = m_id)', () => {
  assert.deepEqual([0, 1, 25].map((i) => defaultEcmpSeed('rocelab', i)), [0, 0, 0]);
  assert.deepEqual([0, 1, 25].map((i) => defaultEcmpSeed('hpcc-ns3', i)), [0, 1, 25]);
});

test('destination port (issue 26): hpcc-ns3 hashes it (0 is 4791), rocelab’s hash ignores it so its paths never move', () => {
  const ports = [0, 1, 2, 3, 4, 5, 6];
  const hpcc = new Forwarding([{ ip: FAR, ports }], { hash: 'hpcc-ns3', seed: 320 });
  for (let sport = 10000; sport < 10064; sport++) {
    for (const dport of [100, 4791, 7]) assert.equal(hpcc.egressPort(H1, FAR, sport, dport), ports[hpccEcmpHash(H1, FAR, sport, dport, 320) % 7]);
    assert.equal(hpcc.egressPort(H1, FAR, sport, 0), hpcc.egressPort(H1, FAR, sport, ROCE_UDP_PORT));
    assert.equal(hpcc.egressPort(H1, FAR, sport), hpcc.egressPort(H1, FAR, sport, ROCE_UDP_PORT));
  }
  const own = new Forwarding([{ ip: FAR, ports }], { hash: 'rocelab', seed: 0 });
  for (let sport = 49152; sport < 49216; sport++) assert.equal(own.egressPort(H1, FAR, sport, 100), ports[flowHash(H1, FAR, sport) % 7]);
  // A fault hashing fewer fields keeps the destination port in HPCC's word.
  const partial = new Forwarding([{ ip: FAR, ports }], { hash: 'hpcc-ns3', seed: 1, fields: ['dstIp'] });
  assert.equal(partial.egressPort(H1, FAR, 10000, 100), ports[hpccEcmpHash(0, FAR, 0, 100, 1) % 7]);
});
