import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { BUILTIN_EXTENSIONS } from './builtin.js';
import { mergeExtensions } from './extensions.js';
import { parseYaml } from './load.js';
import { fixture } from './testing.js';
import { faultItemSchema } from './fault-kinds.js';
import { newAjv, schemaValidator, topologyValidator } from './validate.js';
import { createTopologySchema } from './schema.js';

const TREE = parseYaml(readFileSync(fixture('tree.yaml'), 'utf8'), 'tree.yaml') as Record<string, unknown>;

/** tree.yaml's data with one change made by `edit` on a deep copy. */
type Pod = { links: Array<Record<string, unknown>>; nodes: Array<Record<string, unknown>>; [key: string]: unknown };
function broken(edit: (pod: Pod) => void): unknown {
  const pod = structuredClone(TREE) as Pod;
  edit(pod);
  return pod;
}

test('the build serves the built-in schema from its standalone validator (npm run build writes it; a stale one would be ignored)', () => {
  assert.equal(topologyValidator(BUILTIN_EXTENSIONS).source, 'precompiled', 'run `npm run build`: it writes packages/topology/dist/topology-validator.cjs after tsc');
});

test('the standalone validator finds exactly what ajv compiling the schema finds, errors and their schemas included', () => {
  const fresh = newAjv().compile(createTopologySchema(BUILTIN_EXTENSIONS));
  const served = topologyValidator(BUILTIN_EXTENSIONS).validate;
  const cases: unknown[] = [
    TREE,
    broken((p) => (p.links[0]!['raet'] = '40G')),
    broken((p) => (p.nodes[1]!['role'] = 'router')),
    broken((p) => (p['defaults'] = { link: { mtu: '1024' } })),
    broken((p) => (p['workloads'] = [{ kind: 'flow', from: 'h1' }, { kind: 'nope' }])),
    broken((p) => (p['faults'] = [{ at: 5, kind: 'kill' }])),
    broken((p) => Reflect.deleteProperty(p, 'nodes')),
    42,
  ];
  for (const [i, data] of cases.entries()) {
    assert.equal(served(data), fresh(data), `case ${i}: valid or not`);
    assert.deepEqual(served.errors ?? null, fresh.errors ?? null, `case ${i}: the errors`);
  }
  assert.ok(cases.slice(1).every((c) => !served(c)), 'every broken case is refused');
});

test('another schema (extensions a pod file does not use) is compiled, not served by the standalone file', () => {
  const other = mergeExtensions(BUILTIN_EXTENSIONS, { node: { colour: { type: 'string' } } });
  assert.equal(topologyValidator(other).source, 'compiled');
});

test('the fault item schema (the fault API) is served by the build\'s standalone code, with the errors ajv compiling it finds', () => {
  const schema = faultItemSchema();
  const served = schemaValidator(schema);
  assert.equal(served.source, 'precompiled', 'run `npm run build`: it writes packages/topology/dist/fault-validator.cjs after tsc');
  assert.equal(schemaValidator(faultItemSchema()), served, 'found again by content for a schema built afresh');
  const fresh = newAjv().compile(schema);
  const cases: unknown[] = [
    { kind: 'nicPauseStorm', node: 'h4', at: '5ps' },
    { kind: 'nicPauseStorm', node: 'h4' },
    { kind: 'meteor', node: 'h1', at: '1ms' },
    { kind: 'loss', link: 'h1:p0', rate: 'half', at: '1ms' },
    { kind: 'kill', node: { random: 'host' }, at: { uniform: ['1ms', '2ms'] }, for: '1ms' },
    [],
  ];
  for (const [i, data] of cases.entries()) {
    assert.equal(served.validate(data), fresh(data), `case ${i}: valid or not`);
    assert.deepEqual(served.validate.errors ?? null, fresh.errors ?? null, `case ${i}: the errors`);
  }
});

test('a schema the build did not see is compiled', () => {
  assert.equal(schemaValidator({ type: 'object', description: 'not built in', properties: { x: { type: 'integer' } } }).source, 'compiled');
});
