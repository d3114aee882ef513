import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findDeadlock, type Cable, type QueueSample } from './deadlock.js';

/** How one queue looks at time t (µs). */
type Shape = (t: number) => { bytes: number; paused: boolean; tx: number };

const cable = (a: string, b: string): Cable => {
  const [an, ap] = a.split(':') as [string, string];
  const [bn, bp] = b.split(':') as [string, string];
  return { a: { node: an, port: ap }, b: { node: bn, port: bp } };
};

/** Rows on a 1 µs grid from `fromUs` to `toUs` inclusive, in (time, queue) order as queue.csv has them. */
function rows(queues: Record<string, Shape>, toUs: number, fromUs = 0): QueueSample[] {
  const out: QueueSample[] = [];
  for (let t = fromUs; t <= toUs; t++) {
    for (const [name, shape] of Object.entries(queues)) {
      const [node, port, priority] = name.split(':') as [string, string, string];
      const { bytes, paused, tx } = shape(t);
      out.push({ timeUs: t, node, port, priority: Number(priority), queueBytes: bytes, paused, txPackets: tx });
    }
  }
  return out;
}

/** Paused with 5,000 B from `fromUs` on, and its last packet left at `fromUs`; moving before. */
const stuckFrom = (fromUs: number): Shape => (t) => ({ bytes: 5000, paused: t >= fromUs, tx: 10 + Math.min(t, fromUs) });
/** Empty and moving. */
const flowing: Shape = (t) => ({ bytes: 0, paused: false, tx: t });

// Two switches joined by two cables: s1:x1 is paused by s2's ingress y1, which drains into s2:y2,
// which is paused by s1's ingress x2, which drains into s1:x1.
const TWO_CABLES = [cable('s1:x1', 's2:y1'), cable('s1:x2', 's2:y2')];

test('a two-switch cycle is found at the first grid time both queues have been stalled for stallUs', () => {
  const queue = rows({ 's1:x1:3': stuckFrom(2), 's1:x2:3': flowing, 's2:y1:3': flowing, 's2:y2:3': stuckFrom(2), 's2:y2:0': flowing }, 20);
  const found = findDeadlock({ queue, links: TWO_CABLES, stallUs: 3 });
  assert.deepEqual(found, {
    atUs: 5, // last packets left at 2 µs; 5 − 2 = 3 µs without progress
    untilUs: null,
    cycle: [
      { node: 's1', port: 'x1', priority: 3 },
      { node: 's2', port: 'y2', priority: 3 },
    ],
  });
  // One queue stalls a microsecond later: the cycle exists only once both are blocked.
  const later = rows({ 's1:x1:3': stuckFrom(2), 's2:y2:3': stuckFrom(3) }, 20);
  assert.equal(findDeadlock({ queue: later, links: TWO_CABLES, stallUs: 3 })?.atUs, 6);
});

test('a paused chain that ends at a host is no deadlock, and neither is a link paused both ways unless both ends hairpin', () => {
  // s1:r → s2 (its port l) → s2:h → host h, which holds s2:h paused: back-pressure from a stuck receiver.
  const links = [cable('s1:r', 's2:l'), cable('s2:h', 'h:p0')];
  const chain = rows({ 's1:r:3': stuckFrom(1), 's2:h:3': stuckFrom(1), 's2:l:3': flowing }, 30);
  assert.equal(findDeadlock({ queue: chain, links, stallUs: 5 }), null);
  assert.equal(findDeadlock({ queue: chain, links, stallUs: 5, hairpinNodes: ['s1', 's2'] }), null);
  // Both directions of s1–s2 blocked as well: without a switch sending a packet back the way it
  // came, s1:r and s2:l do not wait for each other.
  const both = rows({ 's1:r:3': stuckFrom(1), 's2:h:3': stuckFrom(1), 's2:l:3': stuckFrom(1) }, 30);
  assert.equal(findDeadlock({ queue: both, links, stallUs: 5 }), null);
  assert.equal(findDeadlock({ queue: both, links, stallUs: 5, hairpinNodes: ['s2'] }), null);
  // Two switches bouncing packets back to each other on one link (a routing loop) do.
  assert.deepEqual(findDeadlock({ queue: both, links, stallUs: 5, hairpinNodes: ['s1', 's2'] })?.cycle, [
    { node: 's1', port: 'r', priority: 3 },
    { node: 's2', port: 'l', priority: 3 },
  ]);
});

