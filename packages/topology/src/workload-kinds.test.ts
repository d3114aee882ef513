import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { FLOW_ID_WORKLOAD, hostTraffic, type ResolvedWorkload } from '@rocelab/workload';
import { Rng } from '@rocelab/sim';
import { flowWorkloads, resolvedWorkloads } from './extensions.js';
import { loadTopologyFile, parseTopology } from './load.js';
import { assertProblem, fixture } from './testing.js';

const PATH = fixture('workloads.yaml');
const TEXT = readFileSync(PATH, 'utf8');
const FILE = PATH; // so the CDF path resolves as it does for the file itself
const US = 1_000_000;

/** workloads.yaml with one exact substring replaced (the substring must exist). */
function variant(from: string, to: string): () => unknown {
  assert.ok(TEXT.includes(from), `workloads.yaml has no "${from}"`);
  return () => parseTopology(TEXT.replace(from, to), FILE);
}

test('workloads.yaml: every kind resolves to base units', () => {
  const pod = loadTopologyFile(PATH);
  const resolved = resolvedWorkloads(pod);
  assert.deepEqual(resolved.map((w) => w.kind), ['flow', 'incast', 'permutation', 'shuffle', 'poisson', 'pingmesh']);
  const [flow, incast, permutation, shuffle, poisson, pingmesh] = resolved as [ResolvedWorkload, ResolvedWorkload, ResolvedWorkload, ResolvedWorkload, ResolvedWorkload, ResolvedWorkload];
  assert.deepEqual(flow, { kind: 'flow', index: 0, from: 'h1', to: 'h3', sizeBytes: 4 * 1048576, start: { kind: 'at', atPs: 0 }, rateBps: null, dscp: 26, transport: 'rdma', messageBytes: 1048576, opcode: 'send' });
  assert.deepEqual(incast, { kind: 'incast', index: 1, to: 'h4', from: ['h1', 'h2', 'h3'], sizeBytes: 1_000_000, startPs: 10 * US, staggerPs: 2 * US, transport: 'rdma', dscp: 26 });
  assert.deepEqual(permutation, { kind: 'permutation', index: 2, hosts: 'all', sizeBytes: 64_000, startPs: 0, transport: 'rdma', dscp: 26 });
  assert.deepEqual(shuffle, { kind: 'shuffle', index: 3, hosts: ['h1', 'h2', 'h3'], sizeBytes: 256_000, startPs: 5 * US, transport: 'rdma', dscp: 26 });
  assert.ok(poisson.kind === 'poisson' && poisson.load === 0.3 && poisson.startPs === 0 && poisson.stopPs === 10_000 * US && poisson.sizes.kind === 'cdf' && poisson.sizes.points.length === 12);
  assert.deepEqual(pingmesh, { kind: 'pingmesh', index: 5, hosts: 'all', intervalPs: 100 * US, sizeBytes: 64, startPs: 0, stopPs: 1000 * US, transport: 'rdma', dscp: 26 });
  // flowWorkloads keeps its shape for the code that uses it.
  assert.deepEqual(flowWorkloads(pod)[0], { index: 0, from: 'h1', to: 'h3', sizeBytes: 4 * 1048576, start: { kind: 'at', atPs: 0 }, rateBps: null, dscp: 26, transport: 'rdma', messageBytes: 1048576, opcode: 'send' });
});

test('workloads.yaml through hostTraffic: h1\'s first posts and its connections', () => {
  const pod = loadTopologyFile(PATH);
  const hosts = pod.nodes.filter((n) => n.role === 'host').map((n) => n.name);
  const ctx = { hosts, seed: pod.seed, linkRateBps: () => 40e9, rng: (p: string) => new Rng(pod.seed, 'h1', p) };
  const traffic = hostTraffic('h1', resolvedWorkloads(pod), ctx);
  const first = Array.from({ length: 4 }, () => traffic.next()!);
  assert.deepEqual(first.map((p) => [p.atPs, p.connection, p.opcode, p.sizeBytes, p.flow]), [0, 1, 2, 3].map((k) => [0, 'w0:h1->h3', 'send', 1048576, k]));
  const keys = traffic.connections().map((c) => c.key);
  assert.ok(['w0:h1->h3', 'w1:h1->h4', 'w3:h1->h2', 'w3:h1->h3', 'w4:h1->h2', 'w5:h1->h4'].every((k) => keys.includes(k)), keys.join(' '));
  assert.equal(first[0]!.flow, 0 * FLOW_ID_WORKLOAD);
});

