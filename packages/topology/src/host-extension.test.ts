import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hostCpuOf } from './host-extension.js';
import { parseTopology } from './load.js';
import { rejection } from './testing.js';

const pod = (defaultsHost: string, hostHost = '', torHost = '') => `
name: t
${defaultsHost ? `defaults:\n  host: {${defaultsHost}}` : ''}
nodes:
  - {name: tor1, role: tor${torHost ? `, host: {${torHost}}` : ''}}
  - {name: h1, role: host, ip: 10.0.0.1${hostHost ? `, host: {${hostHost}}` : ''}}
  - {name: h2, role: host, ip: 10.0.0.2}
links:
  - {a: h1:p0, b: tor1:p1}
  - {a: h2:p0, b: tor1:p2}
`;

test('host.cpu resolves from the defaults, a node\'s own keys over them; absent, the model is off', () => {
  const off = parseTopology(pod(''), 'pod.yaml');
  assert.equal(hostCpuOf(off, off.nodes.find((n) => n.name === 'h1')!), null);
  const p = parseTopology(pod('cpu: {perOperation: 2us, jitter: 500ns}', 'cpu: {jitter: 1us}'), 'pod.yaml');
  assert.deepEqual(hostCpuOf(p, p.nodes.find((n) => n.name === 'h1')!), { perOperationPs: 2_000_000, jitterPs: 1_000_000 });
  assert.deepEqual(hostCpuOf(p, p.nodes.find((n) => n.name === 'h2')!), { perOperationPs: 2_000_000, jitterPs: 500_000 });
  const noJitter = parseTopology(pod('', 'cpu: {perOperation: 1us}'), 'pod.yaml');
  assert.deepEqual(hostCpuOf(noJitter, noJitter.nodes.find((n) => n.name === 'h1')!), { perOperationPs: 1_000_000, jitterPs: 0 });
});

test('a bad host CPU model is refused with file, path and what was expected', () => {
  assert.match(rejection(pod('cpu: {perOperation: 1us, jitter: 2us}')), /^pod\.yaml: defaults\.host\.cpu\.jitter: expected a duration at most perOperation \(1us\): an operation never takes negative time, got "2us"$/m);
  assert.match(rejection(pod('', 'cpu: {perOperation: soon}')), /^pod\.yaml: nodes\[1\]\.host\.cpu\.perOperation: expected a duration like 1us, 500ns, 1\.5us or 2ms, got "soon"$/m);
  assert.match(rejection(pod('', 'cpu: {jitter: 1us}')), /nodes\[1\]\.host\.cpu\.perOperation: expected a duration above 0 \(what one verbs call costs\), e\.g\. 1us, got "nothing"/);
  assert.match(rejection(pod('', 'cpu: {perOperation: 0us}')), /nodes\[1\]\.host\.cpu\.perOperation: expected a duration above 0/);
  assert.match(rejection(pod('', '', 'cpu: {perOperation: 1us}')), /nodes\[0\]\.host.*: expected host settings on a host \(a switch has no host CPU\), got "a tor"/);
  assert.match(rejection(pod('cpu: {perOperation: 1us, speed: 3}')), /defaults\.host\.cpu\.speed: expected one of the keys perOperation, jitter/);
});
