import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rng } from '@rocelab/sim';
import { localAckTimeoutPs, NAK_PSN_SEQUENCE_ERROR, NAK_REMOTE_ACCESS_ERROR, rnrNakSyndrome } from './aeth.js';
import { RcRequester, type Completion, type RequesterPacket, type WorkOpcode } from './rc-requester.js';
import { RcResponder, type ResponderConfig, type ResponderResult } from './rc-responder.js';

const US = 1_000_000;
const MTU = 1024;
const [SEND_FIRST, SEND_MIDDLE, SEND_LAST, SEND_ONLY] = [0x00, 0x01, 0x02, 0x04];
const [WRITE_FIRST, WRITE_MIDDLE, WRITE_LAST, WRITE_ONLY] = [0x06, 0x07, 0x08, 0x0a];

function responder(over: Partial<ResponderConfig> = {}): RcResponder {
  return new RcResponder({ initialPsn: 0, ackEvery: 1, nakPolicy: 'oncePerGap', nakIntervalPs: 500 * US, rnrTimerCode: 1, recovery: 'goBackN', ...over });
}

/** A WRITE of `count` full packets from `psn`, fed in order; the replies. */
function writeMessage(r: RcResponder, psn: number, count: number, nowPs = 0): ResponderResult[] {
  const out: ResponderResult[] = [];
  for (let i = 0; i < count; i++) {
    const op = count === 1 ? WRITE_ONLY : i === 0 ? WRITE_FIRST : i === count - 1 ? WRITE_LAST : WRITE_MIDDLE;
    out.push(r.onPacket(nowPs, (psn + i) & 0xffffff, op, MTU, i === count - 1));
  }
  return out;
}

const ack = (psn: number, msn: number) => ({ kind: 'ack', psn, msn });
const seqNak = (psn: number, msn = 0) => ({ kind: 'nak', psn, msn, syndrome: NAK_PSN_SEQUENCE_ERROR });

test('ACK coalescing, ackEvery 4: ACKs after the 4th and 8th in-order packets and on the last one', () => {
  const r = responder({ ackEvery: 4 });
  const replies = writeMessage(r, 0, 10).map((x) => x.reply);
  assert.deepEqual(replies, [null, null, null, ack(3, 0), null, null, null, ack(7, 0), null, ack(9, 1)]);
  assert.equal(r.stats.acksSent, 3);
  assert.equal(r.expectedPsn, 10);
  // The count restarts at every ACK, the message-end one included.
  assert.deepEqual(writeMessage(r, 10, 5).map((x) => x.reply), [null, null, null, ack(13, 1), ack(14, 2)]);
});

test('AckReq forces an ACK and restarts the count', () => {
  const r = responder({ ackEvery: 100 });
  assert.equal(r.onPacket(0, 0, WRITE_FIRST, MTU, false).reply, null);
  assert.deepEqual(r.onPacket(0, 1, WRITE_MIDDLE, MTU, true).reply, ack(1, 0));
  assert.deepEqual(r.onPacket(0, 2, WRITE_LAST, MTU, false).reply, ack(2, 1)); // a message end always ACKs
});

test('messageBytes reports the whole message on its last packet', () => {
  const r = responder();
  assert.equal(r.onPacket(0, 0, WRITE_FIRST, 1024, false).messageBytes, null);
  assert.equal(r.onPacket(0, 1, WRITE_MIDDLE, 1024, false).messageBytes, null);
  assert.equal(r.onPacket(0, 2, WRITE_LAST, 5, true).messageBytes, 2053);
  assert.equal(r.onPacket(0, 3, WRITE_ONLY, 0, true).messageBytes, 0);
  assert.equal(r.stats.messagesCompleted, 2);
  assert.equal(r.stats.bytesAccepted, 2053);
});

test('one NAK per gap: three packets past ePSN give one NAK(ePSN); a new gap after ePSN arrives NAKs again', () => {
  const r = responder();
  writeMessage(r, 0, 2); // 0, 1 → ePSN 2 (msn 1)
  const gap = [3, 4, 5].map((psn) => r.onPacket(0, psn, WRITE_ONLY, MTU, true));
  assert.deepEqual(gap.map((x) => x.verdict), ['outOfSequence', 'outOfSequence', 'outOfSequence']);
  assert.deepEqual(gap.map((x) => x.reply), [seqNak(2, 1), null, null]);
  assert.equal(r.expectedPsn, 2);
  assert.equal(r.onPacket(0, 2, WRITE_ONLY, MTU, true).verdict, 'accepted');
  assert.deepEqual(r.onPacket(0, 5, WRITE_ONLY, MTU, true).reply, seqNak(3, 2));
  assert.deepEqual(r.stats.naksSent, { seq: 2, rnr: 0 });
  assert.equal(r.stats.outOfSequence, 4);
});

