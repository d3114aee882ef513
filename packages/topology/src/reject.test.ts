import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { TopologyError } from './errors.js';
import { loadTopologyFile, parseTopology } from './load.js';
import { assertProblem, fixture } from './testing.js';

const TREE = readFileSync(fixture('tree.yaml'), 'utf8');
const FILE = 'tree.yaml';

/** tree.yaml with one exact substring replaced (the substring must exist). */
function tree(from: string, to: string): string {
  assert.ok(TREE.includes(from), `tree.yaml has no "${from}"`);
  return TREE.replace(from, to);
}

const parse = (text: string) => () => parseTopology(text, FILE);

test('dangling link end', () => {
  assertProblem(parse(tree('{a: sw1:p9, b: sw2:p9}', '{a: sw1:p9, b: sw3:p9}')), {
    file: FILE,
    code: 'reference',
    path: 'links[4].b',
    expected: 'an endpoint node:port on a declared node',
    actual: '"sw3:p9" (no node named sw3)',
  });
});

test('duplicate node name', () => {
  assertProblem(parse(tree('{name: h4, role: host, ip: 10.0.2.2}', '{name: h3, role: host, ip: 10.0.2.2}')), {
    file: FILE,
    code: 'wiring',
    path: 'nodes[5].name',
    expected: 'a unique node name',
    actual: '"h3" (also nodes[4])',
  });
});

test('host without a ToR link, and a host linked to a host', () => {
  assertProblem(parse(tree('  - {a: h4:p0, b: sw2:p2}\n', '')), {
    file: FILE,
    code: 'wiring',
    path: 'nodes[5]',
    expected: 'a host with exactly one link, to a ToR (role tor or switch)',
    actual: 'no link',
  });
  assertProblem(parse(tree('{a: h4:p0, b: sw2:p2}', '{a: h4:p0, b: h3:p1}')), {
    file: FILE,
    code: 'wiring',
    path: 'nodes[5]',
    expected: 'a host with exactly one link, to a ToR (role tor or switch)',
    actual: 'a link to host h3 (links[3])',
  });
  assertProblem(parse(tree('{a: sw1:p9, b: sw2:p9}', '{a: sw1:p9, b: h1:p1}')), {
    file: FILE,
    code: 'wiring',
    path: 'nodes[2]',
    expected: 'a host with exactly one link, to a ToR (role tor or switch)',
    actual: '2 links (links[0], links[4])',
  });
  assertProblem(parse(tree('{name: sw2, role: tor, subnet: 10.0.2.0/24}', '{name: sw2, role: spine, subnet: 10.0.2.0/24}')), {
    file: FILE,
    code: 'wiring',
    path: 'nodes[4]',
    expected: 'a host with exactly one link, to a ToR (role tor or switch)',
    actual: 'a link to spine sw2 (links[2])',
  });
});

test('rate 40Q names the link, the key and the accepted forms', () => {
  const text = tree('{a: h1:p0, b: sw1:p1}', '{a: h1:p0, b: sw1:p1, rate: 40Q}');
  assertProblem(parse(text), { file: FILE, code: 'value', path: 'links[0].rate', expected: 'a rate like 40G, 100M or 2.5G', actual: '"40Q"' });
  assert.throws(parse(text), { message: 'tree.yaml: links[0].rate: expected a rate like 40G, 100M or 2.5G, got "40Q"' });
});

test('unknown top-level key and unknown nested keys are named', () => {
  assertProblem(parse(tree('seed: 7\n', 'seed: 7\nnodez: []\n')), {
    file: FILE,
    code: 'schema',
    path: 'nodez',
    expected: 'one of the keys name, seed, profile, timing, defaults, nodes, links, workloads, faults',
    actual: 'unknown key "nodez"',
  });
  assertProblem(parse(tree('{a: h1:p0, b: sw1:p1}', '{a: h1:p0, b: sw1:p1, raet: 40G}')), { file: FILE, code: 'schema', path: 'links[0].raet', expected: 'one of the keys a, b, rate', actual: 'unknown key "raet"' });
  assertProblem(parse(tree('start: 0us}', 'start: 0us, sizeByte: 1}')), { file: FILE, code: 'schema', path: 'workloads[0].sizeByte', expected: 'one of the keys kind, from, to, sizeBytes', actual: 'unknown key "sizeByte"' });
  assertProblem(parse(tree('link: {rate', 'link: {mut: 9000, rate')), { file: FILE, code: 'schema', path: 'defaults.link.mut', expected: 'one of the keys rate, latency, mtu, creditBuffer, flowControl, impairments', actual: 'unknown key "mut"' });
});

