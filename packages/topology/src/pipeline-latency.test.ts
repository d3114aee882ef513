import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseTopology } from './load.js';
import type { PodSpec } from './pod.js';
import { assertProblem } from './testing.js';

const POD = (extra: string, tor = '{name: t, role: tor}') => `
name: pipes
${extra}
nodes:
  - ${tor}
  - {name: h1, role: host, ip: 10.0.0.1}
  - {name: h2, role: host, ip: 10.0.0.2, pipelineLatency: 250ns}
links:
  - {a: h1:p0, b: t:p1}
  - {a: t:p2, b: h2:p0}
`;

const latencies = (pod: PodSpec) => pod.links.map((l) => [l.aToB.latencyPs, l.bToA.latencyPs]);

test('a node’s pipeline latency is added to every direction it transmits on, and only those', () => {
  const pod = parseTopology(POD('defaults: {pipelineLatency: {switch: 600ns, host: 100ns}}'));
  assert.deepEqual(
    pod.nodes.map((n) => [n.name, n.pipelinePs]),
    [['h1', 100_000], ['h2', 250_000], ['t', 600_000]],
  );
  // links[0] h1 → t, t → h1; links[1] t → h2, h2 → t; the link itself is 1 µs
  assert.deepEqual(latencies(pod), [
    [1_100_000, 1_600_000],
    [1_600_000, 1_250_000],
  ]);
  const t = pod.nodes.find((n) => n.name === 't')!;
  assert.deepEqual(t.ports.map((p) => [p.out.latencyPs, p.in.latencyPs]), [[1_600_000, 1_100_000], [1_600_000, 1_250_000]]);
  assert.equal('pipelineLatency' in t.config, false, 'a core key, not an extension’s');
});

test('without a pipeline latency every direction is the link’s own latency (the default 0)', () => {
  const pod = parseTopology(POD('').replace(', pipelineLatency: 250ns', ''));
  assert.deepEqual(pod.nodes.map((n) => n.pipelinePs), [0, 0, 0]);
  assert.deepEqual(latencies(pod), [[1_000_000, 1_000_000], [1_000_000, 1_000_000]]);
});

test('a node’s own pipeline latency beats the default for its kind', () => {
  const pod = parseTopology(POD('defaults: {pipelineLatency: {switch: 600ns}}', '{name: t, role: tor, pipelineLatency: 0ns}'));
  assert.deepEqual(pod.nodes.map((n) => n.pipelinePs), [0, 250_000, 0]);
});

test('a bad pipeline latency names where it is and what a duration looks like', () => {
  assertProblem(() => parseTopology(POD('', '{name: t, role: tor, pipelineLatency: fast}'), 'pipes.yaml'), {
    file: 'pipes.yaml',
    code: 'value',
    path: 'nodes[0].pipelineLatency',
    expected: 'a duration like 1us',
    actual: '"fast"',
  });
  assertProblem(() => parseTopology(POD('defaults: {pipelineLatency: {nic: 1us}}'), 'pipes.yaml'), {
    file: 'pipes.yaml',
    code: 'schema',
    path: 'defaults.pipelineLatency.nic',
    expected: 'one of the keys host, switch',
  });
});
