/**
 * The switch-port kinds of the fault table (issue 24): a stuck egress, a slow egress and a
 * switch-originated pause storm resolve to the switch, its port and the priority (null: the whole
 * port, or for a storm the switch's lossless priorities), and each bad input is refused with its
 * path and what was expected.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseTopology } from './load.js';
import { assertProblem, twoHostPod } from './testing.js';

const POD = twoHostPod('f', 'faults:\n');
const withFaults = (...items: string[]) => parseTopology(POD + items.map((i) => `  - ${i}\n`).join(''), 'f.yaml');

test('egressStuck, egressSlow and switchPauseStorm resolve to the switch, its port and the priority; the target is node:port', () => {
  const pod = withFaults(
    '{at: 1ms, kind: egressStuck, node: sw1, port: p2, for: 1ms}',
    '{at: 2ms, kind: egressStuck, node: sw1, port: p2, priority: 3}',
    '{at: 3ms, kind: egressSlow, node: sw1, port: p1, rate: 2.5G, for: 500us}',
    '{at: 4ms, kind: switchPauseStorm, node: sw1, port: p1, for: 2ms}',
    '{at: 5ms, kind: switchPauseStorm, node: sw1, port: p2, priority: 4}',
  );
  assert.deepEqual(
    pod.faults.map((f) => [f.target, f.forPs, f.params]),
    [
      ['sw1:p2', 1_000_000_000, { kind: 'egressStuck', node: 'sw1', port: 'p2', priority: null }],
      ['sw1:p2', null, { kind: 'egressStuck', node: 'sw1', port: 'p2', priority: 3 }],
      ['sw1:p1', 500_000_000, { kind: 'egressSlow', node: 'sw1', port: 'p1', priority: null, rateBps: 2.5e9 }],
      ['sw1:p1', 2_000_000_000, { kind: 'switchPauseStorm', node: 'sw1', port: 'p1', priority: null }],
      ['sw1:p2', null, { kind: 'switchPauseStorm', node: 'sw1', port: 'p2', priority: 4 }],
    ],
  );
});

test('bad switch-port faults name the path and what was expected: a host, an unknown port, a bad priority, a bad or too high rate, a storm on a credit link', () => {
  const cases: Array<[string, { path: string; code: 'schema' | 'reference' | 'value'; expected: string; actual?: string }]> = [
    ['{at: 1ms, kind: egressStuck, node: h1, port: p0}', { path: 'faults[0].node', code: 'reference', expected: 'the name of a switch (a egressStuck fault acts on one)', actual: '"h1" (a host)' }],
    ['{at: 1ms, kind: egressStuck, node: sw1, port: p9}', { path: 'faults[0].port', code: 'reference', expected: 'a port of sw1 (p1, p2)', actual: '"p9"' }],
    ['{at: 1ms, kind: egressStuck, node: sw1}', { path: 'faults[0].port', code: 'schema', expected: '(required)', actual: 'nothing' }],
    ['{at: 1ms, kind: switchPauseStorm, node: sw1, port: p1, priority: 8}', { path: 'faults[0].priority', code: 'schema', expected: 'a priority, an integer 0..7' }],
    ['{at: 1ms, kind: egressSlow, node: sw1, port: p1, rate: fast}', { path: 'faults[0].rate', code: 'value', expected: 'a rate like 40G' }],
    ['{at: 1ms, kind: egressSlow, node: sw1, port: p1}', { path: 'faults[0].rate', code: 'schema', expected: 'a rate like 40G, 100M or 2.5G (required)' }],
    ['{at: 1ms, kind: egressSlow, node: sw1, port: p1, rate: 100G}', { path: 'faults[0].rate', code: 'value', expected: "a rate below sw1:p1's link rate (40 Gb/s): a slower drain", actual: '"100G"' }],
    ['{at: 1ms, kind: egressSlow, node: sw1, port: p1, rate: 40G}', { path: 'faults[0].rate', code: 'value', expected: "a rate below sw1:p1's link rate (40 Gb/s)" }],
    ['{at: 1ms, kind: switchPauseStorm, node: sw1, port: p1, delay: 1ms}', { path: 'faults[0].delay', code: 'schema', expected: 'one of the keys' }],
  ];
  for (const [item, want] of cases) assertProblem(() => withFaults(item), { file: 'f.yaml', ...want });
});

test('a switch-originated storm on a credit link is refused: such a link has no PAUSE frames', () => {
  const pod = twoHostPod('f', 'faults:\n  - {at: 1ms, kind: switchPauseStorm, node: sw1, port: p1}\n').replace('  - {a: h1:p0, b: sw1:p1}', '  - {a: h1:p0, b: sw1:p1, flowControl: credit}');
  assertProblem(() => parseTopology(pod, 'f.yaml'), { file: 'f.yaml', path: 'faults[0].port', code: 'value', expected: 'a port in PFC flow control: a credit link has no PAUSE frames', actual: '"p1" (a credit link)' });
});
