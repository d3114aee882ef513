import assert from 'node:assert/strict';
import { test } from 'node:test';
import { localAckTimeoutPs, NAK_PSN_SEQUENCE_ERROR, NAK_REMOTE_ACCESS_ERROR, rnrNakSyndrome } from './aeth.js';
import { RcRequester, type Completion, type RequesterConfig, type RequesterPacket, type WorkOpcode } from './rc-requester.js';
import { RcResponder } from './rc-responder.js';

const MTU = 1024;
const US = 1_000_000;
const SEQ = NAK_PSN_SEQUENCE_ERROR;
const T8 = localAckTimeoutPs(8)!; // 1,048,576,000 ps (timing: drill)

function requester(over: Partial<RequesterConfig> = {}): RcRequester {
  return new RcRequester({ mtu: MTU, recovery: 'goBackN', ackTimeoutPs: null, retryCount: 7, rnrRetry: 7, initialPsn: 0, ...over });
}

let ids = 0;
function post(r: RcRequester, sizeBytes: number, opcode: WorkOpcode = 'write', postedPs = 0): number {
  const id = ++ids;
  r.post({ id, opcode, sizeBytes, postedPs });
  return id;
}

/** Send up to `max` packets at `nowPs`. */
function send(r: RcRequester, nowPs = 0, max = Infinity): RequesterPacket[] {
  const out: RequesterPacket[] = [];
  while (out.length < max && r.hasPacket(nowPs)) out.push(r.nextPacket(nowPs)!);
  return out;
}

const shape = (ps: RequesterPacket[]) => ps.map((p) => [p.opcode, p.payloadBytes, p.dmaLength, p.ackReq]);

test('WRITE segmentation: ONLY 0x0A with the RETH length; FIRST/MIDDLE/LAST 0x06/0x07/0x08; AckReq on the last', () => {
  const cases: Array<[number, Array<[number, number, number, boolean]>]> = [
    [0, [[0x0a, 0, 0, true]]],
    [1, [[0x0a, 1, 1, true]]],
    [MTU, [[0x0a, 1024, 1024, true]]],
    [MTU + 1, [[0x06, 1024, 1025, false], [0x08, 1, 0, true]]],
    [3 * MTU, [[0x06, 1024, 3072, false], [0x07, 1024, 0, false], [0x08, 1024, 0, true]]],
  ];
  for (const [size, expected] of cases) {
    const r = requester();
    post(r, size);
    assert.deepEqual(shape(send(r)), expected, `size ${size}`);
  }
});

test('SEND segmentation: ONLY 0x04, FIRST/MIDDLE/LAST 0x00/0x01/0x02, never a DMA length', () => {
  const cases: Array<[number, Array<[number, number, number, boolean]>]> = [
    [0, [[0x04, 0, 0, true]]],
    [1, [[0x04, 1, 0, true]]],
    [MTU, [[0x04, 1024, 0, true]]],
    [MTU + 1, [[0x00, 1024, 0, false], [0x02, 1, 0, true]]],
    [3 * MTU, [[0x00, 1024, 0, false], [0x01, 1024, 0, false], [0x02, 1024, 0, true]]],
  ];
  for (const [size, expected] of cases) {
    const r = requester();
    post(r, size, 'send');
    assert.deepEqual(shape(send(r)), expected, `size ${size}`);
  }
});

test('messages are contiguous in PSN space in post order; a 0-byte message takes one PSN', () => {
  const r = requester({ initialPsn: 7 });
  const a = post(r, 0);
  const b = post(r, MTU + 1, 'send');
  const c = post(r, 1);
  assert.deepEqual(send(r).map((p) => [p.psn, p.wrId, p.retransmission]), [[7, a, false], [8, b, false], [9, b, false], [10, c, false]]);
  assert.equal(r.outstandingPackets, 4);
  assert.equal(r.stats.packetsSent, 4);
});

