import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { BUILTIN_EXTENSIONS } from './builtin.js';
import { mergeExtensions } from './extensions.js';
import { parseYaml } from './load.js';
import { fixture } from './testing.js';
import { newAjv, topologyValidator } from './validate.js';
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
