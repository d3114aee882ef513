import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pair } from './testing.js';


test('a 10,000 B WRITE completes when its last ACK has drained into host memory, at the exact picosecond', () => {
  // 10 packets: FIRST 1024 + 62 + 16 = 1102 B, 8 MIDDLE 1086 B, LAST 784 + 62 = 846 B; + 20 B each
  // on the wire at 200 ps per byte: the last leaves a at (1122 + 8·1106 + 866)·200 = 2,167,200 ps,
  // reaches b 1 µs later and drains into b's memory at 80 Gb/s (846 B · 100 ps) at 3,251,800 ps.
  // Its ACK (AckReq: last packet) leaves at once: 66 + 20 B = 17,200 ps, 1 µs, then 66 B drain at a:
  // 3,251,800 + 17,200 + 1,000,000 + 6,600 = 4,275,600 ps.
  const { engine, a, b, audit } = pair(10_000);
  engine.runUntil(10_000_000);
  const [m] = a.results().sent;
  assert.equal(m!.status, 'success');
  assert.equal(m!.completedPs, 4_275_600);
  assert.equal(b.goodputBytes, 10_000);
  assert.equal(a.traffic.completion.count, 1);
  // ACKs every 4 packets (psn 3 and 7) and the last: 3 ACKs, 10 data frames.
  assert.deepEqual([engine.context(0).stats.sent, engine.context(1).stats.sent], [10, 3]);
  const { sent, accounted } = audit();
  assert.equal(sent, accounted);
});

test('a READ completes when its last response has drained at the requester; the ACK of a WRITE after it waits behind its responses', () => {
  // The request (62 + 16 B RETH = 78 B; 98 B on the wire at 200 ps/B, 1 µs, 78 B drained at
  // 100 ps/B) is executed at 1,027,400 ps. The responses — FIRST 1090 B (with its AETH), 8 MIDDLE
  // 1086 B, LAST 784 + 62 + 4 = 850 B — leave b back to back; the last drains at a
  // 1,027,400 + (1110 + 8·1106 + 870)·200 + 1,000,000 + 850·100 = 4,278,000 ps (ideal-fct.test.ts).
  const { engine, a, b, audit } = pair(0, () => undefined, [{ opcode: 'read', sizeBytes: 10_000 }, { opcode: 'write', sizeBytes: 1000 }]);
  engine.runUntil(10_000_000);
  const [read, write] = a.results().sent;
  assert.deepEqual([read!.status, read!.completedPs], ['success', 4_278_000]);
  assert.equal(write!.status, 'success');
  assert.ok(write!.completedPs! > read!.completedPs!, 'the WRITE after the READ completes after it');
  // Had the WRITE's ACK overtaken the READ's responses, a would have taken it for a lost response
  // (an ACK past a pending READ) and asked for the READ again.
  assert.equal(a.senderQps[0]!.req.stats.readRetries, 0);
  assert.equal(b.nic.receiverQps[0]!.resp.stats.reads, 1);
  assert.equal(a.nic.stats.readBytesReceived, 10_000);
  assert.equal(a.goodputBytes, 10_000, 'a READ is its requester’s goodput');
  const { sent, accounted } = audit();
  assert.equal(sent, accounted);
});

test('a slow receiver (host memory at 10 Gb/s behind a 40 Gb/s link) pauses its sender and loses nothing', () => {
  const { engine, a, b, audit } = pair(2_000_000, (s) => {
    s.pfc.drainBps = 10e9;
    s.dcqcn.enabled = false;
  });
  engine.runUntil(5_000_000_000);
  assert.ok(engine.context(1).stats.ports[0]!.pfcTx[3]! > 0, 'b paused a');
  assert.ok(engine.context(0).stats.ports[0]!.pfcRx[3]! > 0);
  assert.equal(engine.context(1).stats.droppedTotal(), 0, 'no lossless drop');
  assert.equal(a.results().sent[0]!.status, 'success');
  assert.equal(b.goodputBytes, 2_000_000);
  // Host memory, not the link, sets the pace: ≥ 2 MB · 8 / 10 Gb/s = 1.6 ms.
  assert.ok(a.results().sent[0]!.completedPs! >= 1_600_000_000);
  const { sent, accounted } = audit();
  assert.equal(sent, accounted);
});

test('a TCP write completes when the ACK of its last byte has been processed: the write and receive latencies, the ACK of every segment, at the ideal FCT', () => {
  // 1000 B: the write reaches the stream after 2.5 µs of scheduling and 3.75 µs of send path,
  // its one segment (1070 B) drains at b at 7,575,000 ps, b's stack takes it 3.75 µs later and ACKs
  // (70 B), a drains the ACK at 12,350,000 ps and its stack processes it 3.75 µs later (ideal-fct.test.ts).
  const one = pair(1000, () => undefined, [], 'tcp');
  one.engine.runUntil(30_000_000);
  const [m] = one.a.results().sent;
  assert.deepEqual([m!.status, m!.completedPs, m!.transport], ['success', 16_100_000, 'tcp']);
  assert.equal(one.b.goodputBytes, 1000);
  // 20 kB: 20 segments of at most 1024 B; the initial window holds 10, so the second ten wait a round trip.
  const big = pair(20_000, () => undefined, [], 'dctcp');
  big.engine.runUntil(100_000_000);
  const [w] = big.a.results().sent;
  assert.equal(w!.status, 'success');
  assert.ok(w!.completedPs! > 2 * 16_100_000 - 6_250_000, `two round trips of the stack at least: ${w!.completedPs} ps`);
  assert.deepEqual([big.engine.context(0).stats.sent, big.engine.context(1).stats.sent], [20, 20], '20 segments, 20 ACKs');
  assert.equal(big.b.tcp.stats.outOfOrder + big.a.tcp.stats.retransmittedSegments, 0);
  for (const { audit } of [one, big]) {
    const { sent, accounted } = audit();
    assert.equal(sent, accounted);
  }
});
