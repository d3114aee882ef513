import assert from 'node:assert/strict';
import { test } from 'node:test';
import { flowWorkloads } from './extensions.js';
import { parseIpv4 } from './ipv4.js';
import { loadTopologyFile, parseTopology } from './load.js';
import { NO_IMPAIRMENTS } from './links.js';
import type { NodeSpec, PodSpec } from './pod.js';
import { fixture } from './testing.js';

const byName = (pod: PodSpec, name: string): NodeSpec => pod.nodes.find((n) => n.name === name)!;

const LINK_40G_1US = { rateBps: 40_000_000_000, latencyPs: 1_000_000, mtu: 1024, impairments: NO_IMPAIRMENTS };

test('line.yaml resolves: indices by sorted name, ports, peers, MACs, defaults', () => {
  const pod = loadTopologyFile(fixture('line.yaml'));
  assert.equal(pod.name, 'line');
  assert.equal(pod.file, fixture('line.yaml'));
  assert.equal(pod.seed, 7);
  assert.equal(pod.profile, 'vendor');
  assert.equal(pod.timing, 'default');
  assert.deepEqual(pod.nodes.map((n) => [n.index, n.name, n.role]), [
    [0, 'h1', 'host'],
    [1, 'h2', 'host'],
    [2, 'sw1', 'tor'],
  ]);
  assert.deepEqual(pod.nodes.map((n) => n.mac), [0x020000000001, 0x020000000002, 0x020000000003]);
  assert.equal(byName(pod, 'h1').ip, parseIpv4('10.0.1.1'));
  assert.equal(byName(pod, 'sw1').ip, 0);
  assert.deepEqual(byName(pod, 'sw1').subnet, { base: 0x0a000100, prefixLength: 24 });

  const sw1 = byName(pod, 'sw1');
  assert.deepEqual(sw1.ports.map((p) => [p.index, p.name, p.link, p.peerNode, p.peerPort]), [
    [0, 'p1', 0, 0, 0],
    [1, 'p2', 1, 1, 0],
  ]);
  assert.deepEqual(byName(pod, 'h2').ports.map((p) => [p.name, p.peerNode, p.peerPort]), [['p0', 2, 1]]);
  for (const link of pod.links) {
    assert.deepEqual(link.aToB, LINK_40G_1US);
    assert.deepEqual(link.bToA, LINK_40G_1US);
  }
  assert.deepEqual(flowWorkloads(pod), [{ index: 0, from: 'h1', to: 'h2', sizeBytes: 40_000_000, start: { kind: 'at', atPs: 0 }, rateBps: null, dscp: 26, transport: 'rdma' }]);
  assert.deepEqual(pod.faults, []);
});

test('tree.yaml resolves: the inter-switch link, both directions, workloads kept as written', () => {
  const pod = loadTopologyFile(fixture('tree.yaml'));
  assert.equal(pod.seed, 7);
  assert.deepEqual(pod.nodes.map((n) => n.name), ['h1', 'h2', 'h3', 'h4', 'sw1', 'sw2']);
  const sw1 = byName(pod, 'sw1');
  const sw2 = byName(pod, 'sw2');
  assert.deepEqual(sw1.ports.map((p) => p.name), ['p1', 'p2', 'p9']);
  const trunk = sw1.ports[2]!;
  assert.equal(trunk.peerNode, sw2.index);
  assert.equal(sw2.ports[trunk.peerPort]!.name, 'p9');
  assert.equal(sw2.ports[trunk.peerPort]!.peerNode, sw1.index);
  // A port's `out` is the link direction leaving it, the peer's `in` is the same object.
  const link = pod.links[trunk.link]!;
  assert.equal(trunk.out, link.aToB);
  assert.equal(trunk.in, link.bToA);
  assert.equal(sw2.ports[trunk.peerPort]!.in, trunk.out);
  assert.equal(byName(pod, 'h3').ports[0]!.peerNode, sw2.index);

  assert.deepEqual(pod.workloads.map((w) => [w.index, w.kind, w.path]), [
    [0, 'flow', 'workloads[0]'],
    [1, 'flow', 'workloads[1]'],
    [2, 'flow', 'workloads[2]'],
  ]);
  assert.deepEqual(pod.workloads[2]!.raw['start'], { uniform: ['0us', '500us'] });
  assert.deepEqual(flowWorkloads(pod).map((f) => [f.from, f.to, f.sizeBytes, f.start]), [
    ['h1', 'h3', 4_000_000, { kind: 'at', atPs: 0 }],
    ['h4', 'h2', 4_000_000, { kind: 'at', atPs: 0 }],
    ['h2', 'h4', 2_000_000, { kind: 'uniform', minPs: 0, maxPs: 500_000_000 }],
  ]);
});