test('a workload naming an unknown host or a switch: from, to, hosts', () => {
  assertProblem(variant('from: [h1, h2, h3]', 'from: [h1, h7, h3]'), { file: FILE, code: 'reference', path: 'workloads[1].from[1]', expected: 'the name of a host', actual: '"h7" (no such node)' });
  assertProblem(variant('to: h4, from', 'to: h9, from'), { file: FILE, code: 'reference', path: 'workloads[1].to', expected: 'the name of a host', actual: '"h9" (no such node)' });
  assertProblem(variant('hosts: [h1, h2, h3]', 'hosts: [h1, sw2, h3]'), { file: FILE, code: 'reference', path: 'workloads[3].hosts[1]', expected: 'the name of a host', actual: '"sw2" (a tor)' });
  assertProblem(variant('{kind: pingmesh, interval', '{kind: pingmesh, hosts: [h1, h5], interval'), { file: FILE, code: 'reference', path: 'workloads[5].hosts[1]', expected: 'the name of a host', actual: '"h5" (no such node)' });
});

test('a size that is not a non-negative integer', () => {
  const expected = 'a size in bytes: a non-negative integer or a string like 4MB';
  assertProblem(variant('sizeBytes: 1MB, start: 10us', 'sizeBytes: -3, start: 10us'), { file: FILE, code: 'value', path: 'workloads[1].sizeBytes', expected, actual: '-3' });
  assertProblem(variant('sizeBytes: 64KB', 'sizeBytes: 1.5'), { file: FILE, code: 'schema', path: 'workloads[2].sizeBytes', expected, actual: '1.5' });
  assertProblem(variant('sizeBytes: 256KB', 'sizeBytes: 2.5B'), { file: FILE, code: 'value', path: 'workloads[3].sizeBytes', expected, actual: '"2.5B"' });
  assertProblem(variant('interval: 100us', 'interval: 100us, sizeBytes: -1'), { file: FILE, code: 'value', path: 'workloads[5].sizeBytes', expected, actual: '-1' });
  assertProblem(variant('messageBytes: 1MiB', 'messageBytes: 0'), { file: FILE, code: 'value', path: 'workloads[0].messageBytes', expected: 'the size of each message', actual: '0' });
  assertProblem(variant('sizes: {cdf: cdf/websearch-small.txt}', 'sizes: {fixed: 0}'), { file: FILE, code: 'value', path: 'workloads[4].sizes.fixed', expected: 'a message size', actual: '0' });
  assertProblem(variant('sizeBytes: 4MiB, messageBytes: 1MiB', 'sizeBytes: 1GiB, messageBytes: 1'), { file: FILE, code: 'value', path: 'workloads[0].messageBytes', expected: 'at most 268435456 messages', actual: '1' });
});

test('a negative, too large or unknown load', () => {
  const expected = "a load: the fraction of each host's link rate to offer, a number 0 < load ≤ 1";
  assertProblem(variant('load: 0.3', 'load: -0.3'), { file: FILE, code: 'schema', path: 'workloads[4].load', expected, actual: '-0.3' });
  assertProblem(variant('load: 0.3', 'load: 0'), { file: FILE, code: 'schema', path: 'workloads[4].load', expected, actual: '0' });
  assertProblem(variant('load: 0.3', 'load: 1.5'), { file: FILE, code: 'schema', path: 'workloads[4].load', expected, actual: '1.5' });
  assertProblem(variant('load: 0.3', 'load: high'), { file: FILE, code: 'schema', path: 'workloads[4].load', expected, actual: '"high"' });
  assertProblem(variant('load: 0.3, ', ''), { file: FILE, code: 'schema', path: 'workloads[4].load', expected: `${expected} like 0.3 (required)`, actual: 'nothing' });
});

test('host sets: distinct, big enough, `all` or a list; the receiver is not a sender', () => {
  assertProblem(variant('hosts: [h1, h2, h3]', 'hosts: [h1, h2, h1]'), { file: FILE, code: 'value', path: 'workloads[3].hosts[2]', expected: 'a host not already listed (also hosts[0])', actual: '"h1"' });
  assertProblem(variant('hosts: [h1, h2, h3]', 'hosts: [h1]'), { file: FILE, code: 'value', path: 'workloads[3].hosts', expected: 'at least 2 hosts', actual: '["h1"]' });
  assertProblem(variant('hosts: [h1, h2, h3]', 'hosts: everyone'), { file: FILE, code: 'schema', path: 'workloads[3].hosts', expected: 'the hosts: a list of at least 2 distinct host names, or all', actual: '"everyone"' });
  assertProblem(variant('hosts: [h1, h2, h3]', 'hosts: []'), { file: FILE, code: 'schema', path: 'workloads[3].hosts', expected: 'the hosts: a list', actual: '[]' });
  assertProblem(variant('from: [h1, h2, h3]', 'from: [h1, h4]'), { file: FILE, code: 'value', path: 'workloads[1].from[1]', expected: 'a host other than the receiver (h4)', actual: '"h4"' });
});

