import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Ajv } from 'ajv';
import { BUILTIN_EXTENSIONS } from './builtin.js';
import { mergeExtensions, type SchemaExtensions, type WorkloadKind } from './extensions.js';
import { parseTopology } from './load.js';
import { createTopologySchema } from './schema.js';
import { assertProblem } from './testing.js';

const BASE = `
name: ext
nodes:
  - {name: s, role: switch}
  - {name: h, role: host, ip: 10.0.0.1}
  - {name: g, role: host, ip: 10.0.0.2}
links:
  - {a: h:p0, b: s:p1}
  - {a: g:p0, b: s:p2}
`;

/** What a mechanism package would contribute: a node key, a defaults key, a workload kind. */
const PING: WorkloadKind = {
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['kind', 'hosts'],
    properties: { kind: { const: 'ping' }, hosts: { type: 'array', items: { type: 'string' }, description: 'a list of host names' }, every: { type: 'string' } },
  },
  hostRefs: (raw) => (raw['hosts'] as string[]).map((name, i) => ({ field: `hosts[${i}]`, name })),
  resolve: (raw, _index, units) => units.duration((raw['every'] as string | undefined) ?? '1ms'),
};
const ACME_EXT: SchemaExtensions = {
  node: { acme: { type: 'object', additionalProperties: false, properties: { bufferBytes: { type: 'integer' } } } },
  defaults: { acme: { type: 'object', additionalProperties: false, properties: { alpha: { type: 'number' } } } },
  workloads: { ping: PING },
};
const EXT = mergeExtensions(BUILTIN_EXTENSIONS, ACME_EXT);

test('the built-in schema compiles under strict ajv', () => {
  const ajv = new Ajv({ strict: true, strictTypes: false, strictTuples: false });
  assert.equal(typeof ajv.compile(createTopologySchema(BUILTIN_EXTENSIONS)), 'function');
});

test('without the extension its keys are unknown', () => {
  assertProblem(() => parseTopology(BASE.replace('role: switch}', 'role: switch, acme: {bufferBytes: 1}}'), 'x.yaml'), {
    file: 'x.yaml',
    code: 'schema',
    path: 'nodes[0].acme',
    expected: 'one of the keys name, role, ip, subnet, pipelineLatency, app, programs, switch',
    actual: 'unknown key "acme"',
  });
  assertProblem(() => parseTopology(`${BASE}workloads: [{kind: ping, hosts: [h]}]\n`, 'x.yaml'), { file: 'x.yaml', code: 'schema', path: 'workloads[0].kind', expected: 'one of "flow"' });
});

test('contributed keys and kinds validate with their own sub-schemas', () => {
  const text = `${BASE.replace('role: switch}', 'role: switch, acme: {bufferBytes: 1}}')}defaults: {acme: {alpha: 0.125}}\nworkloads:\n  - {kind: ping, hosts: [h, g], every: 10us}\n  - {kind: flow, from: h, to: g, sizeBytes: 1, start: 0us}\n`;
  const pod = parseTopology(text, 'x.yaml', EXT);
  assert.deepEqual(pod.workloads.map((w) => w.kind), ['ping', 'flow']);
  // Contributed keys travel with the pod for their packages to read.
  assert.deepEqual(pod.nodes.find((n) => n.role === 'switch')!.config, { acme: { bufferBytes: 1 } });
  assert.deepEqual(pod.defaults, { acme: { alpha: 0.125 } });
  assertProblem(() => parseTopology(text.replace('bufferBytes: 1', 'bufferBytes: "1"'), 'x.yaml', EXT), { file: 'x.yaml', code: 'schema', path: 'nodes[0].acme.bufferBytes', expected: 'an integer', actual: '"1"' });
  assertProblem(() => parseTopology(text.replace('alpha: 0.125', 'alfa: 0.125'), 'x.yaml', EXT), { file: 'x.yaml', code: 'schema', path: 'defaults.acme.alfa', expected: 'one of the keys alpha', actual: 'unknown key "alfa"' });
  // The kind's host references and value hook run through the loader.
  assertProblem(() => parseTopology(text.replace('hosts: [h, g]', 'hosts: [h, s]'), 'x.yaml', EXT), { file: 'x.yaml', code: 'reference', path: 'workloads[0].hosts[1]', expected: 'the name of a host', actual: '"s" (a switch)' });
  // The flow schema still applies to flow items only.
  assertProblem(() => parseTopology(text.replace('every: 10us', 'every: 10us, from: h'), 'x.yaml', EXT), { file: 'x.yaml', code: 'schema', path: 'workloads[0].from', expected: 'one of the keys kind, hosts, every' });
});

test('extensions may not redefine built-in keys or each other', () => {
  assert.throws(() => createTopologySchema({ node: { ip: { type: 'string' } } }), /redefines a built-in key/);
  assert.throws(() => mergeExtensions(BUILTIN_EXTENSIONS, { workloads: { flow: PING } }), /workloads\.flow is contributed twice/);
});
