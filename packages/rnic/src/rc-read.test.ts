/**
 * RDMA READ on both ends of an RC QP (IBTA vol 1 §9.4.3, §9.7.5; Linux rxe `rxe_comp.c`, `rxe_resp.c`):
 * one request takes as many PSNs as its responses, the responses acknowledge, a lost response is
 * asked for again from its PSN, and a duplicate request is executed again.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rng } from '@rocelab/sim';
import { localAckTimeoutPs, NAK_PSN_SEQUENCE_ERROR } from './aeth.js';
import { RcRequester, type Completion, type RequesterConfig, type RequesterPacket, type WorkOpcode } from './rc-requester.js';
import { RcResponder, type ReadResponses, type ResponderConfig, type ResponderReply } from './rc-responder.js';
import { isReadResponseWithAeth } from '@rocelab/wire';
import { readResponseOpcode } from './segmentation.js';

const MTU = 1024;
const US = 1_000_000;
const T8 = localAckTimeoutPs(8)!;
const READ_REQUEST = 0x0c;
const [FIRST, MIDDLE, LAST, ONLY] = [0x0d, 0x0e, 0x0f, 0x10];

const requester = (over: Partial<RequesterConfig> = {}) => new RcRequester({ mtu: MTU, recovery: 'goBackN', ackTimeoutPs: null, retryCount: 7, rnrRetry: 7, initialPsn: 0, ...over });
const responder = (over: Partial<ResponderConfig> = {}) => new RcResponder({ initialPsn: 0, ackEvery: 1, nakPolicy: 'oncePerGap', nakIntervalPs: 500 * US, rnrTimerCode: 1, mtu: MTU, ...over });

let ids = 0;
function post(r: RcRequester, sizeBytes: number, opcode: WorkOpcode = 'read'): number {
  const id = ++ids;
  r.post({ id, opcode, sizeBytes, postedPs: 0 });
  return id;
}

function send(r: RcRequester, nowPs = 0): RequesterPacket[] {
  const out: RequesterPacket[] = [];
  while (r.hasPacket(nowPs)) out.push(r.nextPacket(nowPs)!);
  return out;
}

/** The PSNs of a READ's responses. */
const psnsOf = (read: ReadResponses) => Array.from({ length: read.count }, (_, i) => (read.firstPsn + i) & 0xffffff);
/** An ACK, NAK or Atomic ACK handed to the requester. */
function deliverReply(req: RcRequester, nowPs: number, reply: NonNullable<ResponderReply>): Completion[] {
  if (reply.kind === 'ack') return req.onAck(nowPs, reply.psn);
  if (reply.kind === 'nak') return req.onNak(nowPs, reply.psn, reply.syndrome);
  return req.onAtomicAck(nowPs, reply.psn, reply.original);
}

const ok = (cs: Completion[]) => cs.map((c) => [c.wrId, c.opcode, c.status]);

test('response opcodes: ONLY, or FIRST MIDDLE… LAST; every one but MIDDLE carries an AETH', () => {
  assert.deepEqual([readResponseOpcode(0, 1)], [ONLY]);
  assert.deepEqual([0, 1, 2, 3].map((i) => readResponseOpcode(i, 4)), [FIRST, MIDDLE, MIDDLE, LAST]);
  assert.deepEqual([FIRST, MIDDLE, LAST, ONLY].map(isReadResponseWithAeth), [true, false, true, true]);
});

test('a READ is one request that takes one PSN per response; the next request comes after them', () => {
  const r = requester({ initialPsn: 0xfffffe });
  const read = post(r, 2 * MTU + 500);
  post(r, 100, 'write');
  const ps = send(r);
  assert.deepEqual(
    ps.map((p) => [p.psn, p.opcode, p.payloadBytes, p.dmaLength, p.offsetBytes, p.wrId]),
    [
      [0xfffffe, READ_REQUEST, 0, 2 * MTU + 500, 0, read],
      [0x000001, 0x0a, 100, 100, 0, read + 1], // three PSNs later, across the wrap
    ],
  );
  const empty = requester();
  post(empty, 0);
  assert.deepEqual(send(empty).map((p) => [p.psn, p.dmaLength]), [[0, 0]], 'a 0-byte READ takes one PSN: one RESPONSE ONLY');
});

test('responses in order complete the READ; each acknowledges what came before it', () => {
  const r = requester();
  const write = post(r, 2 * MTU, 'write');
  const read = post(r, 3 * MTU);
  send(r);
  assert.deepEqual(ok(r.onReadResponse(10, 2)), [[write, 'write', 'success']], 'the first response implies the WRITE arrived');
  assert.equal(r.ackedBytes(read), MTU);
  assert.deepEqual(r.onReadResponse(11, 3), []);
  assert.deepEqual(ok(r.onReadResponse(12, 4)), [[read, 'read', 'success']]);
  assert.deepEqual(r.onReadResponse(13, 4), [], 'a response already taken is stale');
  assert.equal(r.outstandingPackets, 0);
});

