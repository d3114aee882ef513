import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FAULT_KINDS, FAULT_KIND_NAMES } from './fault-kinds.js';
import { parseTopology } from './load.js';
import { assertProblem, twoHostPod } from './testing.js';

const POD = twoHostPod(
  'f',
  `workloads:
  - {kind: flow, from: h1, to: h2, sizeBytes: 1MB, start: 0us}
faults:
`,
);
const withFaults = (...items: string[]) => parseTopology(POD + items.map((i) => `  - ${i}\n`).join(''), 'f.yaml');

test('every kind resolves to base units, with for where it may last', () => {
  const pod = withFaults(
    '{at: 1ms, kind: linkDown, link: h1:p0, for: 2ms}',
    '{at: 1ms, kind: linkFlap, link: sw1:p2, period: 100us, count: 3}',
    '{at: 1ms, kind: loss, link: h1:p0, direction: out, rate: 1/256, for: 500us}',
    '{at: 1ms, kind: loss, link: h1:p0, dropIpIdLowByte: 255}',
    '{at: 1ms, kind: corrupt, link: h1:p0, rate: 0.01}',
    '{at: 1ms, kind: nicPauseStorm, node: h2, for: 1ms}',
    '{at: 1ms, kind: slowReceiver, node: h2, drainRate: 10G}',
    '{at: 1ms, kind: macFlush, node: sw1, host: h2}',
    '{at: 1ms, kind: arpExpire, node: sw1}',
    '{at: 1ms, kind: pfcMisconfig, node: sw1, port: p1, priority: 3, xoff: 20KB, xon: 10KB}',
    '{at: 1ms, kind: pfcMisconfig, node: h2, priority: 3, enabled: false}',
    '{at: 1ms, kind: ecnMisconfig, node: sw1, priority: 3, kmin: 5KB, kmax: 200KB, pmax: 0.2}',
    '{at: 1ms, kind: watchdog, node: sw1, enabled: false}',
    '{at: 1ms, kind: packetEvent, flow: {from: h1, to: h2}, packets: [5, 17], action: drop}',
    '{at: 3ms, kind: kill, node: h1, for: 1ms}',
    '{at: 3ms, kind: kill, node: sw1}',
    '{at: 5ms, kind: restart, node: sw1}',
    '{at: 1ms, kind: egressStuck, node: sw1, port: p2, for: 1ms}',
    '{at: 1ms, kind: egressSlow, node: sw1, port: p2, priority: 3, rate: 10G}',
    '{at: 1ms, kind: switchPauseStorm, node: sw1, port: p1}',
  );
  assert.deepEqual(pod.faults.map((f) => f.kind).sort(), [...FAULT_KIND_NAMES].filter((k) => k !== 'linkUp').flatMap((k) => (k === 'loss' || k === 'pfcMisconfig' || k === 'kill' ? [k, k] : [k])).sort());
  const by = (kind: string) => pod.faults.filter((f) => f.kind === kind);
  assert.deepEqual([by('linkDown')[0]!.forPs, by('linkDown')[0]!.target], [2_000_000_000, 'h1:p0']);
  assert.deepEqual(by('linkFlap')[0]!.params, { kind: 'linkFlap', link: { node: 'sw1', port: 'p2' }, periodPs: 100_000_000, count: 3 });
  assert.deepEqual(by('loss')[0]!.params, { kind: 'loss', link: { node: 'h1', port: 'p0' }, direction: 'out', rate: 1 / 256, dropIpIdLowByte: null });
  assert.deepEqual(by('slowReceiver')[0]!.params, { kind: 'slowReceiver', node: 'h2', drainBps: 10e9 });
  assert.deepEqual(by('pfcMisconfig')[0]!.params, { kind: 'pfcMisconfig', node: 'sw1', port: 'p1', priority: 3, enabled: null, xoffBytes: 20_000, xonBytes: 10_000 });
  assert.deepEqual(by('packetEvent')[0]!.target, 'h1>h2');
  assert.deepEqual(by('kill').map((f) => [f.target, f.forPs, f.params]), [
    ['h1', 1_000_000_000, { kind: 'kill', node: 'h1' }],
    ['sw1', null, { kind: 'kill', node: 'sw1' }],
  ]);
  assert.deepEqual([by('restart')[0]!.target, by('restart')[0]!.forPs], ['sw1', null]);
  for (const kind of FAULT_KIND_NAMES) assert.ok(FAULT_KINDS[kind].summary.length > 10, `${kind} has a summary`);
});

test('bad faults name file, path and what was expected', () => {
  const cases: Array<[string, { path: string; code: 'schema' | 'reference' | 'value'; expected: string }]> = [
    ['{at: 1ms, kind: meteor, node: sw1}', { path: 'faults[0].kind', code: 'schema', expected: 'one of "linkDown"' }],
    ['{at: 1ms, kind: linkDown, link: sw1:p9}', { path: 'faults[0].link', code: 'reference', expected: 'the endpoint node:port of a declared link' }],
    ['{at: 1ms, kind: nicPauseStorm, node: sw1}', { path: 'faults[0].node', code: 'reference', expected: 'the name of a host' }],
    ['{at: 1ms, kind: watchdog, node: h1, enabled: true}', { path: 'faults[0].node', code: 'reference', expected: 'the name of a switch' }],
    ['{at: 1ms, kind: macFlush, node: sw1, for: 1ms}', { path: 'faults[0].for', code: 'schema', expected: 'one of the keys' }],
    ['{at: 1ms, kind: loss, link: h1:p0}', { path: 'faults[0].rate', code: 'value', expected: 'exactly one of rate' }],
    ['{at: 1ms, kind: pfcMisconfig, node: sw1, priority: 3, xoff: 10KB, xon: 20KB}', { path: 'faults[0].xon', code: 'value', expected: 'an xon below xoff' }],
    ['{at: 1ms, kind: pfcMisconfig, node: sw1, port: p7, priority: 3, enabled: false}', { path: 'faults[0].port', code: 'reference', expected: 'a port of sw1' }],
    ['{at: 1ms, kind: macFlush, node: sw1, host: h9}', { path: 'faults[0].host', code: 'reference', expected: 'a host attached to sw1' }],
    ['{at: 1ms, kind: packetEvent, flow: {from: h1, to: sw1}, packets: [1], action: drop}', { path: 'faults[0].flow.to', code: 'reference', expected: 'the name of a host' }],
    ['{at: 1ms, kind: linkDown, link: h1:p0, for: 0ms}', { path: 'faults[0].for', code: 'value', expected: 'a duration above 0' }],
    ['{at: soon, kind: linkDown, link: h1:p0}', { path: 'faults[0].at', code: 'value', expected: 'a duration like 1us' }],
    ['{at: 1ms, kind: kill, node: h9}', { path: 'faults[0].node', code: 'reference', expected: 'the name of a node (a kill fault acts on one)' }],
    ['{at: 1ms, kind: restart, node: sw1, for: 1ms}', { path: 'faults[0].for', code: 'schema', expected: 'one of the keys' }],
  ];
  for (const [item, want] of cases) assertProblem(() => withFaults(item), { file: 'f.yaml', ...want });
});
