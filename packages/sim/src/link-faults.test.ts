/**
 * The link side of issue 24's faults, on the transmitter: a direction trained down to a lower
 * rate (`linkRate`), a port MTU below the frames it carries (`mtuMismatch`), and one direction
 * down while the other carries (`linkDown` with `direction`), each applied mid-run through
 * `Engine.scheduleImpairments` as the runtime's fault events do.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FrameKind, newFrame } from '@rocelab/wire';
import { dataFrame, scriptedPod } from './testing.js';
import { ipPacketBytes } from './impairments.js';

// 40 Gb/s: 200 ps per byte. A 1024 B middle WRITE packet is 1086 B + 20 B preamble/gap = 221,200 ps.
const DATA_PS = 221_200;
const LATENCY_PS = 1_000_000;

test('linkRate: from the event on, frames serialize at the trained rate (10 Gb/s: 4×); the frame on the wire finishes at the old one; the undo restores 40 Gb/s', () => {
  const { engine, model } = scriptedPod([{ a: 'a', b: 'b' }]);
  for (let i = 0; i < 6; i++) model('a').send(0, dataFrame({ psn: i }));
  // Mid-way through the second frame: it finishes at 40 Gb/s, the next ones take 4×.
  engine.scheduleImpairments(DATA_PS + 1000, 1, 0, 0, { rateBps: 10e9 });
  engine.scheduleImpairments(4 * DATA_PS + 1000, 2, 0, 0, { rateBps: undefined });
  engine.runUntil(1e9);
  const arrivals = model('b').received.map((r) => r.timePs - LATENCY_PS);
  // The third frame starts at 2 units, after the change: 4 units long. The undo (at 4 units) falls
  // inside it, so it finishes at 10 Gb/s and the rest go at 40 Gb/s again.
  const ends = [DATA_PS, 2 * DATA_PS, 6 * DATA_PS, 7 * DATA_PS, 8 * DATA_PS, 9 * DATA_PS];
  assert.deepEqual(arrivals, ends);
  assert.equal(engine.context(0).transmitters[0]!.currentRateBps, 40e9);
});

test('linkRate above the configured rate is refused by the transmitter (the lookahead would break)', () => {
  const { engine } = scriptedPod([{ a: 'a', b: 'b' }]);
  engine.scheduleImpairments(0, 1, 0, 0, { rateBps: 100e9 });
  assert.throws(() => engine.runUntil(10), /trained rate .* above the configured/);
});

test('mtuMismatch: frames whose IP packet exceeds the limit are dropped as mtu_exceeded at the sender; smaller ones (ACKs) pass; conservation by count', () => {
  const { engine, model } = scriptedPod([{ a: 'a', b: 'b', aToB: { ipMtuBytes: 1000 } }]);
  const big = dataFrame({ payloadBytes: 1024 });
  const small = dataFrame({ payloadBytes: 512 });
  assert.equal(ipPacketBytes(big), 1024 + 44, 'IP + UDP + BTH + ICRC = 44 B around the payload');
  for (let i = 0; i < 4; i++) model('a').send(0, dataFrame({ payloadBytes: 1024 }));
  for (let i = 0; i < 3; i++) model('a').send(0, dataFrame({ payloadBytes: 512 }));
  model('a').send(0, newFrame(FrameKind.ack, { dscp: 26 }));
  engine.runUntil(1e9);
  assert.equal(engine.context(0).stats.droppedByReason().mtu_exceeded, 4);
  assert.equal(model('b').received.length, 4, 'the three small data frames and the ACK');
  assert.ok(ipPacketBytes(small) <= 1000);
});

test('linkDown one way: the down direction drops what it sends as link_down; the other direction carries on', () => {
  const { engine, model } = scriptedPod([{ a: 'a', b: 'b' }]);
  engine.scheduleImpairments(0, 1, 0, 0, { down: true });
  model('a').at(10, () => {
    for (let i = 0; i < 3; i++) model('a').send(0, dataFrame());
  });
  model('b').at(10, () => model('b').send(0, dataFrame()));
  engine.scheduleImpairments(5 * DATA_PS, 2, 0, 0, { down: false });
  model('a').at(6 * DATA_PS, () => model('a').send(0, dataFrame()));
  engine.runUntil(1e9);
  assert.equal(engine.context(0).stats.droppedByReason().link_down, 3);
  assert.equal(model('a').received.length, 1, 'b → a was never down');
  assert.equal(model('b').received.length, 1, 'a → b carries again after the undo');
});
