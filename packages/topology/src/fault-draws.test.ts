import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Problems } from './errors.js';
import { drawStream } from './fault-draws.js';
import { resolveFault } from './fault-kinds.js';
import type { RawFault } from './pod.js';
import { parseTopology } from './load.js';
import { faultContext } from './references.js';
import { assertProblem } from './testing.js';

const POD = `name: d
seed: SEED
nodes:
  - {name: leaf1, role: leaf}
  - {name: tor1, role: tor, subnet: 10.0.1.0/24}
  - {name: tor2, role: tor, subnet: 10.0.2.0/24}
  - {name: h1, role: host, ip: 10.0.1.1}
  - {name: h2, role: host, ip: 10.0.1.2}
  - {name: h3, role: host, ip: 10.0.2.1}
links:
  - {a: h1:p0, b: tor1:p1}
  - {a: h2:p0, b: tor1:p2}
  - {a: h3:p0, b: tor2:p1}
  - {a: tor1:up1, b: leaf1:down1}
  - {a: tor2:up1, b: leaf1:down2}
faults:
`;
const withFaults = (seed: number, ...items: string[]) => parseTopology(POD.replace('SEED', String(seed)) + items.map((i) => `  - ${i}\n`).join(''), 'd.yaml');

const CHAOS = ['{at: {uniform: [2ms, 3ms]}, kind: kill, node: {random: [leaf1, tor1, tor2]}, for: {uniform: [1ms, 2ms]}}', '{at: {uniform: [1ms, 4ms]}, kind: kill, node: {random: host}, for: 3ms}'];

test('random forms are drawn once at load, from the seed, into a concrete item; what they were drawn from is kept', () => {
  const pod = withFaults(11, ...CHAOS);
  const [sw, host] = [...pod.faults].sort((x, y) => x.index - y.index) as [(typeof pod.faults)[0], (typeof pod.faults)[0]];
  // One uniformInt per key, from the fault's own stream (seed, <pod>, fault:<index>:<key>).
  const node = ['leaf1', 'tor1', 'tor2'][drawStream(11, 0, 'node').uniformInt(0, 2)]!;
  const atPs = drawStream(11, 0, 'at').uniformInt(2e9, 3e9);
  const forPs = drawStream(11, 0, 'for').uniformInt(1e9, 2e9);
  assert.deepEqual([sw.target, sw.atPs, sw.forPs, sw.params], [node, atPs, forPs, { kind: 'kill', node }]);
  assert.equal(sw.raw.node, node);
  assert.equal(typeof sw.raw.at, 'string', 'the item as drawn: an exact duration');
  assert.deepEqual(sw.drawnFrom, { node: { random: ['leaf1', 'tor1', 'tor2'] }, at: { uniform: ['2ms', '3ms'] }, for: { uniform: ['1ms', '2ms'] } });
  // A role draws from its nodes by name; a fixed key stays as written.
  assert.equal(host.target, ['h1', 'h2', 'h3'][drawStream(11, 1, 'node').uniformInt(0, 2)]);
  assert.deepEqual([host.forPs, host.raw.for, host.drawnFrom], [3e9, '3ms', { node: { random: 'host' }, at: { uniform: ['1ms', '4ms'] } }]);
  // Reloading gives the same; the concrete item resolves to the same fault again (what members do).
  assert.deepEqual(withFaults(11, ...CHAOS).faults, pod.faults);
  const again = resolveFault(sw.raw, 0, 'f', faultContext(new Map(pod.nodes.map((n) => [n.name, n])), pod.links), new Problems());
  assert.deepEqual([again?.target, again?.atPs, again?.forPs, again?.drawnFrom], [sw.target, sw.atPs, sw.forPs, undefined]);
  // A fixed fault has no drawnFrom.
  assert.equal(withFaults(11, '{at: 1ms, kind: kill, node: h1}').faults[0]!.drawnFrom, undefined);
});

test('each fault draws from its own streams: adding a fault before or a random key to another does not move a draw', () => {
  const alone = withFaults(11, CHAOS[0]!).faults[0]!;
  const withOther = withFaults(11, CHAOS[0]!, CHAOS[1]!).faults.find((f) => f.index === 0)!;
  assert.deepEqual([withOther.target, withOther.atPs, withOther.forPs], [alone.target, alone.atPs, alone.forPs]);
  // Over seeds, the draws cover the choices and stay inside the intervals, both ends included.
  const seen = new Set<string>();
  for (let seed = 0; seed < 40; seed++) {
    const f = withFaults(seed, CHAOS[0]!).faults[0]!;
    seen.add(f.target);
    assert.ok(f.atPs >= 2e9 && f.atPs <= 3e9 && f.forPs! >= 1e9 && f.forPs! <= 2e9, `seed ${seed}: ${f.atPs} ${f.forPs}`);
  }
  assert.deepEqual([...seen].sort(), ['leaf1', 'tor1', 'tor2']);
  const point = withFaults(3, '{at: {uniform: [2ms, 2ms]}, kind: kill, node: {random: [tor2]}}').faults[0]!;
  assert.deepEqual([point.atPs, point.target], [2e9, 'tor2']);
});

