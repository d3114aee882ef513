import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatIpv4 } from './ipv4.js';
import { loadTopologyFile, parseTopology } from './load.js';
import type { PodSpec } from './pod.js';
import { generateClos } from './clos.js';
import { routeTable, routeTables } from './routes.js';
import { fixture } from './testing.js';

/** A node's routes as {destination IP: [port names]}, for readable assertions. */
function named(pod: PodSpec, node: string): Record<string, string[]> {
  const n = pod.nodes.find((x) => x.name === node)!;
  return Object.fromEntries(routeTable(pod, n.index).map((r) => [formatIpv4(r.ip), r.ports.map((p) => n.ports[p]!.name)]));
}

test('tree.yaml: each ToR reaches its own hosts directly and the others via the trunk', () => {
  const pod = loadTopologyFile(fixture('tree.yaml'));
  assert.deepEqual(named(pod, 'sw1'), { '10.0.1.1': ['p1'], '10.0.1.2': ['p2'], '10.0.2.1': ['p9'], '10.0.2.2': ['p9'] });
  assert.deepEqual(named(pod, 'sw2'), { '10.0.1.1': ['p9'], '10.0.1.2': ['p9'], '10.0.2.1': ['p1'], '10.0.2.2': ['p2'] });
  // A host sends everything out of its one port, and has no route to itself.
  assert.deepEqual(named(pod, 'h1'), { '10.0.1.2': ['p0'], '10.0.2.1': ['p0'], '10.0.2.2': ['p0'] });
  assert.deepEqual(routeTables(pod).map((t) => t.length), [3, 3, 3, 3, 4, 4]);
});

const DIAMOND = `
# h1 — s1 ⟨ a | b ⟩ s2 — h2, plus two parallel links c1 = c2, and an island s9 — h9.
name: diamond
nodes:
  - {name: s1, role: tor}
  - {name: a, role: spine}
  - {name: b, role: spine}
  - {name: s2, role: tor}
  - {name: s9, role: tor}
  - {name: h1, role: host, ip: 10.0.0.1}
  - {name: h2, role: host, ip: 10.0.0.2}
  - {name: h9, role: host, ip: 10.0.0.9}
links:
  - {a: h1:p0, b: s1:down}
  - {a: s1:up2, b: b:p1}
  - {a: s1:up1, b: a:p1}
  - {a: a:p2, b: s2:up1}
  - {a: b:p2, b: s2:up2}
  - {a: s2:down, b: h2:p0}
  - {a: s9:p1, b: h9:p0}
`;

test('diamond: both equal-cost uplinks are listed, in port order', () => {
  const pod = parseTopology(DIAMOND, 'diamond.yaml');
  assert.deepEqual(named(pod, 's1'), { '10.0.0.1': ['down'], '10.0.0.2': ['up1', 'up2'] });
  assert.deepEqual(named(pod, 's2'), { '10.0.0.1': ['up1', 'up2'], '10.0.0.2': ['down'] });
  assert.deepEqual(named(pod, 'a'), { '10.0.0.1': ['p1'], '10.0.0.2': ['p2'] });
  const s1 = pod.nodes.find((n) => n.name === 's1')!;
  assert.deepEqual(routeTable(pod, s1.index)[1]!.ports, [1, 2]);
});

test('an unreachable host has no entry, and the island routes only to itself', () => {
  const pod = parseTopology(DIAMOND, 'diamond.yaml');
  assert.equal(named(pod, 's1')['10.0.0.9'], undefined);
  assert.deepEqual(named(pod, 's9'), { '10.0.0.9': ['p1'] });
  assert.deepEqual(named(pod, 'h9'), {});
});

test('parallel links between two switches are both next hops', () => {
  const pod = parseTopology(
    `
name: parallel
nodes:
  - {name: x, role: switch}
  - {name: y, role: switch}
  - {name: h1, role: host, ip: 10.0.0.1}
  - {name: h2, role: host, ip: 10.0.0.2}
links:
  - {a: h1:p0, b: x:p0}
  - {a: x:p1, b: y:p1}
  - {a: x:p2, b: y:p2}
  - {a: h2:p0, b: y:p0}
`,
    'parallel.yaml',
  );
  assert.deepEqual(named(pod, 'x'), { '10.0.0.1': ['p0'], '10.0.0.2': ['p1', 'p2'] });
});

test('routes are deterministic and out-of-range nodes are refused', () => {
  const pod = parseTopology(DIAMOND, 'diamond.yaml');
  assert.deepEqual(routeTables(pod), routeTables(parseTopology(DIAMOND, 'diamond.yaml')));
  assert.throws(() => routeTable(pod, pod.nodes.length), RangeError);
});

/** The definition, one BFS from every host, for comparison with the shared-BFS tables. */
function naiveTables(pod: PodSpec): Array<Array<{ ip: number; ports: number[] }>> {
  const tables = pod.nodes.map(() => [] as Array<{ ip: number; ports: number[] }>);
  for (const dst of pod.nodes.filter((n) => n.role === 'host').sort((a, b) => a.ip - b.ip)) {
    const dist = new Array<number>(pod.nodes.length).fill(-1);
    dist[dst.index] = 0;
    const queue = [dst.index];
    for (let head = 0; head < queue.length; head++) {
      const node = pod.nodes[queue[head]!]!;
      if (node.role === 'host' && node.index !== dst.index) continue;
      for (const p of node.ports) {
        if (dist[p.peerNode] !== -1) continue;
        dist[p.peerNode] = dist[node.index]! + 1;
        queue.push(p.peerNode);
      }
    }
    for (const node of pod.nodes) {
      const d = dist[node.index]!;
      if (d > 0) tables[node.index]!.push({ ip: dst.ip, ports: node.ports.filter((p) => dist[p.peerNode] === d - 1).map((p) => p.index) });
    }
  }
  return tables;
}

test('one BFS per ToR gives exactly the tables of one BFS per host, for every node of several pods', () => {
  const clos = parseTopology(generateClos({ spines: 4, leavesPerPod: 2, torsPerPod: 3, pods: 3, hostsPerTor: 5, rate: '40G', latency: '1us' }), 'clos.yaml');
  for (const pod of [clos, loadTopologyFile(fixture('tree.yaml')), loadTopologyFile(fixture('switch/clos.yaml'))]) {
    const naive = naiveTables(pod);
    assert.deepEqual(routeTables(pod), naive, pod.name);
    for (const node of pod.nodes) assert.deepEqual(routeTable(pod, node.index), naive[node.index], `${pod.name} ${node.name}`);
  }
});
