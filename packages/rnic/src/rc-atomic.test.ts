/**
 * Atomics on both ends of an RC QP (IBTA vol 1 §9.4.5, §9.7.5.1.4; Linux rxe `rxe_resp.c`
 * `atomic_reply`, `duplicate_request`): one PSN each, answered by an Atomic ACK with the word as
 * it was, sent again when that ACK is lost, and never applied twice at the responder.
 */
import assert from 'node:assert/strict';
import { Opcode } from '@rocelab/wire';
import { test } from 'node:test';
import { Rng } from '@rocelab/sim';
import { localAckTimeoutPs, NAK_INVALID_REQUEST, NAK_REMOTE_ACCESS_ERROR } from './aeth.js';
import { MemoryRegions, type RegionHandle } from './memory-region.js';
import { RcRequester, type AtomicOperands, type Completion, type RequesterConfig, type RequesterPacket } from './rc-requester.js';
import { RcResponder, type ResponderConfig, type ResponderReply } from './rc-responder.js';

const MTU = 1024;
const US = 1_000_000;
const [COMPARE_SWAP, FETCH_ADD] = [0x13, 0x14];

const requester = (over: Partial<RequesterConfig> = {}) => new RcRequester({ mtu: MTU, recovery: 'goBackN', ackTimeoutPs: null, retryCount: 7, rnrRetry: 7, initialPsn: 0, ...over });
const responder = (over: Partial<ResponderConfig> = {}) => new RcResponder({ initialPsn: 0, ackEvery: 1, nakPolicy: 'oncePerGap', nakIntervalPs: 500 * US, rnrTimerCode: 1, mtu: MTU, ...over });

/** A region holding one counter, open to atomics. */
function counter(): { memory: MemoryRegions; region: RegionHandle; value: () => bigint } {
  const memory = new MemoryRegions();
  const bytes = new Uint8Array(8);
  const region = memory.register(bytes, ['remoteAtomic']);
  return { memory, region, value: () => new DataView(bytes.buffer).getBigUint64(0, true) };
}

const fetchAdd = (region: RegionHandle, add: bigint): AtomicOperands => ({ address: region.address, rkey: region.rkey, operand: add, swap: 0n });

let ids = 0;
function postAtomic(r: RcRequester, opcode: 'fetchAdd' | 'compareSwap', atomic: AtomicOperands): number {
  const id = ++ids;
  r.post({ id, opcode, sizeBytes: 8, postedPs: 0, atomic });
  return id;
}

function send(r: RcRequester, nowPs = 0): RequesterPacket[] {
  const out: RequesterPacket[] = [];
  while (r.hasPacket(nowPs)) out.push(r.nextPacket(nowPs)!);
  return out;
}

test('an atomic is one request with its operands, one PSN; its Atomic ACK completes it with the word as it was', () => {
  const { region } = counter();
  const r = requester();
  const swap = { address: region.address, rkey: region.rkey, operand: 7n, swap: 9n };
  const [a, b] = [postAtomic(r, 'fetchAdd', fetchAdd(region, 3n)), postAtomic(r, 'compareSwap', swap)];
  assert.deepEqual(
    send(r).map((p) => [p.psn, p.opcode, p.dmaLength, p.ackReq, p.atomic]),
    [
      [0, FETCH_ADD, 8, true, fetchAdd(region, 3n)],
      [1, COMPARE_SWAP, 8, true, swap],
    ],
  );
  // The first Atomic ACK is missing: without its value the first cannot complete, so both go again.
  assert.deepEqual(r.onAtomicAck(0, 1, 3n), []);
  assert.deepEqual(send(r).map((p) => p.psn), [0, 1], 'the responder answers both from its cache');
  assert.deepEqual(r.onAtomicAck(1, 0, 0n).map((c) => [c.wrId, c.atomicOriginal]), [[a, 0n]]);
  assert.deepEqual(r.onAtomicAck(1, 1, 3n).map((c) => [c.wrId, c.atomicOriginal]), [[b, 3n]]);
  assert.throws(() => r.post({ id: 99, opcode: 'fetchAdd', sizeBytes: 4, postedPs: 0, atomic: fetchAdd(region, 1n) }), /must be 8 bytes/);
  assert.throws(() => r.post({ id: 99, opcode: 'fetchAdd', sizeBytes: 8, postedPs: 0 }), /and no operands/);
});

test('the responder applies an atomic once; a duplicate is answered from its cache, one too old for it is dropped', () => {
  const { memory, region, value } = counter();
  const p = responder({ maxDestRdAtomic: 2 });
  assert.deepEqual(p.onAtomic(0, 0, 'fetchAdd', fetchAdd(region, 5n), memory).reply, { kind: 'atomicAck', psn: 0, msn: 1, original: 0n });
  p.onAtomic(0, 1, 'fetchAdd', fetchAdd(region, 5n), memory);
  assert.deepEqual(p.onAtomic(1, 0, 'fetchAdd', fetchAdd(region, 5n), memory).reply, { kind: 'atomicAck', psn: 0, msn: 2, original: 0n }, 'the cached reply, not a new add');
  assert.equal(value(), 10n);
  p.onAtomic(2, 2, 'fetchAdd', fetchAdd(region, 1n), memory);
  assert.equal(p.onAtomic(3, 0, 'fetchAdd', fetchAdd(region, 5n), memory).reply, null, 'PSN 0 fell out of a cache of 2');
  assert.equal(value(), 11n);
  assert.deepEqual([p.stats.atomics, p.stats.atomicsFromCache, p.stats.atomicsForgotten], [3, 1, 1]);
});

