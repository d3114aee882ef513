import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fixed6, formatUs, mergeParts, partLine } from './trace-format.js';

test('times print as exact µs from the start, six decimals, negative before it', () => {
  assert.equal(formatUs(0, 0), '0.000000');
  assert.equal(formatUs(1_234_567, 0), '1.234567');
  assert.equal(formatUs(10_000_000_001, 1), '10000.000000');
  assert.equal(formatUs(2_000_000, 2_500_000), '-0.500000');
  assert.equal(fixed6(null), '');
  assert.equal(fixed6(39.9999999), '40.000000');
});

test('parts merge by key, then node order, each node keeping its own order', () => {
  const a = partLine(5, ['5', 'a', 1]) + partLine(5, ['5', 'a', 2]) + partLine(9, ['9', 'a', 3]);
  const b = partLine(1, ['1', 'b', 1]) + partLine(5, ['5', 'b', 2]);
  assert.equal(mergeParts(['t', 'node', 'n'], [a, b]), 't,node,n\n1,b,1\n5,a,1\n5,a,2\n5,b,2\n9,a,3\n');
  assert.equal(mergeParts(['t'], ['', '']), 't\n');
  assert.throws(() => mergeParts(['t'], ['oops\n']), /trace part of node 0, row 1: expected/);
});