test('bad random forms name file, path and what was expected', () => {
  const cases: Array<[string, { path: string; code: 'schema' | 'reference' | 'value'; expected: string; actual?: string }]> = [
    ['{at: 1ms, kind: kill, node: {random: []}}', { path: 'faults[0].node.random', code: 'schema', expected: 'a list of distinct node names, or a role: host, switch, tor, leaf, spine' }],
    ['{at: 1ms, kind: kill, node: {random: [h1, h1]}}', { path: 'faults[0].node.random', code: 'schema', expected: 'a list of distinct node names, or a role' }],
    ['{at: 1ms, kind: kill, node: {random: core}}', { path: 'faults[0].node.random', code: 'schema', expected: 'one of "host", "switch", "tor", "leaf", "spine"' }],
    ['{at: 1ms, kind: kill, node: {pick: [h1]}}', { path: 'faults[0].node.pick', code: 'schema', expected: 'one of the keys random' }],
    ['{at: 1ms, kind: kill, node: 7}', { path: 'faults[0].node', code: 'schema', expected: "a node name, or one drawn from the pod's seed" }],
    ['{at: 1ms, kind: linkDown, link: h1:p0, node: {random: [h1]}}', { path: 'faults[0].node', code: 'schema', expected: 'one of the keys' }],
    ['{at: 1ms, kind: kill, node: {random: [h1, h9]}}', { path: 'faults[0].node.random[1]', code: 'reference', expected: 'the name of a node (a kill fault acts on one)', actual: '"h9"' }],
    ['{at: 1ms, kind: nicPauseStorm, node: {random: [h1, tor1]}}', { path: 'faults[0].node.random[1]', code: 'reference', expected: 'the name of a host', actual: '"tor1" (a tor)' }],
    ['{at: 1ms, kind: watchdog, node: {random: host}, enabled: true}', { path: 'faults[0].node.random', code: 'reference', expected: 'a role with nodes in this pod that a watchdog fault acts on (a switch)', actual: '"host" (3 nodes, none a switch)' }],
    ['{at: 1ms, kind: kill, node: {random: spine}}', { path: 'faults[0].node.random', code: 'reference', expected: 'a role with nodes in this pod', actual: '"spine" (no node of this pod has it)' }],
    ['{at: {uniform: [2ms]}, kind: kill, node: h1}', { path: 'faults[0].at.uniform', code: 'schema', expected: 'a pair of durations [earliest, latest]' }],
    ['{at: 5, kind: kill, node: h1}', { path: 'faults[0].at', code: 'schema', expected: 'a time: a duration like 1us, 500ns, 1.5us or 2ms, or {uniform: [0us, 500us]}' }],
    ['{at: {uniform: [4ms, 2ms]}, kind: kill, node: h1}', { path: 'faults[0].at.uniform', code: 'value', expected: 'an interval [earliest, latest] with earliest ≤ latest' }],
    ['{at: {uniform: [soon, 2ms]}, kind: kill, node: h1}', { path: 'faults[0].at.uniform[0]', code: 'value', expected: 'a duration like 1us', actual: '"soon"' }],
    ['{at: 1ms, kind: kill, node: h1, for: {uniform: [0ms, 0ms]}}', { path: 'faults[0].for', code: 'value', expected: 'a duration above 0' }],
    ['{at: 1ms, kind: macFlush, node: tor1, for: {uniform: [1ms, 2ms]}}', { path: 'faults[0].for', code: 'schema', expected: 'one of the keys' }],
  ];
  for (const [item, want] of cases) assertProblem(() => withFaults(1, item), { file: 'd.yaml', ...want });
});

test("the rules across kills and restarts run on the values drawn, and the problem says what was drawn", () => {
  // A 1 ms kill of tor1 drawn in [1ms, 2ms], then another kill of tor1 at 2.5 ms: fine when the
  // first one ends first; with for drawn in [1ms, 3ms] the seed decides. Find a seed where it clashes.
  const items = (seed: number) => withFaults(seed, '{at: {uniform: [1ms, 2ms]}, kind: kill, node: tor1, for: {uniform: [1ms, 3ms]}}', '{at: 3500us, kind: kill, node: tor1, for: 1ms}');
  const clash = Array.from({ length: 40 }, (_, seed) => seed).find((seed) => {
    const at = drawStream(seed, 0, 'at').uniformInt(1e9, 2e9);
    return at + drawStream(seed, 0, 'for').uniformInt(1e9, 3e9) > 3.5e9;
  })!;
  const fine = Array.from({ length: 40 }, (_, seed) => seed).find((seed) => seed !== clash && drawStream(seed, 0, 'at').uniformInt(1e9, 2e9) + drawStream(seed, 0, 'for').uniformInt(1e9, 3e9) < 3.5e9)!;
  assert.equal(items(fine).faults.length, 2);
  assertProblem(() => items(clash), { file: 'd.yaml', code: 'value', path: 'faults[1].at', expected: 'a time when tor1 is alive', actual: `from {"uniform":["1ms","3ms"]}; seed ${clash})` });
});

test('the fault API has no seed to draw from: random forms are refused there', () => {
  const pod = withFaults(1, '{at: 1ms, kind: kill, node: h1}');
  const ctx = faultContext(new Map(pod.nodes.map((n) => [n.name, n])), pod.links);
  const problems = new Problems();
  const raw = { at: '1ms', kind: 'kill', node: { random: 'host' }, for: { uniform: ['1ms', '2ms'] } } as unknown as RawFault;
  assert.equal(resolveFault(raw, 4, 'fault', ctx, problems), null);
  assert.deepEqual(
    problems.list.map((p) => [p.path, p.expected.split(' (')[0]]),
    [
      ['fault.node', 'a fixed node name'],
      ['fault.for', 'a fixed time'],
    ],
  );
});
