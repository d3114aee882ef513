import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Connection } from './connection.js';
import { RemoteLinks } from './member-links.js';
import { indexOf, onePod } from './testing.js';

const POD = onePod();
const index = (name: string) => indexOf(POD, name);

test('a member’s remote links: those with one end here, who dials, and the direction names', () => {
  const links = new RemoteLinks(POD, new Set([index('sw1'), index('h2')]));
  assert.deepEqual(links.names, ['h1:p0--sw1:p1']);
  const l = links.get('h1:p0--sw1:p1')!;
  assert.deepEqual([l.dialer, l.outName, l.inName], [false, 'sw1:p1>h1:p0', 'h1:p0>sw1:p1']);
  assert.equal(links.allConnected, false);
});

test('counts over the run only grow; a broken link is settled with the counts since it last connected', () => {
  const links = new RemoteLinks(POD, new Set([index('h1')]));
  const l = links.get('h1:p0--sw1:p1')!;
  l.sent = 100;
  l.accepted = 40;
  // The neighbour died and rejoined: its fresh process counts from zero on the new connection.
  links.reconnect(l, {} as Connection);
  l.sent += 7;
  l.accepted += 3;
  // What the batches cost on the wire is the run's, on the sending end only.
  l.messages = 12;
  l.bytes = 3456;
  assert.deepEqual(links.totals(), [
    { link: 'h1:p0>sw1:p1', sender: true, frames: 107, messages: 12, bytes: 3456 },
    { link: 'sw1:p1>h1:p0', sender: false, frames: 43, messages: 0, bytes: 0 },
  ]);
  assert.deepEqual(links.failedCounts([l], false), [
    { link: 'h1:p0>sw1:p1', sender: true, frames: 7, messages: 12, bytes: 3456 },
    { link: 'sw1:p1>h1:p0', sender: false, frames: 3, messages: 0, bytes: 0 },
  ]);
});
