import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Directory } from '@rocelab/wire';
import { farNode, memberSetup, nearNode, SetupSlot } from './member-setup.js';
import { indexOf, onePod } from './testing.js';

const POD = onePod();
const hosted = (...names: string[]) => new Set(names.map((n) => indexOf(POD, n)));

/** Every node hosted by a member of its own, as the controller lists them (sorted by id). */
const directory = (rejoin: boolean): Directory => ({
  members: [
    { id: 'h1', nodes: ['h1'], linkUrl: 'ws://h1:1/link' },
    { id: 'h2', nodes: ['h2'], linkUrl: 'ws://h2:2/link' },
    { id: 'sw1', nodes: ['sw1'], linkUrl: 'ws://sw1:3/link' },
  ],
  windowPs: 1_000_000,
  seed: 7,
  runId: 'pair-7',
  rejoin,
});

test('at the start a member dials each neighbour whose id sorts after its own, one connection for all their links', () => {
  const h1 = memberSetup(POD, 'h1', hosted('h1'), directory(false));
  assert.equal(h1.rejoin, false);
  assert.equal(h1.pc.seed, 7);
  assert.equal(h1.pc.pod, POD);
  assert.deepEqual(h1.links.names, ['h1:p0--sw1:p1']);
  assert.deepEqual(h1.dials.map(({ pair, url }) => [pair.peer, pair.links.map((l) => [l.name, nearNode(l), farNode(l)]), url]), [['sw1', [['h1:p0--sw1:p1', 'h1', 'sw1']], 'ws://sw1:3/link']]);
  assert.equal(h1.dials[0]!.pair, h1.links.get('h1:p0--sw1:p1')!.pair, 'the dialled pair is the member’s own pair record');
  assert.equal(h1.sync.phase, 'awaitingGrant');
  // h1 and h2 sort before sw1: they dial it.
  const sw1 = memberSetup(POD, 'sw1', hosted('sw1'), directory(false));
  assert.deepEqual(sw1.links.names, ['h1:p0--sw1:p1', 'h2:p0--sw1:p2']);
  assert.deepEqual(sw1.dials, []);
});

test('a rejoining member dials every neighbour, the ones it was dialled by included', () => {
  const sw1 = memberSetup(POD, 'sw1', hosted('sw1'), directory(true));
  assert.equal(sw1.rejoin, true);
  assert.deepEqual(sw1.dials.map(({ pair, url }) => [pair.peer, pair.links.map((l) => [l.name, nearNode(l), farNode(l)]), url]), [
    ['h1', [['h1:p0--sw1:p1', 'sw1', 'h1']], 'ws://h1:1/link'],
    ['h2', [['h2:p0--sw1:p2', 'sw1', 'h2']], 'ws://h2:2/link'],
  ]);
});

test('a member hosting several nodes has only the links with one end elsewhere, grouped by the member there', () => {
  const w = memberSetup(POD, 'w', hosted('sw1', 'h2'), directory(false));
  assert.deepEqual(w.links.names, ['h1:p0--sw1:p1']);
  assert.deepEqual(w.links.peers, ['h1']);
  // h1 sorts before w: h1 dials.
  assert.deepEqual(w.dials, []);
});

test('a directory that lists no member for a far end is refused, naming the node and the link', () => {
  const incomplete = { ...directory(false), members: directory(false).members.filter((m) => m.id !== 'sw1') };
  assert.throws(() => memberSetup(POD, 'h1', hosted('h1'), incomplete), {
    message: 'the directory names no member hosting sw1, the far end of link h1:p0--sw1:p1: expected every node of pod pair in it',
  });
  // Every far end needs its member, dialled or not: the pairs are made of them.
  assert.throws(() => memberSetup(POD, 'sw1', hosted('sw1'), { ...directory(false), members: [] }), { message: /^the directory names no member hosting h1, the far end of link h1:p0--sw1:p1/ });
});

test('the setup is frozen: nothing in it is replaced after it is made', () => {
  const s = memberSetup(POD, 'h1', hosted('h1'), directory(false));
  assert.ok(Object.isFrozen(s) && Object.isFrozen(s.dials) && Object.isFrozen(s.dials[0]));
  assert.throws(() => Object.assign(s, { rejoin: true }), TypeError);
});

test('the slot takes one setup, refuses a second, and is not read before it is set', () => {
  const slot = new SetupSlot('h1');
  assert.equal(slot.orNull, null);
  assert.throws(() => slot.get(), { message: 'member h1: not set up yet (no directory from the controller)' });
  const first = memberSetup(POD, 'h1', hosted('h1'), directory(false));
  slot.set(first);
  assert.equal(slot.get(), first);
  assert.throws(() => slot.set(memberSetup(POD, 'h1', hosted('h1'), directory(true))), { message: 'member h1: a second directory from the controller: a member is set up once' });
  assert.equal(slot.get(), first, 'the first setup stays');
  assert.equal(slot.orNull, first);
});
