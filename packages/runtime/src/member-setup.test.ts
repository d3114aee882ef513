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

test('at the start a member dials the links whose a end it hosts, each to the member of the far end', () => {
  const h1 = memberSetup(POD, hosted('h1'), directory(false));
  assert.equal(h1.rejoin, false);
  assert.equal(h1.pc.seed, 7);
  assert.equal(h1.pc.pod, POD);
  assert.deepEqual(h1.links.names, ['h1:p0--sw1:p1']);
  assert.deepEqual(h1.dials.map(({ link, url }) => [link.name, nearNode(link), farNode(link), url]), [['h1:p0--sw1:p1', 'h1', 'sw1', 'ws://sw1:3/link']]);
  assert.equal(h1.dials[0]!.link, h1.links.get('h1:p0--sw1:p1'), 'the dialled link is the member’s own link record');
  assert.equal(h1.sync.phase, 'awaitingGrant');
  // The switch hosts only `b` ends: its neighbours dial it.
  const sw1 = memberSetup(POD, hosted('sw1'), directory(false));
  assert.deepEqual(sw1.links.names, ['h1:p0--sw1:p1', 'h2:p0--sw1:p2']);
  assert.deepEqual(sw1.dials, []);
});

test('a rejoining member dials every link, the ones it was dialled on included', () => {
  const sw1 = memberSetup(POD, hosted('sw1'), directory(true));
  assert.equal(sw1.rejoin, true);
  assert.deepEqual(sw1.dials.map(({ link, url }) => [link.name, nearNode(link), farNode(link), url]), [
    ['h1:p0--sw1:p1', 'sw1', 'h1', 'ws://h1:1/link'],
    ['h2:p0--sw1:p2', 'sw1', 'h2', 'ws://h2:2/link'],
  ]);
});

test('a member hosting several nodes has only the links with one end elsewhere', () => {
  const w = memberSetup(POD, hosted('sw1', 'h2'), directory(false));
  assert.deepEqual(w.links.names, ['h1:p0--sw1:p1']);
  assert.deepEqual(w.dials, []);
});

test('a directory that lists no member for a far end it dials is refused, naming the node and the link', () => {
  const incomplete = { ...directory(false), members: directory(false).members.filter((m) => m.id !== 'sw1') };
  assert.throws(() => memberSetup(POD, hosted('h1'), incomplete), {
    message: 'the directory names no member hosting sw1, the far end of link h1:p0--sw1:p1: expected every node of pod pair in it',
  });
  // A far end nobody dials from here needs no entry: sw1 is dialled by h1 and h2.
  assert.deepEqual(memberSetup(POD, hosted('sw1'), { ...directory(false), members: [] }).dials, []);
});

test('the setup is frozen: nothing in it is replaced after it is made', () => {
  const s = memberSetup(POD, hosted('h1'), directory(false));
  assert.ok(Object.isFrozen(s) && Object.isFrozen(s.dials) && Object.isFrozen(s.dials[0]));
  assert.throws(() => Object.assign(s, { rejoin: true }), TypeError);
});

test('the slot takes one setup, refuses a second, and is not read before it is set', () => {
  const slot = new SetupSlot('h1');
  assert.equal(slot.orNull, null);
  assert.throws(() => slot.get(), { message: 'member h1: not set up yet (no directory from the controller)' });
  const first = memberSetup(POD, hosted('h1'), directory(false));
  slot.set(first);
  assert.equal(slot.get(), first);
  assert.throws(() => slot.set(memberSetup(POD, hosted('h1'), directory(true))), { message: 'member h1: a second directory from the controller: a member is set up once' });
  assert.equal(slot.get(), first, 'the first setup stays');
  assert.equal(slot.orNull, first);
});
