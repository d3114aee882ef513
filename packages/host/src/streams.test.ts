import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TimerTable } from '@rocelab/sim';
import { FrameKind, TcpFlag, newFrame, rdmaFields } from '@rocelab/wire';
import { StreamAddressInUse, type HostStreams, type StreamHandle } from './streams.js';
import type { Host } from './host.js';
import { idlePair } from './testing.js';

const US = 1_000_000;
const text = (s: string) => new TextEncoder().encode(s);
const str = (b: Uint8Array) => new TextDecoder().decode(b);
const timersOf = (h: Host) => (h as unknown as { timers: TimerTable }).timers.size;

/** Reads everything `h` has, appending to `into`. */
function drain(s: HostStreams, h: StreamHandle, into: number[]): void {
  for (;;) {
    const bytes = s.read(h, 4096);
    if (bytes.length === 0) return;
    into.push(...bytes);
  }
}

test('a SYN before its listener is held (a queued frame), answered when the listener comes; bytes go both ways; close ends both with EOF; every frame is counted', () => {
  const { engine, a, b, audit, ips } = idlePair();
  const timers = [timersOf(a), timersOf(b)];
  const changes: string[] = [];
  a.streams.onChange = (h) => changes.push(`a${h}`);
  b.streams.onChange = (h) => changes.push(`b${h}`);
  const c = a.streams.connect(ips.b, 7000);
  assert.equal(a.streams.status(c).localPort, 32_768);
  assert.equal(timersOf(a), timers[0]! + 1, 'the first stream registers the one timer, after every other');
  engine.runUntil(100 * US);
  assert.equal(b.streams.heldFrames, 1, 'the SYN waits for its listener');
  assert.equal(engine.heldFrames(1), 1);
  assert.equal(timersOf(b), timers[1], 'holding needs no timer');
  assert.equal(a.streams.status(c).state, 'synSent');
  assert.deepEqual(audit(), { sent: 1, accounted: 1 });

  const l = b.streams.listen(7000);
  assert.equal(b.streams.heldFrames, 0);
  engine.runUntil(200 * US);
  assert.equal(a.streams.status(c).state, 'established');
  assert.equal(a.streams.status(c).sendSpace, 262_144);
  assert.equal(b.streams.status(l).acceptable, 1);
  const s = b.streams.accept(l)!;
  assert.deepEqual([b.streams.status(s).remoteIp, b.streams.status(s).remotePort, b.streams.status(s).localPort], [ips.a, 32_768, 7000]);
  assert.equal(b.streams.accept(l), null);
  assert.ok(changes.includes(`a${c}`) && changes.includes(`b${l}`), changes.join(' '));

  assert.equal(a.streams.write(c, text('QPN 0x000102, PSN 0x5ee2, GID ::ffff:10.0.0.1')), 45);
  engine.runUntil(300 * US);
  assert.equal(str(b.streams.read(s, 100)), 'QPN 0x000102, PSN 0x5ee2, GID ::ffff:10.0.0.1');
  b.streams.write(s, text('QPN 0x000203'));
  engine.runUntil(400 * US);
  assert.equal(str(a.streams.read(c, 100)), 'QPN 0x000203');

  a.streams.close(c);
  engine.runUntil(500 * US);
  assert.equal(b.streams.status(s).atEof, true);
  assert.equal(a.streams.has(c), false, 'closed by its program');
  b.streams.close(s);
  b.streams.close(l);
  engine.runUntil(600 * US);
  const { sent, accounted } = audit();
  assert.equal(sent, accounted);
  assert.equal(sent, 11, 'SYN, SYN-ACK, ACK, 45 B, ACK, 12 B, ACK, FIN, ACK, FIN, ACK');
  assert.equal(a.streams.stats.retransmissionTimeouts + b.streams.stats.retransmissionTimeouts, 0);
  assert.equal(engine.context(0).stats.droppedTotal() + engine.context(1).stats.droppedTotal(), 0);
});

test('a listener closed before it accepted resets its connection (ECONNRESET at the client); a second listen on a port is refused', () => {
  const { engine, a, b, audit, ips } = idlePair();
  const l = b.streams.listen(7001);
  assert.throws(() => b.streams.listen(7001), (e: unknown) => e instanceof StreamAddressInUse && /port 7001 is in use/.test(e.message));
  const c = a.streams.connect(ips.b, 7001);
  engine.runUntil(100 * US);
  b.streams.close(l);
  engine.runUntil(200 * US);
  assert.deepEqual([a.streams.status(c).state, a.streams.status(c).error], ['failed', 'reset']);
  assert.equal(a.streams.write(c, text('x')), 0);
  const { sent, accounted } = audit();
  assert.equal(sent, accounted);
  const again = b.streams.listen(7001);
  assert.ok(again > l);
});

test('a segment of no connection is dropped as misdelivered and answered with a RST (which is not answered)', () => {
  const { engine, a, b, audit, ips } = idlePair();
  // A stray segment, as a connection b forgot would get: injected past b's receive path.
  const stray = newFrame(FrameKind.tcpData, { srcIp: ips.a, dstIp: ips.b, udpSrcPort: 40_000, tcpDstPort: 7002, tcpFlags: TcpFlag.ack | TcpFlag.psh, tcpSeq: 5, tcpAck: 77, payloadBytes: 1, rdma: rdmaFields({ data: text('x') }) });
  b.streams.onFrame(0, stray);
  assert.equal(engine.context(1).stats.droppedByReason().misdelivered, 1);
  engine.runUntil(100 * US);
  assert.equal(b.streams.stats.resets, 1);
  assert.equal(engine.context(0).stats.droppedByReason().misdelivered, 1, 'a has no such connection either');
  assert.equal(a.streams.stats.resets, 0, 'a RST is never answered');
  const { sent, accounted } = audit();
  assert.equal(sent + 1, accounted, 'the one injected frame');
});

test('through a lossy link (20 % each way) 50 kB each way arrive intact, by retransmission, and every frame is counted', () => {
  const { engine, a, b, audit, ips } = idlePair({ aToB: { loss: 0.2 }, bToA: { loss: 0.2 } });
  const up = Uint8Array.from({ length: 50_000 }, (_, i) => (i * 13) & 0xff);
  const down = Uint8Array.from({ length: 50_000 }, (_, i) => (i * 29 + 1) & 0xff);
  const l = b.streams.listen(7003);
  const c = a.streams.connect(ips.b, 7003);
  let s: StreamHandle | null = null;
  const got = { a: [] as number[], b: [] as number[] };
  let upAt = 0;
  let downAt = 0;
  // The two programs, woken by their hosts' notices.
  a.streams.onChange = () => {
    if (a.streams.status(c).state !== 'established') return;
    upAt += a.streams.write(c, up.subarray(upAt));
    drain(a.streams, c, got.a);
  };
  b.streams.onChange = () => {
    s ??= b.streams.accept(l);
    if (s === null) return;
    downAt += b.streams.write(s, down.subarray(downAt));
    drain(b.streams, s, got.b);
  };
  engine.runUntil(2_000_000 * US);
  assert.equal(got.b.length, up.length);
  assert.deepEqual(Uint8Array.from(got.b), up);
  assert.deepEqual(Uint8Array.from(got.a), down);
  assert.ok(a.streams.stats.retransmissionTimeouts > 0 && b.streams.stats.retransmissionTimeouts > 0);
  assert.ok(engine.context(0).stats.droppedTotal() + engine.context(1).stats.droppedTotal() > 0);
  const { sent, accounted } = audit();
  assert.equal(sent, accounted);
});