test('PSN wrap: 3 packets from 0xFFFFFE are 0xFFFFFE, 0xFFFFFF, 0x000000; an ACK of 0x000000 completes', () => {
  const r = requester({ initialPsn: 0xfffffe });
  const id = post(r, 3 * MTU, 'write', 5);
  assert.deepEqual(send(r).map((p) => p.psn), [0xfffffe, 0xffffff, 0x000000]);
  assert.deepEqual(r.onAck(10, 0xffffff), []); // partial: the LAST (0x000000) is not covered
  assert.equal(r.outstandingPackets, 1);
  assert.deepEqual(r.onAck(20, 0x000000), [{ wrId: id, opcode: 'write', sizeBytes: 3 * MTU, postedPs: 5, completedPs: 20, status: 'success' }]);
  assert.equal(r.outstandingPackets, 0);
  assert.equal(r.hasPacket(20), false);
});

test('a cumulative ACK completes every message it covers, in order; a partial ACK completes none', () => {
  const r = requester();
  const a = post(r, 2 * MTU); // PSN 0–1
  const b = post(r, 1); // PSN 2
  const c = post(r, 3 * MTU); // PSN 3–5
  send(r);
  assert.deepEqual(r.onAck(1, 0), []);
  assert.deepEqual(r.onAck(2, 2).map((x) => x.wrId), [a, b]);
  assert.deepEqual(r.onAck(3, 4), []); // C still lacks PSN 5
  assert.deepEqual(r.onAck(4, 5).map((x) => [x.wrId, x.completedPs]), [[c, 4]]);
  assert.equal(r.stats.completed, 3);
});

test('NAK sequence error, go-back-N: resend from the NAKed PSN; retransmissions are flagged', () => {
  const r = requester({ initialPsn: 100 });
  post(r, 10 * MTU);
  send(r); // 100..109
  assert.deepEqual(r.onNak(1, 105, SEQ), []); // 100..104 acknowledged, nothing completes
  assert.equal(r.outstandingPackets, 0);
  assert.deepEqual(send(r, 1).map((p) => [p.psn, p.retransmission]), [[105, true], [106, true], [107, true], [108, true], [109, true]]);
  assert.equal(r.stats.packetsSent, 15);
  assert.equal(r.stats.retransmittedPackets, 5);
  assert.equal(r.stats.naksReceived.seq, 1);
});

test('NAK sequence error, go-back-0: resend from the first PSN of the NAKed message (300 packets from 100, NAK 250 → 100)', () => {
  for (const [recovery, from] of [['goBack0', 100], ['goBackN', 250]] as const) {
    const r = requester({ initialPsn: 100, recovery });
    post(r, 300 * MTU);
    send(r, 0, 260); // 100..359
    r.onNak(1, 250, SEQ);
    const p = r.nextPacket(2)!;
    assert.deepEqual([p.psn, p.opcode, p.dmaLength, p.retransmission], [from, from === 100 ? 0x06 : 0x07, from === 100 ? 300 * MTU : 0, true], recovery);
  }
});

test('go-back-0 still completes the messages that end before the NAKed one', () => {
  const r = requester({ initialPsn: 100, recovery: 'goBack0' });
  const a = post(r, 10 * MTU); // 100..109
  post(r, 300 * MTU); // 110..409
  send(r);
  assert.deepEqual(r.onNak(1, 250, SEQ).map((x) => x.wrId), [a]);
  assert.equal(r.nextPacket(2)!.psn, 110);
});

/**
 * Requester and responder joined by a link of `delaySteps` each way, one transmission per 1 µs
 * step. `drop(ipId)` sees the NIC's 16-bit IP ID, incremented per transmitted data packet.
 */