test('times: durations, a positive interval, stop after start', () => {
  assertProblem(variant('stagger: 2us', 'stagger: 2xs'), { file: FILE, code: 'value', path: 'workloads[1].stagger', expected: 'a duration like 1us', actual: '"2xs"' });
  assertProblem(variant('stagger: 2us', 'stagger: 2'), { file: FILE, code: 'schema', path: 'workloads[1].stagger', expected: "the delay between successive senders' starts: a duration like 1us", actual: '2' });
  assertProblem(variant('interval: 100us', 'interval: 0us'), { file: FILE, code: 'value', path: 'workloads[5].interval', expected: 'above 0', actual: '"0us"' });
  assertProblem(variant('start: 0us, stop: 10ms', 'start: 20ms, stop: 10ms'), { file: FILE, code: 'value', path: 'workloads[4].stop', expected: 'a time after start (20ms)', actual: '"10ms"' });
  assertProblem(variant('interval: 100us, stop: 1ms', 'interval: 100us, stop: 0us'), { file: FILE, code: 'value', path: 'workloads[5].stop', expected: 'a time after start (0us)', actual: '"0us"' });
});

test('shape: unknown keys, opcodes, kinds', () => {
  assertProblem(variant('stagger: 2us', 'stager: 2us'), { file: FILE, code: 'schema', path: 'workloads[1].stager', expected: 'one of the keys kind, to, from, sizeBytes, start, stagger', actual: 'unknown key "stager"' });
  assertProblem(variant('opcode: send', 'opcode: atomic'), { file: FILE, code: 'schema', path: 'workloads[0].opcode', expected: 'one of "write", "send", "read"', actual: '"atomic"' });
  assertProblem(variant('{kind: shuffle', '{kind: alltoall'), { file: FILE, code: 'schema', path: 'workloads[3].kind', expected: 'one of "flow", "incast", "permutation", "pingmesh", "poisson", "shuffle"', actual: '"alltoall"' });
  assertProblem(variant('sizes: {cdf: cdf/websearch-small.txt}', 'sizes: {cdf: 3}'), { file: FILE, code: 'schema', path: 'workloads[4].sizes', expected: 'message sizes: {cdf: path/to/file.txt} or {fixed: 64KB}' });
});

test('transport: every kind takes tcp or dctcp, whose DSCP defaults to best effort (0); a READ over TCP is refused', () => {
  const pod = parseTopology(TEXT.replace('{kind: permutation, sizeBytes: 64KB, start: 0us}', '{kind: permutation, sizeBytes: 64KB, start: 0us, transport: dctcp}').replace('{kind: pingmesh,', '{kind: pingmesh, transport: tcp, dscp: 10,'), FILE);
  const [, , permutation, , , pingmesh] = resolvedWorkloads(pod) as Array<ResolvedWorkload & { transport: string; dscp: number }>;
  assert.deepEqual([permutation!.transport, permutation!.dscp, pingmesh!.transport, pingmesh!.dscp], ['dctcp', 0, 'tcp', 10]);
  assertProblem(variant('opcode: send', 'opcode: read, transport: tcp'), { file: FILE, code: 'value', path: 'workloads[0].opcode', expected: 'write (or no opcode) on a tcp connection: read is an RDMA operation', actual: '"read"' });
  assertProblem(variant('{kind: permutation, sizeBytes: 64KB, start: 0us}', '{kind: permutation, sizeBytes: 64KB, start: 0us, transport: udp}'), { file: FILE, code: 'schema', path: 'workloads[2].transport', expected: 'one of "rdma", "tcp", "dctcp"', actual: '"udp"' });
});

test('a flow’s udpPorts (issue 26): resolved as written; a port outside 1..65535, a missing one or a TCP flow refused', () => {
  const pod = parseTopology(TEXT.replace('messageBytes: 1MiB', 'messageBytes: 1MiB, udpPorts: {src: 10000, dst: 100}'), FILE);
  assert.deepEqual((resolvedWorkloads(pod)[0] as { udpPorts?: unknown }).udpPorts, { src: 10000, dst: 100 });
  const expected = 'UDP ports {src: 1..65535, dst: 1..65535}';
  assertProblem(variant('messageBytes: 1MiB', 'messageBytes: 1MiB, udpPorts: {src: 0, dst: 100}'), { file: FILE, code: 'value', path: 'workloads[0].udpPorts.src', expected, actual: '0' });
  assertProblem(variant('messageBytes: 1MiB', 'messageBytes: 1MiB, udpPorts: {src: 1, dst: 70000}'), { file: FILE, code: 'value', path: 'workloads[0].udpPorts.dst', expected, actual: '70000' });
  assertProblem(variant('messageBytes: 1MiB', 'messageBytes: 1MiB, udpPorts: {src: 1}'), { file: FILE, code: 'schema', path: 'workloads[0].udpPorts.dst', expected: `${expected} of the data (ACKs swap them), e.g. {src: 10000, dst: 100} as HPCC ns-3 numbers them (required)`, actual: 'nothing' });
  assertProblem(variant('messageBytes: 1MiB, opcode: send', 'udpPorts: {src: 1, dst: 2}, transport: tcp'), { file: FILE, code: 'value', path: 'workloads[0].udpPorts', expected: 'no udpPorts on a tcp connection', actual: '{"src":1,"dst":2}' });
});
