// The host's TCP stack beside the NIC: the kernel's receive latency, an ACK for every segment with
// its CE echoed, and frames for no connection dropped with their reason.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DROP_REASONS } from '@rocelab/sim';
import { FrameKind, type Frame } from '@rocelab/wire';
import { pair } from './testing.js';

test('a segment that drained into host memory waits the receive latency in the stack, counted as held, then is taken', () => {
  // One 1000 B write: its segment drains at b at 7,575,000 ps; the stack takes it 3.75 µs later (host.test.ts).
  const { engine, b, audit } = pair(1000, () => undefined, [], 'tcp');
  engine.runUntil(7_600_000);
  assert.deepEqual([b.tcp.heldFrames, b.heldFrames(), b.goodputBytes], [1, 1, 0]);
  const { sent, accounted } = audit();
  assert.equal(sent, accounted, 'a frame held by the stack is accounted for');
  engine.runUntil(11_300_000);
  assert.equal(b.tcp.heldFrames, 1, 'still in the receive path 25 ns before its 3.75 µs are up');
  engine.runUntil(11_400_000);
  assert.deepEqual([b.tcp.heldFrames, b.goodputBytes], [0, 1000]);
});

test('every segment is ACKed with its CE mark echoed: a DCTCP sender hears every mark and cuts its window', () => {
  const { engine, a, b } = pair(20_000, () => undefined, [], 'dctcp');
  // The link has no switch to mark CE: mark every segment as it leaves, as a congested queue would.
  const send = a.nextFrame.bind(a);
  a.nextFrame = (port: number, nowPs: number, mask: number): Frame | null => {
    const frame = send(port, nowPs, mask);
    if (frame?.kind === FrameKind.tcpData) frame.ecn = 3;
    return frame;
  };
  engine.runUntil(200_000_000);
  const [t] = a.tcp.connections;
  assert.equal(a.results().sent[0]!.status, 'success');
  assert.equal(t!.cnps, a.tcp.stats.segmentsSent, 'one ECE per segment');
  assert.ok(a.tcp.stats.cwndCuts > 0, 'DCTCP reacted');
  assert.equal(b.goodputBytes, 20_000);
});

test('a segment or ACK for no connection of this host is dropped as misdelivered, and the stack goes on', () => {
  const { engine, a, b } = pair(1000, () => undefined, [], 'tcp');
  const stray = (kind: FrameKind): Frame => {
    const frame = a.nic.frameTo(kind, a.tcp.connections[0]!.end);
    frame.destQp = 99;
    return frame;
  };
  b.tcp.onFrame(0, stray(FrameKind.tcpData));
  a.tcp.onFrame(0, stray(FrameKind.tcpAck));
  engine.runUntil(30_000_000);
  const misdelivered = DROP_REASONS.indexOf('misdelivered');
  assert.deepEqual([engine.context(0).stats.dropped[misdelivered], engine.context(1).stats.dropped[misdelivered]], [1, 1]);
  assert.equal(a.results().sent[0]!.status, 'success', 'the real connection is untouched');
  assert.equal(b.goodputBytes, 1000);
});