test('a duplicate is dropped and re-ACKs ePSN − 1 (oncePerGap); hpcc sends nothing', () => {
  const r = responder({ ackEvery: 8 });
  writeMessage(r, 0, 5); // ePSN 5, msn 1
  const dup = r.onPacket(0, 2, WRITE_MIDDLE, MTU, false);
  assert.deepEqual(dup, { verdict: 'duplicate', reply: ack(4, 1), messageBytes: null });
  assert.equal(r.stats.duplicates, 1);
  assert.equal(r.expectedPsn, 5);
  const h = responder({ nakPolicy: 'hpcc' });
  writeMessage(h, 0, 5);
  assert.deepEqual(h.onPacket(0, 2, WRITE_MIDDLE, MTU, false), { verdict: 'duplicate', reply: null, messageBytes: null });
});

test('RNR NAK for a SEND with no posted receive; accepted once a receive is posted', () => {
  const r = responder({ rnrTimerCode: 14 });
  assert.deepEqual(r.onPacket(0, 0, SEND_ONLY, 100, true), { verdict: 'rnr', reply: { kind: 'nak', psn: 0, msn: 0, syndrome: rnrNakSyndrome(14) }, messageBytes: null });
  assert.equal(r.expectedPsn, 0);
  assert.deepEqual(r.stats.naksSent, { seq: 0, rnr: 1 });
  r.postReceive();
  assert.deepEqual(r.onPacket(1, 0, SEND_ONLY, 100, true), { verdict: 'accepted', reply: ack(0, 1), messageBytes: 100, receive: { opcode: 'send', bytes: 100, immediate: null } });
  assert.equal(r.postedReceives, 0);
  assert.equal(r.onPacket(2, 1, WRITE_ONLY, 100, true).verdict, 'accepted'); // WRITEs need no receive
});

test('a WRITE with immediate takes a receive with its last packet (RNR without one) and reports its bytes and immediate there', () => {
  const [WRITE_LAST_IMM, WRITE_ONLY_IMM, SEND_ONLY_IMM] = [0x09, 0x0b, 0x05];
  const r = responder();
  assert.equal(r.onPacket(0, 0, WRITE_FIRST, MTU, false).verdict, 'accepted', 'the first packet needs no receive');
  const rnr = r.onPacket(0, 1, WRITE_LAST_IMM, 10, true, 0, 0xdeadbeef);
  assert.equal(rnr.verdict, 'rnr');
  assert.equal(r.expectedPsn, 1, 'the last packet is asked for again after the RNR wait');
  r.postReceive(2);
  const done = r.onPacket(1, 1, WRITE_LAST_IMM, 10, true, 0, 0xdeadbeef);
  assert.deepEqual(done.receive, { opcode: 'writeImmediate', bytes: MTU + 10, immediate: 0xdeadbeef });
  assert.deepEqual(r.onPacket(2, 2, WRITE_ONLY_IMM, 0, true, 0, 7).receive, { opcode: 'writeImmediate', bytes: 0, immediate: 7 });
  r.postReceive();
  assert.deepEqual(r.onPacket(3, 3, SEND_ONLY_IMM, 5, true, 0, 42).receive, { opcode: 'send', bytes: 5, immediate: 42 });
  assert.equal(r.onPacket(4, 4, WRITE_ONLY, 5, true, 0, 99).receive, undefined, 'a plain WRITE ignores what is not an immediate');
  assert.equal(r.postedReceives, 0);
});

test('a multi-packet SEND takes its receive at FIRST only', () => {
  const r = responder();
  r.postReceive(1);
  assert.equal(r.onPacket(0, 0, SEND_FIRST, MTU, false).verdict, 'accepted');
  assert.equal(r.postedReceives, 0);
  assert.equal(r.onPacket(0, 1, SEND_MIDDLE, MTU, false).verdict, 'accepted');
  assert.equal(r.onPacket(0, 2, SEND_LAST, 1, true).messageBytes, 2049);
  assert.equal(r.onPacket(0, 3, SEND_ONLY, 1, true).verdict, 'rnr');
});