test('workload naming an unknown host or a switch', () => {
  assertProblem(parse(tree('from: h1, to: h3', 'from: h1, to: h9')), { file: FILE, code: 'reference', path: 'workloads[0].to', expected: 'the name of a host', actual: '"h9" (no such node)' });
  assertProblem(parse(tree('from: h4, to: h2', 'from: sw2, to: h2')), { file: FILE, code: 'reference', path: 'workloads[1].from', expected: 'the name of a host', actual: '"sw2" (a tor)' });
  assertProblem(parse(tree('from: h1, to: h3', 'from: h1, to: h1')), { file: FILE, code: 'value', path: 'workloads[0].to', expected: 'a host other than the sender (h1)', actual: '"h1"' });
});

test('size not a non-negative integer', () => {
  const expected = 'a size in bytes: a non-negative integer or a string like 4MB, 1.5KB or 1MiB';
  assertProblem(parse(tree('sizeBytes: 4MB, start: 0us}', 'sizeBytes: -4, start: 0us}')), { file: FILE, code: 'value', path: 'workloads[0].sizeBytes', expected, actual: '-4' });
  assertProblem(parse(tree('sizeBytes: 4MB, start: 0us}', 'sizeBytes: 1.5, start: 0us}')), { file: FILE, code: 'schema', path: 'workloads[0].sizeBytes', expected, actual: '1.5' });
  assertProblem(parse(tree('sizeBytes: 4MB, start: 0us}', 'sizeBytes: 1.5B, start: 0us}')), { file: FILE, code: 'value', path: 'workloads[0].sizeBytes', expected, actual: '"1.5B"' });
});

test('every bad field of one workload item is reported', () => {
  const text = tree('start: {uniform: [0us, 500us]}}', 'start: {uniform: [9us, 5xs]}, rate: 40Q}');
  assert.throws(parse(text), (err: unknown) => {
    assert.ok(err instanceof TopologyError);
    assert.deepEqual(err.problems.map((p) => [p.path, p.actual]), [
      ['workloads[2].start.uniform[1]', '"5xs"'],
      ['workloads[2].rate', '"40Q"'],
    ]);
    return true;
  });
});

test('YAML syntax errors and duplicate keys carry line:col', () => {
  const bad = tree('  - {name: sw2, role: tor, subnet: 10.0.2.0/24}\n', '  - {name: sw2, role: tor, subnet: 10.0.2.0/24\n');
  const problem = assertProblem(parse(bad), { file: FILE, code: 'yaml', path: '<root>', expected: 'valid YAML' });
  const lineOfSw2 = TREE.split('\n').findIndex((l) => l.includes('name: sw2')) + 1;
  assert.ok(problem.line! >= lineOfSw2, `line ${problem.line}`);
  assert.throws(parse(bad), (err: unknown) => err instanceof TopologyError && err.message.startsWith(`${FILE}:${problem.line}:${problem.col}: `));

  const dup = tree('seed: 7\n', 'seed: 7\nseed: 8\n');
  const lineOfDup = dup.split('\n').indexOf('seed: 8') + 1;
  assert.throws(parse(dup), { code: 'yaml', message: `${FILE}:${lineOfDup}:1: Map keys must be unique (expected valid YAML)` });
});

test('every problem is reported, one per line', () => {
  const text = tree('{a: h1:p0, b: sw1:p1}', '{a: h1:p0, b: sw1:p1, rate: 40Q}').replace('from: h1, to: h3', 'from: h1, to: h9').replace('{a: sw1:p9, b: sw2:p9}', '{a: sw1:p9, b: sw3:p9}');
  assert.throws(parse(text), (err: unknown) => {
    assert.ok(err instanceof TopologyError);
    assert.deepEqual(err.problems.map((p) => p.path), ['links[0].rate', 'links[4].b', 'workloads[0].to']);
    assert.equal(err.message.split('\n').length, 3);
    assert.equal(err.path, 'links[0].rate');
    assert.equal(err.code, 'value');
    return true;
  });
});