function loopback(req: RcRequester, resp: RcResponder, o: { maxPackets: number; delaySteps: number; drop: (ipId: number) => boolean }): Completion[] {
  const fwd: Array<{ at: number; p: RequesterPacket }> = [];
  const back: Array<{ at: number; psn: number; syndrome: number | null }> = [];
  const done: Completion[] = [];
  let ipId = 0;
  for (let s = 0; req.stats.packetsSent < o.maxPackets; s++) {
    const now = s * US;
    while (fwd.length > 0 && fwd[0]!.at <= s) {
      const { p } = fwd.shift()!;
      const { reply } = resp.onPacket(now, p.psn, p.opcode, p.payloadBytes, p.ackReq);
      if (reply !== null) back.push({ at: s + o.delaySteps, psn: reply.psn, syndrome: reply.kind === 'nak' ? reply.syndrome : null });
    }
    while (back.length > 0 && back[0]!.at <= s) {
      const { psn, syndrome } = back.shift()!;
      done.push(...(syndrome === null ? req.onAck(now, psn) : req.onNak(now, psn, syndrome)));
    }
    const deadline = req.deadlinePs();
    if (deadline !== null && deadline <= now) done.push(...req.onTimer(now));
    if (req.hasPacket(now)) {
      const p = req.nextPacket(now)!;
      if (!o.drop(ipId)) fwd.push({ at: s + o.delaySteps, p });
      ipId = (ipId + 1) & 0xffff;
    } else if (fwd.length === 0 && back.length === 0 && req.deadlinePs() === null) break; // idle: everything done
  }
  return done;
}

/** Guo et al. 2016 / PHYSICS §5.4: drop every packet whose IP ID's low byte is 0xFF. */
const dropLowByteFF = (ipId: number): boolean => (ipId & 0xff) === 0xff;

function pair(recovery: 'goBackN' | 'goBack0', responderRecovery = recovery): [RcRequester, RcResponder] {
  return [
    requester({ recovery, ackTimeoutPs: T8 }),
    new RcResponder({ initialPsn: 0, ackEvery: 1, nakPolicy: 'oncePerGap', nakIntervalPs: 0, rnrTimerCode: 1, recovery: responderRecovery }),
  ];
}

test('PHYSICS §7a #7: go-back-0 never completes a 300-packet message under the IP-ID 0xFF drop rule (livelock)', () => {
  const [req, resp] = pair('goBack0');
  post(req, 300 * MTU);
  const done = loopback(req, resp, { maxPackets: 100_000, delaySteps: 8, drop: dropLowByteFF });
  assert.equal(req.stats.packetsSent, 100_000); // the link stayed busy the whole time
  assert.deepEqual(done, []);
  assert.equal(resp.stats.messagesCompleted, 0);
  assert.equal(req.state, 'ready'); // sequence NAKs keep the RTO from ever expiring: no error either
  assert.equal(req.stats.rtoExpirations, 0);
  assert.ok(req.stats.naksReceived.seq > 100_000 / 256 - 10, `${req.stats.naksReceived.seq} NAKs`); // one per attempt
  // Zero goodput: every accepted byte was discarded again, bar the attempt still in progress.
  assert.ok(resp.stats.bytesAccepted - resp.stats.bytesDiscarded < 300 * MTU);
});

test('PHYSICS §7a #7: go-back-N completes the same messages in order under the same drop rule', () => {
  const [req, resp] = pair('goBackN');
  const ids = [post(req, 300 * MTU), post(req, 300 * MTU), post(req, 300 * MTU)];
  const done = loopback(req, resp, { maxPackets: 100_000, delaySteps: 8, drop: dropLowByteFF });
  assert.deepEqual(done.map((c) => [c.wrId, c.status]), ids.map((id) => [id, 'success']));
  assert.equal(resp.stats.messagesCompleted, 3);
  // 900 packets need 3 drops (IP IDs 255, 511, 767 …); each costs the ~2·8 packets in flight behind it.
  assert.ok(req.stats.packetsSent < 1_000, `${req.stats.packetsSent} packets`);
});

test('go-back-0 against a responder that keeps partial messages (IB) is wasteful but completes: the livelock needs both ends', () => {
  const [req, resp] = pair('goBack0', 'goBackN');
  const id = post(req, 300 * MTU);
  const done = loopback(req, resp, { maxPackets: 100_000, delaySteps: 8, drop: dropLowByteFF });
  assert.deepEqual(done.map((c) => [c.wrId, c.status]), [[id, 'success']]);
});

