// The incident timeline over a storm that spreads: h4 pauses tor2:p2, tor2 pauses spine1:p2
// behind it, the watchdog on tor2:p2 detects the storm and restores the port.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { incidentTimeline, type TimelineCable, type TimelineEvent } from './incident-timeline.js';
import type { PfcEvent } from './pause-intervals.js';

const pause = (timeUs: number, node: string, port: string, pauseUs = 50, priority = 3): PfcEvent => ({ timeUs, node, port, priority, event: 'pause', pauseUs });
const resume = (timeUs: number, node: string, port: string): PfcEvent => ({ timeUs, node, port, priority: 3, event: 'resume', pauseUs: 0 });
const cable = (a: string, b: string, us = 1): TimelineCable => {
  const [an, ap] = a.split(':') as [string, string];
  const [bn, bp] = b.split(':') as [string, string];
  return { a: { node: an, port: ap }, b: { node: bn, port: bp }, aToBUs: us, bToAUs: us };
};
const cables = [cable('tor2:p2', 'h4:p0'), cable('spine1:p2', 'tor2:p1', 2), cable('tor2:p3', 'h3:p0')];
const event = (timeUs: number, node: string, port: string, name: string, priority: number | null = 3): TimelineEvent => ({ timeUs, node, port, priority, event: name });

test('who paused whom: first PAUSE sent and received, paused time, the peer and the cause, watchdog detect and restore', () => {
  const pfc = [
    // h4 storms tor2:p2 from 100 µs, refreshing every 40 µs until 300 µs (paused 100 → 350).
    ...[100, 140, 180, 220, 260, 300].map((t) => pause(t, 'tor2', 'p2')),
    // tor2's ingress from spine1 fills behind it: its PAUSE reaches spine1:p2 at 152 µs (sent at 150), then a resume.
    pause(152, 'spine1', 'p2'),
    resume(172, 'spine1', 'p2'),
  ];
  const events = [event(400, 'tor2', 'p2', 'pfcwd_storm_restored'), event(330, 'tor2', 'p2', 'pfcwd_storm_detected'), event(10, 'h9', '', 'fault', null)];
  const rows = incidentTimeline({ pfc, events, cables, endUs: 1000 });
  assert.deepEqual(rows.map((r) => [r.port, r.firstPauseSentUs, r.firstPauseReceivedUs, r.pausedUs, r.pausedBy, r.cause, r.watchdogDetectedUs, r.watchdogRestoredUs]), [
    ['h4:p0', 99, null, 0, null, null, null, null],
    ['tor2:p2', null, 100, 250, 'h4:p0', null, 330, 400],
    ['tor2:p1', 150, null, 0, null, 'tor2:p2', null, null],
    ['spine1:p2', null, 152, 20, 'tor2:p1', null, null, null],
  ]);
});

test('paused time is clipped at the run end, a restore before any detection is ignored, NIC stall events join the port\'s row', () => {
  const rows = incidentTimeline({
    pfc: [pause(900, 'tor2', 'p2', 500)],
    events: [event(50, 'tor2', 'p2', 'pfcwd_storm_restored'), event(950, 'h4', 'p0', 'nic_stall_error', null)],
    cables,
    endUs: 1000,
  });
  const tor = rows.find((r) => r.port === 'tor2:p2')!;
  assert.equal(tor.pausedUs, 100);
  assert.equal(tor.watchdogRestoredUs, null);
  const host = rows.filter((r) => r.port === 'h4:p0');
  assert.deepEqual(host.map((r) => [r.priority, r.firstPauseSentUs, r.watchdogDetectedUs]), [[3, 899, 950]]);
});

test('the cause of a PAUSE is the node\'s earliest paused other transmitter at that instant; without one the pausing starts there', () => {
  const pfc = [pause(10, 'tor2', 'p3', 100), pause(20, 'tor2', 'p2', 100), pause(32, 'spine1', 'p2'), pause(500, 'spine1', 'p2')];
  const rows = incidentTimeline({ pfc, events: [], cables, endUs: 1000 });
  assert.equal(rows.find((r) => r.port === 'tor2:p1')!.cause, 'tor2:p3', 'earliest of the two paused at 30 µs');
  // Another priority's pauses are no cause.
  const other = incidentTimeline({ pfc: [pause(10, 'tor2', 'p3', 100, 1), pause(32, 'spine1', 'p2')], events: [], cables, endUs: 1000 });
  assert.equal(other.find((r) => r.port === 'tor2:p1' && r.priority === 3)!.cause, null);
});

test('no PFC and no watchdog event: no rows', () => {
  assert.deepEqual(incidentTimeline({ pfc: [], events: [event(5, 'h1', '', 'fault', null)], cables, endUs: 100 }), []);
});