test('a misaligned word is an invalid request; a wrong rkey or a word outside the region a remote access error; both QPs error', () => {
  const { memory, region, value } = counter();
  const misaligned = responder().onAtomic(0, 0, 'fetchAdd', { ...fetchAdd(region, 1n), address: region.address + 4n }, memory);
  assert.deepEqual(misaligned.reply, { kind: 'nak', psn: 0, msn: 0, syndrome: NAK_INVALID_REQUEST });
  const p = responder();
  const refused = p.onAtomic(0, 0, 'fetchAdd', { ...fetchAdd(region, 1n), rkey: region.rkey + 1 }, memory);
  assert.equal(refused.verdict, 'error');
  const badKey = refused.reply as NonNullable<ResponderReply> & { syndrome: number };
  assert.equal(badKey.syndrome, NAK_REMOTE_ACCESS_ERROR);
  assert.equal(p.state, 'error');
  // In error, the responder executes nothing more and answers nothing.
  assert.deepEqual(p.onAtomic(0, 0, 'fetchAdd', fetchAdd(region, 1n), memory), { verdict: 'error', reply: null, messageBytes: null });
  assert.equal(p.onPacket(0, 0, Opcode.writeOnly, 8, true).verdict, 'error');
  assert.equal(value(), 0n, 'the counter was never touched');
  assert.equal(responder().onAtomic(0, 0, 'fetchAdd', { ...fetchAdd(region, 1n), address: region.address + 8n }, memory).reply?.kind, 'nak');
  const r = requester();
  const id = postAtomic(r, 'fetchAdd', fetchAdd(region, 1n));
  send(r);
  assert.deepEqual(r.onNak(0, 0, badKey.syndrome).map((c) => [c.wrId, c.status]), [[id, 'remoteAccessError']]);
  assert.equal(r.state, 'error');
});

/** 16 requesters FETCH_AND_ADD one counter 1,000 times each over a lossy channel; the counter's final value. */
function sixteenCounters(atomicReplyCache: boolean): { value: bigint; completions: Completion[]; fromCache: number } {
  const { memory, region, value } = counter();
  const rng = new Rng(3, 'test', 'atomic-counter');
  const T = localAckTimeoutPs(1)!;
  const pairs = Array.from({ length: 16 }, () => ({ req: requester({ ackTimeoutPs: T }), resp: responder({ atomicReplyCache }) }));
  for (const { req } of pairs) for (let i = 0; i < 1000; i++) postAtomic(req, 'fetchAdd', fetchAdd(region, 1n));
  const completions: Completion[] = [];
  // 1/256 of requests and of Atomic ACKs are lost.
  const lost = () => rng.nextFloat() < 1 / 256;
  for (let t = 0; t < 100_000 && completions.length < 16_000; t++) {
    const nowPs = t * US;
    for (const { req, resp } of pairs) {
      for (const p of send(req, nowPs)) {
        if (lost()) continue;
        const reply = resp.onAtomic(nowPs, p.psn, 'fetchAdd', p.atomic!, memory).reply;
        if (reply?.kind === 'atomicAck' && !lost()) completions.push(...req.onAtomicAck(nowPs, reply.psn, reply.original));
      }
      const deadline = req.deadlinePs();
      if (deadline !== null && nowPs >= deadline) completions.push(...req.onTimer(nowPs));
    }
  }
  return { value: value(), completions, fromCache: pairs.reduce((n, p) => n + p.resp.stats.atomicsFromCache, 0) };
}

test('16 hosts × 1,000 FETCH_AND_ADD under 1/256 loss: exactly 16,000, because retried atomics are answered from the cache', () => {
  const run = sixteenCounters(true);
  assert.equal(run.completions.length, 16_000);
  assert.ok(run.completions.every((c) => c.status === 'success'));
  assert.equal(run.value, 16_000n);
  assert.ok(run.fromCache > 0, 'some atomics were sent twice');
  // Each host saw its own adds in order, so its fetched values rise.
  assert.equal(new Set(run.completions.map((c) => c.atomicOriginal)).size, 16_000, 'every add fetched a different value');
});

test('without the cache of replies the same run counts past 16,000: every retried atomic is applied again', () => {
  const run = sixteenCounters(false);
  assert.equal(run.completions.length, 16_000);
  assert.ok(run.value > 16_000n, `the counter reads ${run.value}`);
});

test('atomics count against maxRdAtomic with READs', () => {
  const { region } = counter();
  const r = requester({ maxRdAtomic: 1 });
  r.post({ id: 1, opcode: 'read', sizeBytes: MTU, postedPs: 0 });
  postAtomic(r, 'fetchAdd', fetchAdd(region, 1n));
  assert.deepEqual(send(r).map((p) => p.wrId), [1]);
  r.onReadResponse(0, 0);
  assert.equal(send(r).length, 1);
});
