// The NIC's side of congestion control (issue 26) on two real NICs: the window of bytes in flight
// (HPCC's HAS_WIN) and what an ACK hands the QP's congestion control, TIMELY's echoed send time
// included (HPCC ns-3 IntHeader TS mode), with a scripted congestion control in the QP's place.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AckFeedback, CongestionControl, RcRequester } from '@rocelab/rnic';
import { pair } from './testing.js';

test('a window of 3 packets holds the bytes in flight to 3,072 and the WRITE still completes', () => {
  const { engine, a, audit } = pair(20_000, (s) => {
    s.window = { enabled: true, bytes: 3 * 1024, varWin: false };
    // ACK coalescing (4) above the window (3) would wait for the ACK timeout: HPCC ACKs every packet.
    s.ackEvery = 1;
  });
  let most = 0;
  for (let t = 0; t < 40_000_000; t += 50_000) {
    engine.runUntil(t);
    most = Math.max(most, (a.senderQps[0]!.req as RcRequester).inFlightBytes);
  }
  assert.equal(most, 3 * 1024);
  const [m] = a.results().sent;
  assert.equal(m!.status, 'success');
  // Unwindowed the last packet leaves at 4.4 µs; with 3 packets per round trip (≈ 2.9 µs) it takes 7 rounds.
  assert.ok(m!.completedPs! > 15_000_000, `${m!.completedPs} ps`);
  const { sent, accounted } = audit();
  assert.equal(sent, accounted);
});

test('TIMELY: data carries its send time, the ACK echoes the time of the packet it acknowledges, and the QP hears bytes acked and snd_nxt', () => {
  const { engine, a } = pair(10_000);
  const heard: AckFeedback[] = [];
  const timely: CongestionControl = {
    kind: 'timely',
    rateBps: () => 40e9,
    nextRateChangePs: () => null,
    onBytesSent: () => undefined,
    onCnp: () => undefined,
    onAck: (_nowPs, fb) => void heard.push(fb),
    windowBytes: () => null,
  };
  a.senderQps[0]!.rp = timely;
  engine.runUntil(10_000_000);
  assert.equal(a.results().sent[0]!.status, 'success');
  // The 8-byte time stamp lengthens every data frame: FIRST 1102 + 8 + 20 B = 1130 B, MIDDLE 1114 B
  // on the wire at 200 ps per byte. ACKs every 4 packets and on the last: packets 3, 7 and 9 start at
  // 226,000 + 2·222,800 = 671,600 ps, 226,000 + 6·222,800 = 1,562,800 ps and 226,000 + 8·222,800 = 2,008,400 ps.
  assert.deepEqual(heard.map((f) => f.sentTsPs), [671_600, 1_562_800, 2_008_400]);
  assert.deepEqual(heard.map((f) => f.ackedBytes), [4096, 8192, 10_000]);
  assert.deepEqual(heard.map((f) => f.nextSendBytes), [10_000, 10_000, 10_000]);
  assert.ok(heard.every((f) => f.hops.length === 0 && !f.ecnEcho));
});