test('hpcc NAK timer: a second NAK for the same ePSN only after 500 µs; at once when ePSN changed', () => {
  const r = responder({ nakPolicy: 'hpcc', nakIntervalPs: 500 * US });
  assert.deepEqual(r.onPacket(0, 2, WRITE_ONLY, MTU, true).reply, seqNak(0));
  assert.equal(r.onPacket(500 * US - 1, 3, WRITE_ONLY, MTU, true).reply, null);
  assert.deepEqual(r.onPacket(500 * US, 4, WRITE_ONLY, MTU, true).reply, seqNak(0));
  r.onPacket(501 * US, 0, WRITE_ONLY, MTU, true); // ePSN 1
  assert.deepEqual(r.onPacket(502 * US, 5, WRITE_ONLY, MTU, true).reply, seqNak(1, 1)); // timer runs to 1000 µs, but ePSN moved
  assert.equal(r.onPacket(503 * US, 6, WRITE_ONLY, MTU, true).reply, null);
  assert.equal(r.stats.naksSent.seq, 3);
});

test('PSN wrap: in order across 0xFFFFFF → 0x000000; after/before decided modulo 2^24', () => {
  const r = responder({ initialPsn: 0xfffffe });
  assert.deepEqual(writeMessage(r, 0xfffffe, 3).map((x) => x.verdict), ['accepted', 'accepted', 'accepted']);
  assert.equal(r.expectedPsn, 1);
  const s = responder({ initialPsn: 0xffffff });
  assert.deepEqual(s.onPacket(0, 0x000001, WRITE_ONLY, MTU, true).reply, seqNak(0xffffff)); // after, across the wrap
  assert.deepEqual(s.onPacket(0, 0xfffffd, WRITE_ONLY, MTU, true).reply, ack(0xfffffe, 0)); // before: duplicate
});

test('go-back-0 responder: a sequence error discards the partial message, returns its receive and expects its first packet', () => {
  const r = responder({ recovery: 'goBack0' });
  r.postReceive();
  r.onPacket(0, 0, SEND_FIRST, MTU, false);
  r.onPacket(0, 1, SEND_MIDDLE, MTU, false);
  assert.deepEqual(r.onPacket(0, 3, SEND_LAST, MTU, true).reply, seqNak(0));
  assert.equal(r.expectedPsn, 0);
  assert.equal(r.postedReceives, 1);
  assert.equal(r.stats.bytesDiscarded, 2 * MTU);
  r.onPacket(0, 0, SEND_FIRST, MTU, false);
  r.onPacket(0, 1, SEND_MIDDLE, MTU, false);
  assert.equal(r.onPacket(0, 2, SEND_LAST, MTU, true).messageBytes, 3 * MTU);
});

test('non-request opcodes and bad config are rejected', () => {
  assert.throws(() => responder().onPacket(0, 0, 0x11, 0, false), RangeError); // an ACK is not a request
  assert.throws(() => responder({ ackEvery: 0 }), RangeError);
  assert.throws(() => responder({ rnrTimerCode: 32 }), RangeError);
  assert.throws(() => responder().postReceive(0), RangeError);
});

/**
 * Requester → lossy link → responder → lossy link → requester, 3 µs each way, one data packet per
 * 1 µs step; half the receives are posted late so some SENDs meet an RNR NAK first.
 */
function lossyLoopback(seed: number, lossRate: number) {
  const rng = new Rng(seed, 'loopback', 'loss');
  const rand = () => rng.nextFloat();
  const req = new RcRequester({ mtu: MTU, recovery: 'goBackN', ackTimeoutPs: localAckTimeoutPs(4)!, retryCount: 7, rnrRetry: 7, initialPsn: 0xfffff0 });
  const resp = responder({ initialPsn: 0xfffff0, ackEvery: 3 });
  const posted: Array<{ id: number; opcode: WorkOpcode; sizeBytes: number }> = [];
  for (let id = 1; id <= 60; id++) {
    const w = { id, opcode: (rand() < 0.5 ? 'write' : 'send') as WorkOpcode, sizeBytes: Math.floor(rand() * 5 * MTU) };
    posted.push(w);
    req.post({ ...w, postedPs: 0 });
  }
  const sends = posted.filter((w) => w.opcode === 'send').length;
  resp.postReceive(Math.floor(sends / 2));
  const fwd: Array<{ at: number; p: RequesterPacket }> = [];
  const back: Array<{ at: number; kind: 'ack' | 'nak'; psn: number; syndrome: number }> = [];
  const done: Completion[] = [];
  const delivered: number[] = [];
  for (let s = 0; s < 200_000 && done.length < posted.length; s++) {
    const now = s * US;
    if (s === 300) resp.postReceive(sends - Math.floor(sends / 2));
    while (fwd.length > 0 && fwd[0]!.at <= s) {
      const { p } = fwd.shift()!;
      const { reply, messageBytes } = resp.onPacket(now, p.psn, p.opcode, p.payloadBytes, p.ackReq);
      if (messageBytes !== null) delivered.push(messageBytes);
      if (reply !== null && reply.kind !== 'atomicAck' && rand() >= lossRate) back.push({ at: s + 3, kind: reply.kind, psn: reply.psn, syndrome: reply.kind === 'nak' ? reply.syndrome : 0 });
    }
    while (back.length > 0 && back[0]!.at <= s) {
      const b = back.shift()!;
      done.push(...(b.kind === 'ack' ? req.onAck(now, b.psn) : req.onNak(now, b.psn, b.syndrome)));
    }
    const deadline = req.deadlinePs();
    if (deadline !== null && deadline <= now) done.push(...req.onTimer(now));
    if (req.hasPacket(now)) {
      const p = req.nextPacket(now)!;
      if (rand() >= lossRate) fwd.push({ at: s + 3, p });
    }
  }
  return { req, resp, posted, done, delivered };
}

