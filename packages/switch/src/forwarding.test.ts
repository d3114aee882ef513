import assert from 'node:assert/strict';
import { test } from 'node:test';
import { flowHash, Forwarding, NO_ROUTE } from './forwarding.js';

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
