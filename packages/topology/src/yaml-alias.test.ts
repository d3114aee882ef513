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