test('other wiring and value rules', () => {
  const cases: Array<[string, string, Parameters<typeof assertProblem>[1]]> = [
    ['{a: h2:p0, b: sw1:p2}', '{a: h2:p0, b: sw1:p1}', { file: FILE, code: 'wiring', path: 'links[1].b', expected: 'a port no other link uses', actual: '"sw1:p1" (also links[0].b)' }],
    ['{a: sw1:p9, b: sw2:p9}', '{a: sw1:p9, b: sw1:p8}', { file: FILE, code: 'wiring', path: 'links[4].b', expected: "an endpoint on a node other than a's (sw1)" }],
    ['{name: sw1, role: tor, subnet: 10.0.1.0/24}', '{name: sw1, role: tor, subnet: 10.0.1.1/24}', { file: FILE, code: 'value', path: 'nodes[0].subnet', expected: 'a subnet like 10.0.1.0/24 with no host bits set' }],
    ['{name: sw1, role: tor, subnet: 10.0.1.0/24}', '{name: sw1, role: spine, subnet: 10.0.1.0/24}', { file: FILE, code: 'schema', path: 'nodes[0].subnet', expected: 'no subnet (only tors declare one)' }],
    ['{name: sw1, role: tor, subnet: 10.0.1.0/24}', '{name: sw1, role: tor, ip: 10.0.1.254}', { file: FILE, code: 'schema', path: 'nodes[0].ip', expected: 'no ip on a switch' }],
    ['{name: h2, role: host, ip: 10.0.1.2}', '{name: h2, role: host}', { file: FILE, code: 'schema', path: 'nodes[3].ip', expected: 'an IPv4 address like 10.0.1.11 (required for a host)', actual: 'nothing' }],
    ['{name: h2, role: host, ip: 10.0.1.2}', '{name: h2, role: host, ip: 10.0.1.1}', { file: FILE, code: 'wiring', path: 'nodes[3].ip', expected: 'a host IP no other node uses', actual: '"10.0.1.1" (also nodes[2])' }],
    ['{name: h2, role: host, ip: 10.0.1.2}', '{name: h2, role: host, ip: 10.0.9.2}', { file: FILE, code: 'wiring', path: 'nodes[3].ip', expected: "an address inside sw1's subnet 10.0.1.0/24" }],
    ['{name: h2, role: host, ip: 10.0.1.2}', '{name: H2, role: host, ip: 10.0.1.2}', { file: FILE, code: 'schema', path: 'nodes[3].name', expected: "a node name: lowercase letters, digits and '-'" }],
    ['{name: h2, role: host, ip: 10.0.1.2}', '{name: h2, role: hots, ip: 10.0.1.2}', { file: FILE, code: 'schema', path: 'nodes[3].role', expected: 'one of "host", "tor", "leaf", "spine", "switch"', actual: '"hots"' }],
    ['seed: 7', 'seed: 4294967296', { file: FILE, code: 'schema', path: 'seed', expected: 'a seed, an integer 0..4294967295' }],
    ['name: tree\n', '', { file: FILE, code: 'schema', path: 'name', expected: 'a pod name (a non-empty string) (required)', actual: 'nothing' }],
    ['mtu: 1024}', 'mtu: 100}', { file: FILE, code: 'schema', path: 'defaults.link.mtu', expected: 'an integer 256..9000', actual: '100' }],
    ['latency: 1us', 'latency: 1', { file: FILE, code: 'schema', path: 'defaults.link.latency', expected: 'a duration like 1us', actual: '1' }],
    ['{a: sw1:p9, b: sw2:p9}', '{a: sw1:p9, b: sw2:p9, impairments: {b_to_a: {loss: 3/2}}}', { file: FILE, code: 'value', path: 'links[4].impairments.b_to_a.loss', expected: 'a probability 0..1', actual: '"3/2"' }],
    ['start: {uniform: [0us, 500us]}', 'start: {uniform: [0us, 500]}', { file: FILE, code: 'schema', path: 'workloads[2].start.uniform[1]', expected: 'a duration like 1us' }],
    ['start: {uniform: [0us, 500us]}', 'start: {uniform: [600us, 500us]}', { file: FILE, code: 'value', path: 'workloads[2].start.uniform', expected: 'an interval [earliest, latest]' }],
    ['start: {uniform: [0us, 500us]}', 'start: 5', { file: FILE, code: 'schema', path: 'workloads[2].start', expected: 'a start time' }],
    ['{kind: flow, from: h1', '{kind: flwo, from: h1', { file: FILE, code: 'schema', path: 'workloads[0].kind', expected: 'one of "flow"', actual: '"flwo"' }],
    ['workloads:\n', 'faults:\n  - {at: 1ms, kind: linkDown, link: sw1:p7}\nworkloads:\n', { file: FILE, code: 'reference', path: 'faults[0].link', expected: 'the endpoint node:port of a declared link' }],
  ];
  for (const [from, to, want] of cases) assertProblem(parse(tree(from, to)), want);
  assertProblem(() => parseTopology('name: x\nnodes: []\n', 'x.yaml'), { file: 'x.yaml', code: 'schema', path: 'nodes', expected: 'a list of nodes (at least one)', actual: '[]' });
  assertProblem(() => parseTopology('', 'x.yaml'), { file: 'x.yaml', code: 'schema', path: '<root>', expected: 'a topology: a mapping', actual: 'null' });
});

test('an unreadable file is an io error naming the file', () => {
  const missing = fixture('no-such-topology.yaml');
  assertProblem(() => loadTopologyFile(missing), { file: missing, code: 'io', path: '<root>', expected: 'a readable topology file', actual: 'ENOENT' });
});
