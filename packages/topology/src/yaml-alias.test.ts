import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TopologyError } from './errors.js';
import { parseTopology, parseYaml } from './load.js';

/** A "billion laughs": nine levels of nine aliases, 9^9 strings if expanded. */
function aliasBomb(): string {
  const lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i <= 9; i++) lines.push(`a${i}: &a${i} [${Array(9).fill(`*a${i - 1}`).join(',')}]`);
  return `${lines.join('\n')}\nname: bomb\nnodes: []\nlinks: []\n`;
}

test('an alias bomb is refused at once as a yaml problem of the file, not expanded', () => {
  const start = performance.now();
  assert.throws(() => parseTopology(aliasBomb(), 'pods/bomb.yaml'), (err: unknown) => {
    assert.ok(err instanceof TopologyError);
    assert.equal(err.problems[0]?.code, 'yaml');
    assert.equal(err.message, 'pods/bomb.yaml:1:1: Excessive alias count indicates a resource exhaustion attack (expected aliases that expand at most 100 times)');
    return true;
  });
  assert.ok(performance.now() - start < 2000, 'refused quickly');
});

test('ordinary anchors and merge keys still load', () => {
  assert.deepEqual(parseYaml('x: &x {a: 1}\ny: *x\nz: [*x, *x]\n', 'ok.yaml'), { x: { a: 1 }, y: { a: 1 }, z: [{ a: 1 }, { a: 1 }] });
});

test('an alias inside the node its anchor marks (a node that contains itself) is a yaml problem at its line and path, not a circular object', () => {
  // Found by fuzzing: yaml built a circular object and the first JSON.stringify crashed untyped.
  const cases: Array<[string, string]> = [
    ['topology: &t {name: x, nodes: *t}\n', 'f.yaml:1:31: the alias *t at topology.nodes is inside &t'],
    ['a: 1\ntopology: &t {name: x, nodes: [1, *t]}\n', 'f.yaml:2:35: the alias *t at topology.nodes[1] is inside &t'],
    ['&t\nname: x\nnodes: [*t]\n', 'f.yaml:3:9: the alias *t at nodes[0] is inside &t'],
    ['l: &l [[*l]]\n', 'f.yaml:1:9: the alias *l at l[0][0] is inside &l'],
  ];
  for (const [text, message] of cases) {
    assert.throws(() => parseYaml(text, 'f.yaml'), (err: unknown) => {
      assert.ok(err instanceof TopologyError, String(err));
      assert.equal(err.code, 'yaml');
      assert.equal(err.message, `${message} (expected an alias outside the node its anchor marks: a node cannot contain itself)`);
      return true;
    });
  }
  // The same through the topology loader, and an alias to a sibling (no cycle) is still fine.
  assert.throws(() => parseTopology('&t\nname: x\nnodes: [*t]\nlinks: []\n', 'pods/self.yaml'), /: pods\/self\.yaml:3:9: the alias \*t at nodes\[0\] is inside &t/);
  assert.deepEqual(parseYaml('a: &a [1]\nb: [*a, *a]\n', 'ok.yaml'), { a: [1], b: [[1], [1]] });
});
