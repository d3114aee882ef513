import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PS_PER_MS, PS_PER_US } from '@rocelab/sim';
import { dataFrame } from '@rocelab/sim/testing';
import { pfcFrame } from '@rocelab/wire';
import { WATCHDOG_DRILL } from './defaults.js';
import { H2_IP, switchPair } from './testing.js';

const MS = PS_PER_MS;

test('the switch watchdog (drill timing) declares a storm at the predicted poll, drops, and restores 4 ms after the last pause', () => {
  const { engine, sw, h1, h2 } = switchPair({ settings: { watchdog: { enabled: true, ports: 'all', ...WATCHDOG_DRILL } } });
  // h1 streams to h2 for 4.4 ms; h2 pauses sw from 0.5 ms, renewing every 400 µs, last at 2.9 ms.
  for (let k = 0; k < 20_000; k++) h1.send(0, dataFrame({ dstIp: H2_IP, psn: k & 0xffffff }));
  for (let t = 0.5 * MS; t < 3 * MS; t += 400 * PS_PER_US) h2.at(t, () => h2.send(0, pfcFrame(1 << 3, [0, 0, 0, 0xffff, 0, 0, 0, 0])));
  const wd = sw.watchdog(1, 3)!;
  // Polls every 1 ms from 0. At 1 ms frames still left the queue since 0 (until 0.5 ms): no storm.
  // At 2 ms and 3 ms: queue occupied, nothing sent, new pause frames → storm polls; the second
  // finds time left (1 ms) ≤ poll (1 ms): declared at 3 ms (PHYSICS §4.2).
  engine.runUntil(3 * MS);
  assert.equal(wd.state, 'operational');
  engine.runUntil(3 * MS + 1);
  assert.equal(wd.state, 'stormed');
  assert.equal(sw.queueBytes(1, 3), 0, 'the stormed queue was emptied');
  const droppedAtDetection = engine.context(2).stats.droppedByReason().watchdog;
  assert.ok(droppedAtDetection > 0);
  // Restoration: every poll without new pause frames takes 1 ms off 4 ms — 4, 5, 6 ms — and the
  // 7 ms poll finds 1 ms ≤ poll: restored at 7 ms, 4 ms after the 3 ms poll.
  engine.runUntil(7 * MS);
  assert.equal(wd.state, 'stormed');
  assert.ok(engine.context(2).stats.droppedByReason().watchdog > droppedAtDetection, 'arrivals for the queue are dropped while stormed');
  engine.runUntil(7 * MS + 1);
  assert.equal(wd.state, 'operational');
  assert.deepEqual([wd.detections, wd.restorations], [1, 1]);
  // Pauses are honoured again: a new pause holds fresh traffic.
  const before = h2.received.length;
  h2.at(7.1 * MS, () => h2.send(0, pfcFrame(1 << 3, [0, 0, 0, 0xffff, 0, 0, 0, 0])));
  h1.at(7.2 * MS, () => h1.send(0, dataFrame({ dstIp: H2_IP, psn: 99 })));
  engine.runUntil(7.5 * MS);
  assert.equal(h2.received.length, before, 'held by the pause');
  assert.equal(sw.queueBytes(1, 3), 1086);
});
