import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseTopology } from './load.js';
import { nodeLives, restartGaps, type LifeFault } from './node-lives.js';
import { assertProblem, twoHostPod } from './testing.js';

// 40G, 1 µs, MTU 1024: the longest frame is 1024 + 62 + 16 (RETH) + 20 (preamble, gap) = 1122 B
// = 224,400 ps; a restart comes at least 1 µs + 224.4 ns = 1.2244 µs after its kill.
const POD = twoHostPod(
  'lives',
  `defaults:
  link: {rate: 40G, latency: 1us, mtu: 1024}
faults:
`,
);
const withFaults = (...items: string[]) => parseTopology(POD + items.map((i) => `  - ${i}\n`).join(''), 'lives.yaml');
const GAP_PS = 1_224_400;

test('the restart gap: the longest link latency plus one MTU frame, per node', () => {
  const pod = withFaults('{at: 1ms, kind: kill, node: h1}');
  const gaps = restartGaps(pod.links);
  assert.deepEqual([gaps.get('h1'), gaps.get('sw1')], [GAP_PS, GAP_PS]);
  const slow = parseTopology(POD.replace('  - {a: h2:p0, b: sw1:p2}', '  - {a: h2:p0, b: sw1:p2, rate: 10G, latency: 5us}').slice(0, -'faults:\n'.length), 'slow.yaml');
  // 5 µs + 1122 B at 10G (897.6 ns); sw1 takes the worst of its links, h1 keeps its own.
  assert.deepEqual([restartGaps(slow.links).get('sw1'), restartGaps(slow.links).get('h1'), restartGaps(slow.links).get('h2')], [5_897_600, GAP_PS, 5_897_600]);
});

test('kills and restarts that keep the rules load, in time order whatever their order in the file', () => {
  const pod = withFaults(
    '{at: 5ms, kind: restart, node: sw1}',
    '{at: 1ms, kind: kill, node: h1, for: 1ms}',
    '{at: 2ms, kind: kill, node: h1}', // the instant fault 1 restarts h1: fault 1 (a lower number) goes first
    '{at: 3ms, kind: kill, node: sw1}',
    '{at: 1ms, kind: kill, node: h2, for: 1224400ps}',
  );
  const { lives, problems } = nodeLives(pod.faults);
  assert.deepEqual(problems, []);
  assert.deepEqual(
    lives.map((l) => [l.node, l.killedAtPs, l.restartedAtPs, l.kill, l.restart]),
    [
      ['h1', 1e9, 2e9, 1, 1],
      ['h2', 1e9, 1e9 + GAP_PS, 4, 4],
      ['h1', 2e9, null, 2, null],
      ['sw1', 3e9, 5e9, 3, 0],
    ],
  );
});

test('a restart of a living node, a kill of a dead one, a restart too soon: file, path and why', () => {
  assertProblem(() => withFaults('{at: 1ms, kind: restart, node: h1}'), { file: 'lives.yaml', code: 'value', path: 'faults[0].at', expected: 'a time when h1 is dead (a restart boots a killed node)', actual: '1ms: h1 is alive' });
  assertProblem(() => withFaults('{at: 1ms, kind: kill, node: h1}', '{at: 2ms, kind: kill, node: h1}'), {
    file: 'lives.yaml',
    code: 'value',
    path: 'faults[1].at',
    expected: 'a time when h1 is alive',
    actual: '2ms: h1 is dead since 1ms (fault 0)',
  });
  assertProblem(() => withFaults('{at: 1ms, kind: kill, node: sw1}', '{at: 1001us, kind: restart, node: sw1}'), {
    file: 'lives.yaml',
    code: 'value',
    path: 'faults[1].at',
    expected: "a restart at least 1.2244us after the kill (sw1's longest link latency plus one MTU frame): every frame on the wire toward it when it died must reach it dead",
    actual: '1us after its kill at 1ms',
  });
  assertProblem(() => withFaults('{at: 1ms, kind: kill, node: h1, for: 1us}'), { file: 'lives.yaml', code: 'value', path: 'faults[0].for', expected: 'a for of at least 1.2244us after the kill', actual: '1us' });
  assertProblem(() => withFaults('{at: 1ms, kind: kill, node: h1, for: 2ms}', '{at: 2ms, kind: restart, node: h1}'), {
    file: 'lives.yaml',
    code: 'value',
    path: 'faults[1].at',
    expected: 'a node killed without for (fault 0 restarts h1 itself at 3ms)',
    actual: '2ms',
  });
  // At one instant the engine goes by fault number: a kill listed before the restart of the
  // previous life finds the node still dead.
  assertProblem(() => withFaults('{at: 2ms, kind: kill, node: h1}', '{at: 1ms, kind: kill, node: h1, for: 1ms}'), { file: 'lives.yaml', code: 'value', path: 'faults[0].at', expected: 'a time when h1 is alive' });
});

test('clears (the fault API): a clear restarts early; a kill waits out the cleared kill\'s own restart; a clear too soon or of a kill undone is refused', () => {
  const kill = (index: number, atPs: number, forPs: number | null, target = 'h1'): LifeFault => ({ index, atPs, forPs, kind: 'kill', target });
  const gaps = new Map([['h1', GAP_PS]]);
  const early = nodeLives([kill(0, 1e9, 10e9), kill(2, 8e9, null), kill(3, 12e9, null)], [{ index: 1, fault: 0, atPs: 5e9 }], gaps);
  assert.deepEqual(
    early.lives.map((l) => [l.kill, l.killedAtPs, l.restart, l.restartedAtPs]),
    [
      [0, 1e9, 1, 5e9],
      [3, 12e9, null, null],
    ],
  );
  assert.deepEqual(early.problems.map((p) => [p.fault, p.key]), [[2, 'at']]);
  assert.match(early.problems[0]!.expected, /a time after 11ms, when the restart of fault 0 \(its for; it was cleared earlier\) no longer brings h1's links up/);

  const soon = nodeLives([kill(0, 1e9, null)], [{ index: 1, fault: 0, atPs: 1e9 + 1000 }], gaps);
  assert.deepEqual(soon.problems.map((p) => [p.fault, p.key, p.actual]), [[1, 'at', '1ns after its kill at 1ms']]);

  const undone = nodeLives([kill(0, 1e9, null), { index: 1, atPs: 2e9, forPs: null, kind: 'restart', target: 'h1' }], [{ index: 2, fault: 0, atPs: 3e9 }], gaps);
  assert.deepEqual(undone.problems.map((p) => [p.fault, p.expected, p.actual]), [[2, 'a kill still in force (fault 0 keeps h1 dead)', '3ms: h1 is alive']]);
  assert.deepEqual(undone.lives.map((l) => [l.restart, l.restartedAtPs]), [[1, 2e9]]);
});
