// A TCP connection's sending side as the host drives it (issue 14): writes enter the stream after
// the write latency, messages complete when their last byte is acknowledged.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TcpRequester, unwrapSeq } from './tcp-requester.js';

const US = 1_000_000;
const CONFIG = { mssBytes: 1000, initialCwndSegments: 10, initialRtoPs: 1000 * US, minRtoPs: 1000 * US, maxRtoPs: 60_000 * US, dctcpGain: null };

test('a write waits out the scheduling and send latency, then messages complete in order as the ACKs cover them', () => {
  const tcp = new TcpRequester(CONFIG, 6 * US);
  tcp.post({ id: 1, opcode: 'write', sizeBytes: 2500, postedPs: 0 });
  tcp.post({ id: 2, opcode: 'write', sizeBytes: 0, postedPs: 1 * US });
  tcp.post({ id: 3, opcode: 'write', sizeBytes: 1000, postedPs: 2 * US });
  assert.equal(tcp.hasSegment(5 * US), false);
  assert.equal(tcp.deadlinePs(), 6 * US, 'the first write reaches the stream at 6 µs');
  const segs = [];
  for (let s = tcp.nextSegment(8 * US); s !== null; s = tcp.nextSegment(8 * US)) segs.push([s.seq, s.lengthBytes]);
  assert.deepEqual(segs, [[0, 1000], [1000, 1000], [2000, 1000], [3000, 500]], 'all three writes are one byte stream by 8 µs, cut into MSS segments; the empty one adds no byte');
  assert.equal(tcp.ackedBytes(1), 0);
  assert.deepEqual(tcp.onAck(9 * US, 2000, false).map((c) => c.wrId), []);
  assert.equal(tcp.ackedBytes(1), 2000);
  assert.deepEqual(tcp.onAck(10 * US, 2500, false).map((c) => [c.wrId, c.sizeBytes, c.completedPs]), [[1, 2500, 10 * US], [2, 0, 10 * US]], 'the empty write completes with the bytes before it');
  assert.deepEqual(tcp.onAck(11 * US, 3500, false).map((c) => c.wrId), [3]);
  assert.deepEqual([tcp.stats.completed, tcp.stats.completedBytes, tcp.stats.packetsSent, tcp.lastProgressPs, tcp.headWrId], [3, 3500, 4, 11 * US, null]);
  assert.throws(() => tcp.post({ id: 4, opcode: 'read', sizeBytes: 10, postedPs: 0 }), /a TCP stream carries writes/);
});

test('32-bit sequence numbers unwrap to the stream offset nearest the expected one', () => {
  assert.equal(unwrapSeq(5, 0), 5);
  assert.equal(unwrapSeq(10, 2 ** 32 - 6), 2 ** 32 + 10);
  assert.equal(unwrapSeq(2 ** 32 - 6, 2 ** 32 + 10), 2 ** 32 - 6, 'an old segment from before the wrap');
  assert.equal(unwrapSeq(7, 3 * 2 ** 32 + 1), 3 * 2 ** 32 + 7);
});