test('a lost response: the READ is asked for again from it, once per gap, with the offset and length of the rest', () => {
  const r = requester();
  const read = post(r, 4 * MTU - 100);
  send(r);
  r.onReadResponse(0, 0);
  assert.deepEqual(r.onReadResponse(0, 2), [], 'PSN 1 is missing');
  assert.deepEqual(send(r).map((p) => [p.psn, p.opcode, p.offsetBytes, p.dmaLength, p.retransmission]), [[1, READ_REQUEST, MTU, 3 * MTU - 100, true]]);
  r.onReadResponse(0, 3);
  assert.deepEqual(send(r), [], 'the old responses after the gap ask for nothing more');
  assert.equal(r.stats.readRetries, 1);
  r.onReadResponse(1, 1);
  r.onReadResponse(1, 2);
  assert.deepEqual(ok(r.onReadResponse(1, 3)), [[read, 'read', 'success']]);
});

test('an ACK past a READ whose responses did not all come is an implied NAK: the READ again, later WRs wait for it', () => {
  const r = requester();
  const read = post(r, 2 * MTU);
  const write = post(r, MTU, 'write');
  send(r);
  r.onReadResponse(0, 0);
  // The WRITE at PSN 2 is acknowledged, but READ response 1 never came.
  assert.deepEqual(r.onAck(5, 2), []);
  assert.deepEqual(send(r).map((p) => [p.psn, p.opcode, p.offsetBytes, p.dmaLength]), [[1, READ_REQUEST, MTU, MTU], [2, 0x0a, 0, MTU]]);
  assert.deepEqual(ok(r.onReadResponse(6, 1)), [[read, 'read', 'success']]);
  assert.deepEqual(ok(r.onAck(7, 2)), [[write, 'write', 'success']]);
});

test('a sequence-error NAK past a READ, and an RTO, both ask for the READ again from its first missing response', () => {
  const nak = requester();
  post(nak, 2 * MTU);
  post(nak, 2 * MTU, 'write');
  send(nak);
  // The responder executed the READ (PSNs 0–1), lost the WRITE's first packet and NAKs PSN 2; the READ's responses were lost too.
  nak.onNak(0, 2, NAK_PSN_SEQUENCE_ERROR);
  assert.deepEqual(send(nak).map((p) => [p.psn, p.opcode]), [[0, READ_REQUEST], [2, 0x06], [3, 0x08]]);

  const rto = requester({ ackTimeoutPs: T8 });
  const read = post(rto, 3 * MTU);
  send(rto);
  rto.onReadResponse(10, 0);
  assert.deepEqual(rto.onTimer(10 + T8), []);
  assert.deepEqual(send(rto, 10 + T8).map((p) => [p.psn, p.offsetBytes, p.dmaLength]), [[1, MTU, 2 * MTU]]);
  rto.onReadResponse(20 + T8, 1);
  assert.deepEqual(ok(rto.onReadResponse(21 + T8, 2)), [[read, 'read', 'success']]);
  assert.equal(rto.stats.rtoExpirations, 1);
});

test('at most maxRdAtomic READs wait for responses; a WRITE behind them may still go', () => {
  const r = requester({ maxRdAtomic: 2 });
  const [a, b, c] = [post(r, MTU), post(r, MTU), post(r, MTU)];
  assert.deepEqual(send(r).map((p) => p.wrId), [a, b]);
  assert.deepEqual(ok(r.onReadResponse(0, 0)), [[a, 'read', 'success']]);
  assert.deepEqual(send(r).map((p) => p.wrId), [c]);
  const w = requester({ maxRdAtomic: 1 });
  post(w, MTU);
  const write = post(w, MTU, 'write');
  assert.deepEqual(send(w).map((p) => p.wrId), [write - 1, write]);
  assert.throws(() => post(requester({ maxRdAtomic: 0 }), MTU), /is a read on a QP whose maxRdAtomic is 0/);
  assert.throws(() => requester({ maxRdAtomic: 256 }), /maxRdAtomic must be 0..255, got 256/);
});

test('under go-back-0 a READ keeps the responses it has and asks from the missing one', () => {
  const r = requester({ recovery: 'goBack0' });
  const read = post(r, 3 * MTU);
  send(r);
  r.onReadResponse(0, 0);
  assert.equal(r.ackedBytes(read), MTU);
  r.onReadResponse(0, 2);
  assert.deepEqual(send(r).map((p) => [p.psn, p.offsetBytes]), [[1, MTU]]);
});