test('a cycle of paused, non-empty queues that still transmit is not reported', () => {
  // Paused at every sample but a packet leaves between samples (pauses that come and go).
  const busy: Shape = (t) => ({ bytes: 5000, paused: true, tx: t });
  assert.equal(findDeadlock({ queue: rows({ 's1:x1:3': busy, 's2:y2:3': busy }, 50), links: TWO_CABLES, stallUs: 3 }), null);
  // Stalled and non-empty but not paused (a slow scheduler, not PFC): not blocked either.
  const unpaused: Shape = (t) => ({ bytes: 5000, paused: false, tx: Math.min(t, 2) });
  assert.equal(findDeadlock({ queue: rows({ 's1:x1:3': unpaused, 's2:y2:3': stuckFrom(2) }, 50), links: TWO_CABLES, stallUs: 3 }), null);
  // Priorities do not mix: s2's stuck queue is priority 4.
  assert.equal(findDeadlock({ queue: rows({ 's1:x1:3': stuckFrom(2), 's2:y2:4': stuckFrom(2) }, 50), links: TWO_CABLES, stallUs: 3 }), null);
});

test('progress resuming ends the deadlock: untilUs is the first grid time without a cycle', () => {
  const resumes: Shape = (t) => ({ bytes: t < 12 ? 5000 : 3894, paused: t < 12, tx: t < 12 ? 12 : 13 });
  const found = findDeadlock({ queue: rows({ 's1:x1:3': stuckFrom(2), 's2:y2:3': (t) => (t < 2 ? stuckFrom(2)(t) : resumes(t)) }, 30), links: TWO_CABLES, stallUs: 3 });
  assert.equal(found?.atUs, 5);
  assert.equal(found?.untilUs, 12);
});

test('a ring of three switches is reported in wait-for order from its least name, whatever the row order', () => {
  // s1:b faces s2:a, s2:b faces s3:a, s3:b faces s1:a: each b queue waits for the next switch's b queue.
  const links = [cable('s1:b', 's2:a'), cable('s2:b', 's3:a'), cable('s3:b', 's1:a')];
  const queue = rows({ 's3:b:3': stuckFrom(4), 's2:b:3': stuckFrom(3), 's1:b:3': stuckFrom(5), 's1:a:3': flowing }, 40);
  const expected = {
    atUs: 15,
    untilUs: null,
    cycle: [
      { node: 's1', port: 'b', priority: 3 },
      { node: 's2', port: 'b', priority: 3 },
      { node: 's3', port: 'b', priority: 3 },
    ],
  };
  assert.deepEqual(findDeadlock({ queue, links, stallUs: 10 }), expected);
  assert.deepEqual(findDeadlock({ queue: [...queue].reverse(), links, stallUs: 10 }), expected);
});

test('flooding up-down-up (Guo et al. §4.2): with the leaves as hairpin nodes the ring ToR → leaf → ToR → leaf is found', () => {
  // tor1 floods up both uplinks (never back out of the ingress); each leaf routes the copy back
  // down the link it came up.
  const links = [cable('tor1:up1', 'leaf1:down1'), cable('tor1:up2', 'leaf2:down1'), cable('tor2:up1', 'leaf1:down2'), cable('tor2:up2', 'leaf2:down2'), cable('tor1:p1', 'h1:p0')];
  const queue = rows(
    { 'tor1:up1:3': stuckFrom(4), 'tor1:up2:3': stuckFrom(2), 'leaf1:down1:3': stuckFrom(3), 'leaf2:down1:3': stuckFrom(1), 'tor1:p1:3': flowing, 'leaf1:down2:3': flowing },
    30,
  );
  assert.equal(findDeadlock({ queue, links, stallUs: 5 }), null);
  assert.deepEqual(findDeadlock({ queue, links, stallUs: 5, hairpinNodes: ['leaf1', 'leaf2'] }), {
    atUs: 9,
    untilUs: null,
    cycle: [
      { node: 'leaf1', port: 'down1', priority: 3 },
      { node: 'tor1', port: 'up2', priority: 3 },
      { node: 'leaf2', port: 'down1', priority: 3 },
      { node: 'tor1', port: 'up1', priority: 3 },
    ],
  });
  // Were tor1 a hairpin node too, tor1:up2 and leaf2:down1 (blocked from 7 and 6 µs) would
  // already wait for each other at 7 µs: a link paused both ways is not the ring.
  assert.deepEqual(findDeadlock({ queue, links, stallUs: 5, hairpinNodes: ['leaf1', 'leaf2', 'tor1'] })?.atUs, 7);
});

test('a queue without a cable never waits; no rows, no deadlock; stallUs must be a non-negative number', () => {
  assert.equal(findDeadlock({ queue: rows({ 's1:x1:3': stuckFrom(0), 's2:y2:3': stuckFrom(0) }, 10), links: [], stallUs: 0, hairpinNodes: ['s1', 's2'] }), null);
  assert.equal(findDeadlock({ queue: [], links: TWO_CABLES, stallUs: 1 }), null);
  assert.throws(() => findDeadlock({ queue: [], links: [], stallUs: -1 }), RangeError);
  assert.throws(() => findDeadlock({ queue: [], links: [], stallUs: Number.NaN }), RangeError);
});