test('every port is the peer of its peer (both fixtures)', () => {
  for (const name of ['line.yaml', 'tree.yaml']) {
    const pod = loadTopologyFile(fixture(name));
    for (const node of pod.nodes) {
      for (const port of node.ports) {
        const back = pod.nodes[port.peerNode]!.ports[port.peerPort]!;
        assert.equal(back.peerNode, node.index);
        assert.equal(back.peerPort, port.index);
        assert.equal(back.link, port.link);
      }
    }
  }
});

const MINIMAL = `
name: mini
nodes:
  - {name: s, role: switch}
  - {name: h, role: host, ip: 10.0.0.1}
links:
  - {a: h:eth0, b: s:p1}
`;

test('defaults: seed 1, vendor, default timing, 40G / 1us / 1024, no impairments, no workloads', () => {
  const pod = parseTopology(MINIMAL);
  assert.equal(pod.file, '<inline>');
  assert.equal(pod.seed, 1);
  assert.equal(pod.profile, 'vendor');
  assert.equal(pod.timing, 'default');
  assert.deepEqual(pod.links[0]!.aToB, LINK_40G_1US);
  assert.deepEqual(pod.workloads, []);
});

test('defaults.link and per-link values override, impairments merge per direction', () => {
  const pod = parseTopology(`
name: mini
profile: sonic
timing: drill
defaults:
  link: {rate: 100G, latency: 500ns, mtu: 4096, impairments: {corrupt: 0.001}}
nodes:
  - {name: s, role: switch}
  - {name: h, role: host, ip: 10.0.0.1}
links:
  - {a: h:eth0, b: s:p1, latency: 1.5us, impairments: {b_to_a: {loss: 1/256, down: true, dropIpIdLowByte: 255}}}
`);
  assert.equal(pod.profile, 'sonic');
  assert.equal(pod.timing, 'drill');
  const link = pod.links[0]!;
  assert.deepEqual(link.aToB, { rateBps: 100e9, latencyPs: 1_500_000, mtu: 4096, impairments: { down: false, loss: 0, dropIpIdLowByte: null, corrupt: 0.001, packetEvents: [] } });
  assert.deepEqual(link.bToA.impairments, { down: true, loss: 1 / 256, dropIpIdLowByte: 255, corrupt: 0.001, packetEvents: [] });
});

test('faults resolve to ps and are sorted by time, then file position', () => {
  const pod = parseTopology(`${MINIMAL}
faults:
  - {at: 2ms, kind: linkUp, link: s:p1}
  - {at: 1ms, kind: linkDown, link: h:eth0}
  - {at: 2ms, kind: linkDown, link: s:p1}
`);
  assert.deepEqual(
    pod.faults.map((f) => ({ index: f.index, atPs: f.atPs, kind: f.kind, target: f.target, forPs: f.forPs })),
    [
      { index: 1, atPs: 1_000_000_000, kind: 'linkDown', target: 'h:eth0', forPs: null },
      { index: 0, atPs: 2_000_000_000, kind: 'linkUp', target: 's:p1', forPs: null },
      { index: 2, atPs: 2_000_000_000, kind: 'linkDown', target: 's:p1', forPs: null },
    ],
  );
  assert.deepEqual(pod.faults[0]!.params, { kind: 'linkDown', link: { node: 'h', port: 'eth0' }, direction: 'both' });
});

test('node order in the file does not change the numbering', () => {
  const a = parseTopology(MINIMAL);
  const b = parseTopology(MINIMAL.replace('  - {name: s, role: switch}\n  - {name: h, role: host, ip: 10.0.0.1}', '  - {name: h, role: host, ip: 10.0.0.1}\n  - {name: s, role: switch}'));
  assert.deepEqual(a.nodes, b.nodes);
});