test('requester + responder over a lossy link (go-back-N): every message completes exactly once, in order', () => {
  for (const seed of [1, 2, 3, 42, 2024]) {
    const { req, resp, posted, done, delivered } = lossyLoopback(seed, 0.05);
    assert.deepEqual(done.map((c) => [c.wrId, c.status]), posted.map((w) => [w.id, 'success']), `seed ${seed}`);
    assert.deepEqual(delivered, posted.map((w) => w.sizeBytes), `seed ${seed}: the responder delivered each message once, in order`);
    assert.equal(resp.stats.messagesCompleted, posted.length);
    assert.equal(req.state, 'ready');
    assert.equal(req.outstandingPackets, 0);
    assert.ok(req.stats.retransmittedPackets > 0, `seed ${seed}: the link did lose packets`);
    assert.ok(resp.stats.naksSent.rnr > 0, `seed ${seed}: some SENDs met an RNR NAK`);
  }
});

test('goodput: go-back-N counts bytes as they are accepted in order; go-back-0 only whole messages', () => {
  const gbn = responder();
  gbn.onPacket(0, 0, WRITE_FIRST, MTU, false);
  gbn.onPacket(0, 1, WRITE_MIDDLE, MTU, false);
  assert.equal(gbn.stats.bytesDelivered, 2 * MTU, 'go-back-N never takes back an in-order byte');
  gbn.onPacket(0, 3, WRITE_LAST, MTU, true); // a gap
  assert.equal(gbn.stats.bytesDelivered, 2 * MTU);

  const gb0 = responder({ recovery: 'goBack0' });
  gb0.onPacket(0, 0, WRITE_FIRST, MTU, false);
  gb0.onPacket(0, 1, WRITE_MIDDLE, MTU, false);
  assert.equal(gb0.stats.bytesDelivered, 0, 'a partial message may still be discarded');
  gb0.onPacket(0, 3, WRITE_LAST, MTU, true); // the gap rolls the message back
  assert.equal(gb0.stats.bytesAccepted, 2 * MTU);
  assert.equal(gb0.stats.bytesDelivered, 0);
  writeMessage(gb0, 0, 3);
  assert.equal(gb0.stats.bytesDelivered, 3 * MTU);
});

test('a request the NIC refuses against memory is NAKed with its syndrome, and the QP then drops everything without a reply', () => {
  const r = responder();
  assert.equal(r.onPacket(0, 0, 0x0a, 100, true).verdict, 'accepted'); // a WRITE ONLY that passed its checks
  assert.equal(r.messageOffset, 0);
  const refused = r.refuse(1, NAK_REMOTE_ACCESS_ERROR);
  assert.deepEqual(refused, { verdict: 'error', reply: { kind: 'nak', psn: 1, msn: 1, syndrome: NAK_REMOTE_ACCESS_ERROR }, messageBytes: null });
  assert.equal(r.state, 'error');
  assert.equal(r.expectedPsn, 1, 'nothing of the refused request was executed');
  for (const psn of [1, 2, 0]) assert.deepEqual(r.onPacket(0, psn, 0x0a, 100, true), { verdict: 'error', reply: null, messageBytes: null });
  assert.equal(r.stats.accessErrors, 1);
});

test('messageOffset is where the next in-order packet of a message goes; a new message starts at 0', () => {
  const r = responder();
  r.onPacket(0, 0, 0x06, 1024, false); // WRITE FIRST
  assert.equal(r.messageOffset, 1024);
  r.onPacket(0, 1, 0x07, 1024, false); // MIDDLE
  assert.equal(r.messageOffset, 2048);
  r.onPacket(0, 2, 0x08, 10, true); // LAST
  assert.equal(r.messageOffset, 0);
});
