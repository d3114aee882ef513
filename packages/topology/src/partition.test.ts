import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateClos } from './clos.js';
import { parseTopology } from './load.js';
import { partitionPod } from './partition.js';
import type { PodSpec } from './pod.js';

const clos = (pods: number, torsPerPod = 2, hostsPerTor = 4): PodSpec =>
  parseTopology(generateClos({ spines: 2, leavesPerPod: 2, torsPerPod, pods, hostsPerTor, rate: '40G', latency: '1us' }), 'clos.yaml');

const names = (pod: PodSpec, part: number[]): string[] => part.map((i) => pod.nodes[i]!.name).sort();

/** Links with their ends in different parts. */
function cut(pod: PodSpec, parts: number[][]): number {
  const partOf = new Map(parts.flatMap((p, k) => p.map((i) => [i, k] as const)));
  const index = (name: string) => pod.nodes.find((n) => n.name === name)!.index;
  return pod.links.filter((l) => partOf.get(index(l.a.node)) !== partOf.get(index(l.b.node))).length;
}

const ports = (pod: PodSpec, part: number[]): number => part.reduce((sum, i) => sum + pod.nodes[i]!.ports.length, 0);

test('the default Clos in two parts: one pod each with a spine, 32 ports each, 4 links cut', () => {
  const pod = clos(2);
  const parts = partitionPod(pod, 2);
  assert.deepEqual(names(pod, parts[0]!), ['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'h7', 'h8', 'leaf1', 'leaf2', 'spine1', 'tor1', 'tor2'].sort());
  assert.deepEqual(names(pod, parts[1]!), ['h9', 'h10', 'h11', 'h12', 'h13', 'h14', 'h15', 'h16', 'leaf3', 'leaf4', 'spine2', 'tor3', 'tor4'].sort());
  assert.deepEqual(parts.map((p) => ports(pod, p)), [32, 32]);
  assert.equal(cut(pod, parts), 4);
});

test('every node lands in exactly one part, a host always beside its ToR, for 1 to 8 parts', () => {
  const pod = clos(4, 2, 4);
  for (let k = 1; k <= 8; k++) {
    const parts = partitionPod(pod, k);
    assert.equal(parts.length, k);
    assert.deepEqual(parts.flat().sort((a, b) => a - b), pod.nodes.map((n) => n.index), `k=${k}`);
    const partOf = new Map(parts.flatMap((p, i) => p.map((n) => [n, i] as const)));
    for (const host of pod.nodes.filter((n) => n.role === 'host')) assert.equal(partOf.get(host.index), partOf.get(host.ports[0]!.peerNode), `k=${k}: ${host.name}`);
    const loads = parts.map((p) => ports(pod, p));
    // A ToR with its hosts is the largest group (12 ports); no part is off its share by more.
    const share = loads.reduce((a, b) => a + b) / k;
    for (const load of loads) assert.ok(Math.abs(load - share) <= 12, `k=${k}: loads ${loads.join(', ')}`);
  }
});

test('four pods in four parts: each part is a pod, and only leaf–spine links are cut', () => {
  const pod = clos(4);
  const parts = partitionPod(pod, 4);
  for (const part of parts) {
    const tors = names(pod, part).filter((n) => n.startsWith('tor'));
    assert.equal(tors.length, 2, names(pod, part).join(' '));
  }
  assert.ok(cut(pod, parts) <= 16, `cut ${cut(pod, parts)} of ${pod.links.length} links`);
});

test('more parts than groups: one group per part, no empty part', () => {
  const pod = parseTopology(
    ['name: pair', 'nodes:', '  - {name: sw1, role: switch}', '  - {name: h1, role: host, ip: 10.0.0.1}', '  - {name: h2, role: host, ip: 10.0.0.2}', 'links:', '  - {a: h1:p0, b: sw1:p1}', '  - {a: h2:p0, b: sw1:p2}'].join('\n'),
    'pair.yaml',
  );
  assert.deepEqual(partitionPod(pod, 3), [[0, 1, 2]]);
  assert.throws(() => partitionPod(pod, 0), /expected a part count ≥ 1, got 0/);
});

test('the same pod gives the same parts', () => {
  assert.deepEqual(partitionPod(clos(4), 3), partitionPod(clos(4), 3));
});
