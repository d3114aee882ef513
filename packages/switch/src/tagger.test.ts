// Tagger (issue 14): tags move a packet to another lossless priority at the first hop that
// breaks the up-down path, and to a lossy one past the last.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { portDirections, Tagger } from './tagger.js';

// tor2's ports: p1, p2 to hosts; up1, up2 to leaf1 and leaf2.
const TOR = portDirections('tor', ['host', 'host', 'leaf', 'leaf']);
const LEAF = portDirections('leaf', ['tor', 'tor', 'spine', 'spine']);
const CONFIG = { losslessByTag: [3, 4], beyond: { lossy: 0 } } as const;

test('ports face up toward a higher tier and down toward a lower one or a host', () => {
  assert.deepEqual(TOR, ['down', 'down', 'up', 'up']);
  assert.deepEqual(LEAF, ['down', 'down', 'up', 'up']);
  assert.throws(() => portDirections('tor', ['tor']), /a tor linked to another tor is not a Clos/);
  assert.throws(() => portDirections('switch', ['host']), /a switch has no tier in a Clos/);
});

test('on an up-down path the tag stays 1 and the packet keeps the first lossless priority', () => {
  const tor1 = new Tagger(CONFIG, TOR);
  const leaf1 = new Tagger(CONFIG, LEAF);
  const tor2 = new Tagger(CONFIG, TOR);
  const atTor1 = tor1.retag(0, 0, 2); // from h1, up to leaf1
  assert.deepEqual(atTor1, { tag: 1, priority: 3, lossless: true });
  assert.deepEqual(leaf1.retag(atTor1.tag, 0, 1), { tag: 1, priority: 3, lossless: true }); // down to tor2
  assert.deepEqual(tor2.retag(1, 2, 0), { tag: 1, priority: 3, lossless: true }); // down to its host
  assert.equal(tor1.stats.retagged + leaf1.stats.retagged + tor2.stats.retagged, 0);
});

test('the first hop that violates up-down re-tags: tor2 flooding a packet from leaf1 up to leaf2 moves it to tag 2, priority 4', () => {
  const tor2 = new Tagger(CONFIG, TOR);
  // The packet came down from leaf1 (ingress up1, which faces up) and the flood sends it up to leaf2.
  assert.deepEqual(tor2.retag(1, 2, 3), { tag: 2, priority: 4, lossless: true });
  assert.equal(tor2.stats.retagged, 1);
  // Its copies to tor2's hosts stay on the up-down path.
  assert.deepEqual(tor2.retag(1, 2, 0), { tag: 1, priority: 3, lossless: true });
  // leaf2 takes it down again: still tag 2, a new up-down segment.
  assert.deepEqual(new Tagger(CONFIG, LEAF).retag(2, 2, 0), { tag: 2, priority: 4, lossless: true });
});

test('a second bounce goes past the last lossless tag: lossy, or dropped if so configured', () => {
  const lossy = new Tagger(CONFIG, TOR);
  assert.deepEqual(lossy.retag(2, 2, 3), { tag: 3, priority: 0, lossless: false });
  assert.equal(lossy.stats.demoted, 1);
  const dropping = new Tagger({ losslessByTag: [3, 4], beyond: 'drop' }, TOR);
  assert.deepEqual(dropping.retag(2, 3, 2), { tag: 3, drop: true });
  assert.equal(dropping.stats.dropped, 1);
});

test('bad settings are refused', () => {
  assert.throws(() => new Tagger({ losslessByTag: [], beyond: 'drop' }, TOR), /at least one lossless priority/);
  assert.throws(() => new Tagger({ losslessByTag: [3, 9], beyond: 'drop' }, TOR), /priorities must be 0\.\.7, got 9/);
});