test('RTO: the deadline is the first send + the ACK timeout; expiry rewinds to sndUna and counts', () => {
  const r = requester({ ackTimeoutPs: T8 });
  post(r, 2 * MTU);
  assert.equal(r.deadlinePs(), null);
  r.nextPacket(1_000);
  r.nextPacket(2_000); // already armed: unchanged
  assert.equal(r.deadlinePs(), 1_000 + 1_048_576_000);
  assert.deepEqual(r.onTimer(1_000 + T8 - 1), []);
  assert.equal(r.stats.rtoExpirations, 0);
  r.onTimer(1_000 + T8);
  assert.equal(r.stats.rtoExpirations, 1);
  assert.equal(r.outstandingPackets, 0);
  assert.equal(r.deadlinePs(), null); // restarts with the retransmission
  const again = r.nextPacket(5_000 + T8)!;
  assert.deepEqual([again.psn, again.retransmission], [0, true]);
  assert.equal(r.deadlinePs(), 5_000 + 2 * T8);
});

test('RTO: an ACK that leaves packets outstanding restarts the timer; the last ACK stops it', () => {
  const r = requester({ ackTimeoutPs: T8 });
  post(r, 2 * MTU);
  send(r, 0);
  r.onAck(7_000, 0);
  assert.equal(r.deadlinePs(), 7_000 + T8);
  r.onAck(8_000, 1);
  assert.equal(r.deadlinePs(), null);
});

test('RTO: retryCount 2 allows two retransmissions; the third expiry errors the QP (IB retry_cnt)', () => {
  const r = requester({ ackTimeoutPs: T8, retryCount: 2 });
  const a = post(r, MTU);
  r.nextPacket(0);
  const b = post(r, MTU); // queued, never sent
  let now = 0;
  for (let i = 1; i <= 2; i++) {
    now = r.deadlinePs()!;
    assert.deepEqual(r.onTimer(now), []);
    assert.equal(r.state, 'ready');
    assert.equal(r.nextPacket(now)!.psn, 0);
  }
  now = r.deadlinePs()!;
  assert.deepEqual(r.onTimer(now), [
    { wrId: a, opcode: 'write', sizeBytes: MTU, postedPs: 0, completedPs: now, status: 'retryExceeded' },
    { wrId: b, opcode: 'write', sizeBytes: MTU, postedPs: 0, completedPs: now, status: 'flushed' },
  ]);
  assert.equal(r.state, 'error');
  assert.equal(r.stats.rtoExpirations, 3);
  assert.equal(r.stats.failed, 2);
  assert.equal(r.hasPacket(now), false);
  assert.equal(r.nextPacket(now), null);
  assert.equal(r.deadlinePs(), null);
  assert.deepEqual(r.onAck(now, 0), []); // an errored QP ignores responses
  assert.throws(() => post(r, 1), /in error/);
});

test('RTO: retryCount 0 errors on the first expiry', () => {
  const r = requester({ ackTimeoutPs: T8, retryCount: 0 });
  post(r, MTU);
  r.nextPacket(0);
  assert.deepEqual(r.onTimer(T8).map((c) => c.status), ['retryExceeded']);
});

test('RTO: ACK progress resets the retry counter', () => {
  const r = requester({ ackTimeoutPs: T8, retryCount: 1 });
  post(r, 2 * MTU);
  send(r, 0);
  r.onTimer(T8); // retry 1 of 1 used
  send(r, T8);
  r.onAck(T8 + 1, 0); // progress: the counter is back to 1
  r.onTimer(r.deadlinePs()!);
  assert.equal(r.state, 'ready'); // without the reset this expiry would have errored
  send(r, 3 * T8);
  assert.deepEqual(r.onTimer(r.deadlinePs()!).map((c) => c.status), ['retryExceeded']);
});

test('a late ACK beyond sndNxt after an RTO rewind is genuine: it completes and moves sndNxt forward', () => {
  const r = requester({ ackTimeoutPs: T8 });
  const id = post(r, 5 * MTU);
  send(r, 0); // 0..4
  r.onTimer(T8); // rewind to 0
  r.nextPacket(T8); // resend 0; sndNxt = 1
  assert.deepEqual(r.onAck(T8 + 1, 4).map((c) => c.wrId), [id]);
  assert.equal(r.outstandingPackets, 0);
  assert.equal(r.hasPacket(T8 + 1), false);
});

