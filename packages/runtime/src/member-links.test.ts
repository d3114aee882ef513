import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Engine } from '@rocelab/sim';
import { FrameKind, newFrame, type Envelope, type Frame } from '@rocelab/wire';
import { MessageTooLarge, type Connection } from './connection.js';
import { RemoteLinks } from './member-links.js';
import { indexOf, onePod } from './testing.js';

const POD = onePod();
const index = (name: string) => indexOf(POD, name);

/** Each node hosted by a member named after it. */
const ownMember = (node: string) => node;

test('a member’s remote links: those with one end here, grouped by neighbour, who dials, and the direction names', () => {
  const links = new RemoteLinks(POD, new Set([index('sw1'), index('h2')]), 'w', ownMember);
  assert.deepEqual(links.names, ['h1:p0--sw1:p1']);
  const l = links.get('h1:p0--sw1:p1')!;
  assert.deepEqual([l.aHere, l.outName, l.inName, l.index], [false, 'sw1:p1>h1:p0', 'h1:p0>sw1:p1', 0]);
  assert.deepEqual([links.peers, l.pair.peer, l.pair.dialer, l.pair.links], [['h1'], 'h1', false, [l]]);
  assert.equal(links.allConnected, false);
  // The switch alone has two neighbours, one link each; it sorts after both, so they dial it.
  const sw1 = new RemoteLinks(POD, new Set([index('sw1')]), 'sw1', ownMember);
  assert.deepEqual([...sw1.allPairs()].map((p) => [p.peer, p.dialer, p.links.map((x) => x.name)]), [
    ['h1', false, ['h1:p0--sw1:p1']],
    ['h2', false, ['h2:p0--sw1:p2']],
  ]);
  assert.deepEqual(sw1.peersOf(['h2:p0--sw1:p2', 'nope', 'h1:p0--sw1:p1']), ['h2', 'h1']);
});

test('a pair message naming a link the pair does not have is refused, naming the index and the pair', () => {
  const links = new RemoteLinks(POD, new Set([index('sw1')]), 'sw1', ownMember);
  const pair = links.pair('h1')!;
  const frames = { frames: [], arrivalPs: [], originSeq: [], fcsBad: [] };
  assert.equal(links.misnumbered(pair, { lease: 1, window: 2, links: [] }), null);
  assert.equal(links.misnumbered(pair, { lease: 1, window: 2, links: [{ link: 0, ...frames }] }), null);
  assert.equal(
    links.misnumbered(pair, { lease: 1, window: 2, links: [{ link: 0, ...frames }, { link: 1, ...frames }] }),
    'link index 1 in the pair message for lease 1 window 2: the pair with h1 has 1 links (0..0)',
  );
});

test('counts over the run only grow; a broken link is settled with the counts since it last connected', () => {
  const links = new RemoteLinks(POD, new Set([index('h1')]), 'h1', ownMember);
  const l = links.get('h1:p0--sw1:p1')!;
  l.sent = 100;
  l.accepted = 40;
  // The neighbour died and rejoined: its fresh process counts from zero on the new connection.
  links.reconnect(l.pair, {} as Connection);
  l.sent += 7;
  l.accepted += 3;
  assert.deepEqual(links.totals(), [
    { link: 'h1:p0>sw1:p1', sender: true, frames: 107 },
    { link: 'sw1:p1>h1:p0', sender: false, frames: 43 },
  ]);
  assert.deepEqual(links.failedCounts([l], false), [
    { link: 'h1:p0>sw1:p1', sender: true, frames: 7 },
    { link: 'sw1:p1>h1:p0', sender: false, frames: 3 },
  ]);
});

test('one message per pair per window: links with frames in it, idle links absent; a broken pair drops as link_down', () => {
  // Member w hosts both hosts: its one neighbour, sw1, shares two links with it.
  const links = new RemoteLinks(POD, new Set([index('h1'), index('h2')]), 'w', (node) => (node === 'sw1' ? 'm-sw1' : node));
  const pair = links.pair('m-sw1')!;
  assert.deepEqual(pair.links.map((l) => [l.name, l.index]), [['h1:p0--sw1:p1', 0], ['h2:p0--sw1:p2', 1]]);
  const sent: Envelope[] = [];
  pair.conn = { send: (env: Envelope) => (sent.push(env), 100), flush: () => undefined } as unknown as Connection;
  const frame = newFrame(FrameKind.data);
  const outboxes = new Map<number, { frames: Frame[]; arrivalPs: number[]; originSeq: number[]; fcsBad: boolean[] }>([
    [index('h1'), { frames: [frame, frame], arrivalPs: [5, 6], originSeq: [1, 2], fcsBad: [false, false] }],
  ]);
  const drops: Array<[string, number, number]> = [];
  const engine = {
    takeOutbox: (node: number) => outboxes.get(node) ?? { frames: [], arrivalPs: [], originSeq: [], fcsBad: [] },
    context: () => ({ stats: { countDrops: (reason: string, port: number, n: number) => drops.push([reason, port, n]) } }),
    setRemoteBroken: () => undefined,
  } as unknown as Engine;
  links.ship(engine, 3, 7);
  assert.deepEqual(sent, [{ type: 'pair', pair: { lease: 3, window: 7, links: [{ link: 0, frames: [frame, frame], arrivalPs: [5, 6], originSeq: [1, 2], fcsBad: [false, false] }] } }]);
  assert.deepEqual([links.messages, links.bytes, pair.links[0]!.sent, pair.links[1]!.sent], [1, 100, 2, 0]);
  // An idle window still sends the (empty) message: it says the window is complete.
  outboxes.clear();
  links.ship(engine, 3, 8);
  assert.deepEqual(sent[1], { type: 'pair', pair: { lease: 3, window: 8, links: [] } });
  // The pair's connection broke: both links fail, nothing is sent, what they emit is link_down.
  assert.equal(links.failPair(engine, pair), true);
  assert.equal(links.failPair(engine, pair), false);
  assert.deepEqual(links.takeFailed().map((l) => l.name), ['h1:p0--sw1:p1', 'h2:p0--sw1:p2']);
  outboxes.set(index('h2'), { frames: [frame], arrivalPs: [9], originSeq: [3], fcsBad: [false] });
  links.ship(engine, 3, 9);
  assert.equal(sent.length, 2);
  assert.deepEqual(drops, [['link_down', 0, 0], ['link_down', 0, 1]]);
});

test('a link with more frames in one window than a pair message may carry is refused at the sender, naming the link and the window', () => {
  const links = new RemoteLinks(POD, new Set([index('h1'), index('h2')]), 'w', (node) => (node === 'sw1' ? 'm-sw1' : node));
  const pair = links.pair('m-sw1')!;
  const sent: Envelope[] = [];
  pair.conn = { send: (env: Envelope) => (sent.push(env), 100), flush: () => undefined } as unknown as Connection;
  const n = 65_537;
  const frames = Array.from({ length: n }, () => newFrame(FrameKind.data));
  const full = { frames, arrivalPs: frames.map(() => 5), originSeq: frames.map((_, i) => i), fcsBad: frames.map(() => false) };
  const engine = { takeOutbox: (node: number) => (node === index('h1') ? full : { frames: [], arrivalPs: [], originSeq: [], fcsBad: [] }) } as unknown as Engine;
  assert.throws(() => links.ship(engine, 2, 4), (err: unknown) => err instanceof MessageTooLarge && /link h1:p0--sw1:p1 carried 65537 frames in window 4 of lease 2: a pair message may carry at most 65536 per link/.test(err.message));
  assert.equal(sent.length, 0);
});
