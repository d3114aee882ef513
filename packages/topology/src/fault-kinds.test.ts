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
    // issue 24, link and configuration faults
    '{at: 1ms, kind: linkRate, link: h1:p0, rate: 10G, for: 1ms}',
    '{at: 1ms, kind: mtuMismatch, node: sw1, port: p2, mtu: 1000}',
    '{at: 1ms, kind: dscpMisconfig, node: sw1, port: p1, dscp: 26, priority: 0}',
    '{at: 1ms, kind: ecmpMisconfig, node: sw1, seed: 7, fields: [dstIp]}',
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

test('issue 24 link faults resolve to base units; linkDown without direction is both ways, as before', () => {
  const pod = withFaults(
    '{at: 1ms, kind: linkDown, link: h1:p0}',
    '{at: 1ms, kind: linkDown, link: sw1:p2, direction: in, for: 1ms}',
    '{at: 1ms, kind: linkRate, link: h1:p0, direction: out, rate: 25G}',
    '{at: 1ms, kind: mtuMismatch, node: h2, port: p0, mtu: 1500, for: 2ms}',
    '{at: 1ms, kind: dscpMisconfig, node: h1, priority: 0}',
    '{at: 1ms, kind: dscpMisconfig, node: sw1, priority: 1}',
    '{at: 1ms, kind: ecmpMisconfig, node: sw1, hash: hpcc-ns3}',
  );
  assert.deepEqual(
    pod.faults.map((f) => [f.target, f.forPs, f.params]),
    [
      ['h1:p0', null, { kind: 'linkDown', link: { node: 'h1', port: 'p0' }, direction: 'both' }],
      ['sw1:p2', 1_000_000_000, { kind: 'linkDown', link: { node: 'sw1', port: 'p2' }, direction: 'in' }],
      ['h1:p0', null, { kind: 'linkRate', link: { node: 'h1', port: 'p0' }, direction: 'out', rateBps: 25e9 }],
      ['h2:p0', 2_000_000_000, { kind: 'mtuMismatch', node: 'h2', port: 'p0', ipMtuBytes: 1500 }],
      ['h1', null, { kind: 'dscpMisconfig', node: 'h1', port: null, dscp: null, priority: 0 }],
      ['sw1', null, { kind: 'dscpMisconfig', node: 'sw1', port: null, dscp: null, priority: 1 }],
      ['sw1', null, { kind: 'ecmpMisconfig', node: 'sw1', seed: null, hash: 'hpcc-ns3', fields: null }],
    ],
  );
});

test('issue 24 link faults: bad inputs name the path and what was expected', () => {
  const cases: Array<[string, { path: string; code: 'schema' | 'reference' | 'value'; expected: string; actual?: string }]> = [
    ['{at: 1ms, kind: linkDown, link: h1:p0, direction: sideways}', { path: 'faults[0].direction', code: 'schema', expected: 'one of "both", "out", "in"' }],
    ['{at: 1ms, kind: linkRate, link: h1:p0, rate: 100G}', { path: 'faults[0].rate', code: 'value', expected: "a rate below the link's configured 40 Gb/s", actual: '"100G"' }],
    ['{at: 1ms, kind: linkRate, link: h1:p0, direction: in, rate: 40G}', { path: 'faults[0].rate', code: 'value', expected: 'sw1:p1 transmits at it' }],
    ['{at: 1ms, kind: linkRate, link: h1:p0}', { path: 'faults[0].rate', code: 'schema', expected: 'a rate like 40G' }],
    ['{at: 1ms, kind: linkRate, link: h1:p0, rate: fast}', { path: 'faults[0].rate', code: 'value', expected: 'a rate like 40G', actual: '"fast"' }],
    ['{at: 1ms, kind: mtuMismatch, node: sw1, port: p9, mtu: 1000}', { path: 'faults[0].port', code: 'reference', expected: 'a port of sw1 (p1, p2)' }],
    ['{at: 1ms, kind: mtuMismatch, node: sw1, port: p1, mtu: 20}', { path: 'faults[0].mtu', code: 'schema', expected: 'an IP MTU in bytes, an integer 68..65535' }],
    ['{at: 1ms, kind: dscpMisconfig, node: sw1, dscp: 64, priority: 0}', { path: 'faults[0].dscp', code: 'schema', expected: 'a DSCP, an integer 0..63' }],
    ['{at: 1ms, kind: dscpMisconfig, node: sw1, dscp: 26}', { path: 'faults[0].priority', code: 'schema', expected: 'a priority, an integer 0..7 (required)' }],
    ['{at: 1ms, kind: dscpMisconfig, node: h1, port: p0, priority: 0}', { path: 'faults[0].port', code: 'value', expected: 'no port on a host' }],
    ['{at: 1ms, kind: ecmpMisconfig, node: sw1}', { path: 'faults[0].seed', code: 'value', expected: 'seed, hash or fields' }],
    ['{at: 1ms, kind: ecmpMisconfig, node: h1, seed: 1}', { path: 'faults[0].node', code: 'reference', expected: 'the name of a switch' }],
    ['{at: 1ms, kind: ecmpMisconfig, node: sw1, fields: []}', { path: 'faults[0].fields', code: 'schema', expected: 'the fields hashed' }],
    ['{at: 1ms, kind: ecmpMisconfig, node: sw1, fields: [dstMac]}', { path: 'faults[0].fields[0]', code: 'schema', expected: 'one of "srcIp", "dstIp", "srcPort"' }],
  ];
  for (const [item, want] of cases) assertProblem(() => withFaults(item), { file: 'f.yaml', ...want });
});