test('RNR NAK: wait exactly the coded RNR time, then resend from the NAKed PSN', () => {
  const r = requester();
  post(r, 100, 'send');
  r.nextPacket(0);
  assert.deepEqual(r.onNak(5 * US, 0, rnrNakSyndrome(1)), []); // code 1 = 10 µs
  assert.equal(r.stats.naksReceived.rnr, 1);
  assert.equal(r.hasPacket(5 * US), false);
  assert.equal(r.nextPacket(15 * US - 1), null);
  assert.equal(r.deadlinePs(), 15 * US);
  assert.deepEqual(r.onTimer(15 * US), []);
  assert.equal(r.deadlinePs(), null);
  const p = r.nextPacket(15 * US)!;
  assert.deepEqual([p.psn, p.opcode, p.retransmission], [0, 0x04, true]);
});

test('RNR NAK acknowledges the messages before the NAKed PSN', () => {
  const r = requester();
  const w = post(r, 2 * MTU); // 0–1
  post(r, 10, 'send'); // 2
  send(r);
  assert.deepEqual(r.onNak(1, 2, rnrNakSyndrome(0)).map((c) => c.wrId), [w]);
  assert.equal(r.deadlinePs(), 1 + 655_360_000_000); // code 0 = 655.36 ms
});

test('RNR retry: rnrRetry 2 allows two waits; the third RNR NAK errors with rnrRetryExceeded', () => {
  const r = requester({ rnrRetry: 2 });
  const id = post(r, 1, 'send');
  let now = 0;
  for (let i = 0; i < 2; i++) {
    r.nextPacket(now);
    assert.deepEqual(r.onNak(now, 0, rnrNakSyndrome(1)), []);
    now = r.deadlinePs()!;
    r.onTimer(now);
  }
  r.nextPacket(now);
  assert.deepEqual(r.onNak(now, 0, rnrNakSyndrome(1)).map((c) => [c.wrId, c.status]), [[id, 'rnrRetryExceeded']]);
  assert.equal(r.state, 'error');
});

test('RNR retry 7 is never exhausted', () => {
  const r = requester({ rnrRetry: 7 });
  post(r, 1, 'send');
  let now = 0;
  for (let i = 0; i < 100; i++) {
    r.nextPacket(now);
    assert.deepEqual(r.onNak(now, 0, rnrNakSyndrome(1)), []);
    now = r.deadlinePs()!;
    r.onTimer(now);
  }
  assert.equal(r.state, 'ready');
  assert.equal(r.stats.naksReceived.rnr, 100);
});

test('stale ACKs and NAKs (already acknowledged, or never sent) are ignored and count nothing', () => {
  const r = requester({ ackTimeoutPs: T8 });
  post(r, 5 * MTU);
  send(r, 0); // 0..4
  r.onAck(10, 3); // sndUna = 4
  const deadline = r.deadlinePs();
  assert.deepEqual(r.onAck(20, 3), []); // duplicate
  assert.deepEqual(r.onAck(20, 2), []); // older
  assert.deepEqual(r.onAck(20, 7), []); // never sent
  assert.deepEqual(r.onNak(20, 2, SEQ), []);
  assert.deepEqual(r.onNak(20, 9, SEQ), []);
  assert.deepEqual(r.onNak(20, 0xfffff0, rnrNakSyndrome(1)), []);
  assert.equal(r.deadlinePs(), deadline);
  assert.equal(r.outstandingPackets, 1);
  assert.equal(r.hasPacket(20), false); // nothing was rewound
  assert.deepEqual(r.stats.naksReceived, { seq: 0, rnr: 0, fatal: 0 });
});

test('other NAK codes and reserved syndromes error the QP with the remote status; the rest is flushed', () => {
  const r = requester();
  const a = post(r, MTU);
  const b = post(r, MTU);
  send(r);
  assert.deepEqual(r.onNak(3, 0, NAK_REMOTE_ACCESS_ERROR).map((c) => [c.wrId, c.status]), [[a, 'remoteAccessError'], [b, 'flushed']]);
  assert.equal(r.state, 'error');
  const q = requester();
  post(q, MTU);
  send(q);
  assert.deepEqual(q.onNak(3, 0, 0x40).map((c) => c.status), ['remoteOperationalError']);
});