test('a response where no READ waits errors the QP', () => {
  const r = requester();
  const write = post(r, MTU, 'write');
  send(r);
  assert.deepEqual(ok(r.onReadResponse(0, 0)), [[write, 'write', 'remoteOperationalError']]);
  assert.equal(r.state, 'error');
});

test('responder: a READ in order is executed and its PSNs consumed; no ACK, its responses acknowledge', () => {
  const p = responder({ initialPsn: 0xfffffe });
  const result = p.onPacket(0, 0xfffffe, READ_REQUEST, 0, false, 2 * MTU + 1);
  assert.deepEqual(result, { verdict: 'accepted', reply: null, messageBytes: null, read: { firstPsn: 0xfffffe, count: 3, lengthBytes: 2 * MTU + 1 } });
  assert.equal(p.expectedPsn, 1);
  assert.deepEqual(p.onPacket(0, 1, 0x0a, 10, true), { verdict: 'accepted', reply: { kind: 'ack', psn: 1, msn: 2 }, messageBytes: 10 }, 'the READ counted as a message');
  assert.throws(() => responder({ mtu: undefined }).onPacket(0, 0, READ_REQUEST, 0, false, MTU), /READ request on a QP configured without an MTU/);
});

test('responder: a duplicate READ is executed again from its PSN; one ahead is a sequence error; one too old is dropped', () => {
  const p = responder({ maxDestRdAtomic: 2 });
  p.onPacket(0, 0, READ_REQUEST, 0, false, 4 * MTU); // PSNs 0..3
  const again = p.onPacket(1, 2, READ_REQUEST, 0, false, 2 * MTU);
  assert.deepEqual(again.read, { firstPsn: 2, count: 2, lengthBytes: 2 * MTU });
  assert.equal(again.verdict, 'duplicate');
  assert.equal(p.expectedPsn, 4);
  assert.deepEqual(p.onPacket(2, 9, READ_REQUEST, 0, false, MTU).reply, { kind: 'nak', psn: 4, msn: 1, syndrome: NAK_PSN_SEQUENCE_ERROR });
  p.onPacket(3, 4, READ_REQUEST, 0, false, MTU);
  p.onPacket(3, 5, READ_REQUEST, 0, false, MTU);
  const forgotten = p.onPacket(4, 1, READ_REQUEST, 0, false, MTU);
  assert.equal(forgotten.read, undefined, 'the READ of PSNs 0..3 is two READs ago: no longer remembered');
  assert.deepEqual([p.stats.reads, p.stats.readsReexecuted, p.stats.readsForgotten], [3, 1, 1]);
});

test('end to end under 10 % loss both ways: every READ and WRITE completes, in order, with nothing read twice', () => {
  const rng = new Rng(7, 'test', 'read-loss');
  const req = requester({ ackTimeoutPs: 20 * US, retryCount: 7, maxRdAtomic: 4 });
  const resp = responder({ ackEvery: 2, maxDestRdAtomic: 4 });
  const posted: Array<[number, WorkOpcode, string]> = [];
  for (let i = 0; i < 40; i++) {
    const opcode: WorkOpcode = i % 3 === 2 ? 'write' : 'read';
    posted.push([post(req, 1 + ((i * 977) % (5 * MTU)), opcode), opcode, 'success']);
  }
  const done: Array<[number, WorkOpcode, string]> = [];
  // Requests one way, responses and ACKs the other, each lost with probability 0.1; 1 µs a step.
  for (let t = 0; t < 20_000 && done.length < posted.length; t++) {
    const nowPs = t * US;
    const replies: Array<() => Completion[]> = [];
    for (const p of send(req, nowPs)) {
      if (rng.nextFloat() < 0.1) continue;
      const r = resp.onPacket(nowPs, p.psn, p.opcode, p.payloadBytes, p.ackReq, p.dmaLength);
      if (r.read !== undefined) for (const psn of psnsOf(r.read)) if (rng.nextFloat() >= 0.1) replies.push(() => req.onReadResponse(nowPs, psn));
      const reply = r.reply;
      if (reply !== null && rng.nextFloat() >= 0.1) replies.push(() => deliverReply(req, nowPs, reply));
    }
    for (const deliver of replies) for (const c of deliver()) done.push([c.wrId, c.opcode, c.status]);
    if (req.deadlinePs() !== null && nowPs >= req.deadlinePs()!) for (const c of req.onTimer(nowPs)) done.push([c.wrId, c.opcode, c.status]);
  }
  assert.deepEqual(done, posted, 'every WR completes with success, in posting order');
  assert.equal(req.state, 'ready');
  assert.ok(req.stats.readRetries > 0 && resp.stats.readsReexecuted > 0, `${req.stats.readRetries} READ retries, ${resp.stats.readsReexecuted} re-executed`);
});
