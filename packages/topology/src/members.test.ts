import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateClos } from './clos.js';
import { parseTopology } from './load.js';
import { planMembers } from './members.js';
import { partitionPod } from './partition.js';

const pod = parseTopology(generateClos({ spines: 2, leavesPerPod: 2, torsPerPod: 2, pods: 2, hostsPerTor: 2, rate: '40G', latency: '1us' }), 'clos.yaml');

test('procs: one member per node, named by it, running the service of its role', () => {
  const plans = planMembers(pod, null);
  assert.deepEqual(plans.map((p) => p.id), pod.nodes.map((n) => n.name));
  for (const [i, plan] of plans.entries()) {
    const node = pod.nodes[i]!;
    assert.deepEqual(plan, { id: node.name, nodes: [node.name], entry: node.role === 'host' ? 'host' : 'switch' });
  }
  assert.ok(plans.some((p) => p.entry === 'host') && plans.some((p) => p.entry === 'switch'));
});

test('--workers K: workers w1…wK holding partitionPod\'s parts, every node in exactly one', () => {
  const plans = planMembers(pod, 3);
  const parts = partitionPod(pod, 3);
  assert.deepEqual(plans.map((p) => p.id), parts.map((_, w) => `w${w + 1}`));
  assert.ok(plans.every((p) => p.entry === 'worker'));
  assert.deepEqual(plans.map((p) => p.nodes), parts.map((part) => part.map((i) => pod.nodes[i]!.name)));
  assert.deepEqual(plans.flatMap((p) => p.nodes).sort(), pod.nodes.map((n) => n.name).sort());
});