test('an ACK syndrome handed to onNak is an ACK', () => {
  const r = requester();
  const id = post(r, MTU);
  send(r);
  assert.deepEqual(r.onNak(1, 0, 0x1f).map((c) => c.wrId), [id]);
});

test('config and work requests are validated', () => {
  assert.throws(() => requester({ mtu: 0 }), RangeError);
  assert.throws(() => requester({ retryCount: 8 }), RangeError);
  assert.throws(() => requester({ rnrRetry: -1 }), RangeError);
  assert.throws(() => requester({ initialPsn: 0x1000000 }), RangeError);
  assert.throws(() => requester({ ackTimeoutPs: 0 }), RangeError);
  assert.throws(() => post(requester(), -1), RangeError);
  assert.throws(() => post(requester(), 1.5), RangeError);
});

test('progress of an uncompleted WRITE: go-back-N counts the packets before sndUna, go-back-0 nothing until it completes', () => {
  for (const recovery of ['goBackN', 'goBack0'] as const) {
    const r = requester({ recovery });
    const id = post(r, 4 * MTU - 100);
    send(r, 0);
    assert.equal(r.headWrId, id);
    assert.equal(r.lastProgressPs, null);
    r.onAck(7 * US, 1); // packets 0 and 1
    assert.equal(r.ackedBytes(id), recovery === 'goBackN' ? 2 * MTU : 0, recovery);
    assert.equal(r.lastProgressPs, recovery === 'goBackN' ? 7 * US : null, recovery);
    r.onAck(9 * US, 3);
    assert.equal(r.ackedBytes(id), 0, 'a completed request is no longer tracked');
    assert.equal(r.lastProgressPs, 9 * US);
    assert.equal(r.headWrId, null);
  }
});

test('WRITE and SEND with immediate: the last (or only) packet carries it with the _IMMEDIATE opcode', () => {
  const r = requester();
  r.post({ id: 1, opcode: 'write', sizeBytes: 2 * MTU, postedPs: 0, immediate: 0xfeedf00d });
  r.post({ id: 2, opcode: 'send', sizeBytes: 10, postedPs: 0, immediate: 0 });
  r.post({ id: 3, opcode: 'write', sizeBytes: 10, postedPs: 0 });
  assert.deepEqual(
    send(r).map((p) => [p.opcode, p.immediate]),
    [
      [0x06, undefined],
      [0x09, 0xfeedf00d],
      [0x05, 0],
      [0x0a, undefined],
    ],
  );
  assert.throws(() => r.post({ id: 4, opcode: 'read', sizeBytes: 10, postedPs: 0, immediate: 1 }), /immediate data goes with a WRITE or SEND and is 32 bits, got 1 on a read/);
  assert.throws(() => r.post({ id: 5, opcode: 'write', sizeBytes: 10, postedPs: 0, immediate: 2 ** 32 }), /is 32 bits/);
});

test('byte sequence numbers (issue 26: HPCC counts snd_una and snd_nxt in payload bytes) across messages, ACKs and a go-back', () => {
  const r = requester();
  post(r, 2500); // 3 packets: 1024, 1024, 452
  post(r, 100); // 1 packet
  assert.deepEqual([r.ackedSeqBytes, r.nextSeqBytes, r.inFlightBytes], [0, 0, 0]);
  send(r, 0, 2);
  assert.deepEqual([r.ackedSeqBytes, r.nextSeqBytes, r.inFlightBytes], [0, 2048, 2048]);
  send(r);
  assert.deepEqual([r.nextSeqBytes, r.inFlightBytes], [2600, 2600]);
  r.onAck(1, 0); // PSN 0: 1,024 B acknowledged
  assert.deepEqual([r.ackedSeqBytes, r.inFlightBytes], [1024, 1576]);
  r.onNak(2, 2, SEQ); // ePSN 2: 2,048 B held; go back to PSN 2
  assert.deepEqual([r.ackedSeqBytes, r.nextSeqBytes, r.inFlightBytes], [2048, 2048, 0]);
  send(r);
  r.onAck(3, 3); // everything: the first message completes and leaves the table, its bytes stay counted
  assert.deepEqual([r.ackedSeqBytes, r.nextSeqBytes, r.inFlightBytes], [2600, 2600, 0]);
});
