import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { loadTopologyFile } from '@rocelab/topology';
import { placementWindow } from './window.js';

const tree = loadTopologyFile(fileURLToPath(new URL('../../../test/fixtures/tree.yaml', import.meta.url)));

test('the window is the shortest lookahead of a link between members, by member id or part number; 1 ms when none crosses', () => {
  // tree: sw1 with h1, h2; sw2 with h3, h4; sw1–sw2.
  const bySwitch = (a: string | number, b: string | number) => new Map(tree.nodes.map((n) => [n.name, ['sw1', 'h1', 'h2'].includes(n.name) ? a : b]));
  for (const [a, b] of [['m1', 'm2'], [0, 1]] as const) {
    const { windowPs, crossLinks } = placementWindow(tree, bySwitch(a, b));
    assert.deepEqual([Math.round(windowPs / 1000), crossLinks], [1017, 1]);
  }
  assert.deepEqual(placementWindow(tree, bySwitch('m', 'm')), { windowPs: 1e9, crossLinks: 0 });
});
