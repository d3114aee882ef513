// Round trips through the generated protobufjs code, and what decoding guarantees about shape.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeEnvelope, encodeEnvelope } from './codec.js';
import { WireError } from './errors.js';
import { sampleBatch, sampleEnvelopes } from './fixtures.js';
import { FrameKind, newFrame, rdmaFields, u64Bytes, u64Of } from './frame.js';
import type { Envelope } from './messages.js';
import { validateEnvelope } from './validate.js';

test('every envelope type round-trips with a non-default value in every field', () => {
  const envelopes = sampleEnvelopes();
  assert.deepEqual(
    envelopes.map((e) => e.type),
    ['hello', 'batch', 'directory', 'grant', 'report', 'fault', 'status', 'goodbye', 'pair'],
  );
  for (const env of envelopes) {
    validateEnvelope(env);
    assert.deepStrictEqual(decodeEnvelope(encodeEnvelope(env)), env, env.type);
  }
});

test('64-bit fields above 2^32 and up to 2^53 - 1 survive', () => {
  const batch = sampleBatch(2);
  batch.arrivalPs = [2 ** 32, Number.MAX_SAFE_INTEGER];
  batch.originSeq = [2 ** 32 + 1, 2 ** 52 + 3];
  batch.frames[0]!.srcMac = 2 ** 48 - 1;
  const back = decodeEnvelope(encodeEnvelope({ type: 'batch', batch }));
  assert.deepStrictEqual(back, { type: 'batch', batch });
});

test('defaults round-trip: zero values are absent on the wire and come back as zeros', () => {
  const env: Envelope = {
    type: 'batch',
    batch: { lease: 0, window: 0, frames: [newFrame(FrameKind.data, { ttl: 0 })], arrivalPs: [0], originSeq: [0], fcsBad: [false] },
  };
  assert.deepStrictEqual(decodeEnvelope(encodeEnvelope(env)), env);
  const empty: Envelope = { type: 'batch', batch: { lease: 1, window: 2, frames: [], arrivalPs: [], originSeq: [], fcsBad: [] } };
  const back = decodeEnvelope(encodeEnvelope(empty));
  assert.deepStrictEqual(back, empty);
  assert.ok(back.type === 'batch' && !Object.isFrozen(back.batch.frames), 'empty arrays are fresh, not shared frozen ones');
  const goodbye: Envelope = { type: 'goodbye', goodbye: { reason: '' } };
  assert.deepStrictEqual(decodeEnvelope(encodeEnvelope(goodbye)), goodbye);
});

test('the RDMA fields of a memory-backed QP round-trip, bytes and 64-bit operands included', () => {
  const batch = sampleBatch(2);
  const data = Uint8Array.from({ length: batch.frames[0]!.payloadBytes }, (_, i) => (i * 37) & 0xff);
  batch.frames[0]!.rdma = rdmaFields({ va: 2 ** 40 + 4096, rkey: 0x15a, data, immediate: 0xffffffff });
  batch.frames[1]!.kind = FrameKind.ack;
  batch.frames[1]!.rdma = rdmaFields({ operand: u64Bytes(-1n), swap: u64Bytes(1n << 63n), original: u64Bytes(0x0123456789abcdefn) });
  validateEnvelope({ type: 'batch', batch });
  const back = decodeEnvelope(encodeEnvelope({ type: 'batch', batch }));
  assert.deepStrictEqual(back, { type: 'batch', batch });
  assert.ok(back.type === 'batch');
  assert.equal(u64Of(back.batch.frames[1]!.rdma!.operand), 2n ** 64n - 1n);
  assert.equal(u64Of(back.batch.frames[1]!.rdma!.original), 0x0123456789abcdefn);
  assert.equal(back.batch.frames[0]!.rdma!.operand.length, 0, 'an absent operand is empty');
});

test('a host stream\'s segment (issue 25) round-trips: its ports, flags and bytes', () => {
  const batch = sampleBatch(2);
  const data = new TextEncoder().encode('QPN 0x000102');
  Object.assign(batch.frames[0]!, { kind: FrameKind.tcpData, opcode: 0, tcpSeq: 0xffff_fff0, tcpAck: 7, tcpDstPort: 18_515, tcpFlags: 0x18, payloadBytes: data.length, rdma: rdmaFields({ data }) });
  Object.assign(batch.frames[1]!, { kind: FrameKind.tcpAck, tcpDstPort: 65_535, tcpFlags: 0x02 });
  validateEnvelope({ type: 'batch', batch });
  assert.deepStrictEqual(decodeEnvelope(encodeEnvelope({ type: 'batch', batch })), { type: 'batch', batch });
  batch.frames[1]!.tcpDstPort = 65_536;
  assert.throws(() => validateEnvelope({ type: 'batch', batch }), /Batch\.frames\[1\]\.tcpDstPort: expected a 16-bit value/);
  batch.frames[1]!.tcpDstPort = 1;
  batch.frames[1]!.rdma = rdmaFields({});
  assert.throws(() => validateEnvelope({ type: 'batch', batch }), /Batch\.frames\[1\]\.rdma: expected RDMA fields on data and ACK frames and stream segments/);
});

test('RDMA fields that could not be on a real wire are refused with their path', () => {
  const batch = sampleBatch(1);
  batch.frames[0]!.rdma = rdmaFields({ data: new Uint8Array(3) });
  assert.throws(() => validateEnvelope({ type: 'batch', batch }), /Batch\.frames\[0\]\.rdma\.data.*payloadBytes/);
  batch.frames[0]!.rdma = rdmaFields({ operand: new Uint8Array(4) });
  assert.throws(() => validateEnvelope({ type: 'batch', batch }), /rdma\.operand.*8 bytes/);
});

test('decoded frames have every field, in newFrame order', () => {
  const back = decodeEnvelope(encodeEnvelope({ type: 'batch', batch: sampleBatch(4) }));
  assert.equal(back.type, 'batch');
  if (back.type !== 'batch') return;
  const keys = Object.keys(newFrame(FrameKind.data));
  for (const frame of back.batch.frames) {
    assert.deepEqual(Object.keys(frame), keys);
    assert.equal(Object.getPrototypeOf(frame), Object.prototype);
  }
  assert.equal(back.batch.frames[3]!.kind, FrameKind.pfc);
  assert.equal(back.batch.frames[3]!.pfcQuanta.length, 8);
  assert.equal(back.batch.frames[0]!.pfcQuanta.length, 0);
});

test('decoded messages share no memory with the input or with each other', () => {
  const env = sampleEnvelopes()[0]!;
  const bytes = encodeEnvelope(env);
  const first = decodeEnvelope(bytes);
  bytes.fill(0);
  assert.deepStrictEqual(first, env);
  const a = decodeEnvelope(encodeEnvelope(env));
  const b = decodeEnvelope(encodeEnvelope(env));
  assert.ok(a.type === 'hello' && b.type === 'hello');
  a.hello.nonce[0] = 99;
  a.hello.nodes.push('x');
  assert.equal(b.hello.nonce[0], 1);
  assert.equal(b.hello.nodes.length, 3);
});

test('each encode returns its own bytes (the writer is reused)', () => {
  const [hello, batch] = sampleEnvelopes();
  const first = encodeEnvelope(batch!);
  const copy = Uint8Array.from(first);
  encodeEnvelope(hello!);
  encodeEnvelope(batch!);
  assert.deepEqual(Uint8Array.from(first), copy);
});

test('an encode that throws leaves the codec usable', () => {
  const frames = [newFrame(FrameKind.data, { payloadBytes: 1000 }), null];
  const bad = { type: 'batch', batch: { ...sampleBatch(0), frames } } as unknown as Envelope;
  assert.throws(() => encodeEnvelope(bad));
  const env = sampleEnvelopes()[1]!;
  assert.deepStrictEqual(decodeEnvelope(encodeEnvelope(env)), env);
});

test('unknown fields are skipped (a newer peer may add some)', () => {
  const env = sampleEnvelopes()[7]!; // goodbye
  const bytes = encodeEnvelope(env);
  // Envelope field 15 (varint 300) and field 16 (a 3-byte string), then the known body.
  const extra = Uint8Array.from([0x78, 0xac, 0x02, 0x82, 0x01, 0x03, 0x61, 0x62, 0x63]);
  const withUnknown = new Uint8Array(extra.length + bytes.length);
  withUnknown.set(extra, 0);
  withUnknown.set(bytes, extra.length);
  assert.deepStrictEqual(decodeEnvelope(withUnknown), env);
});

test('an unknown field inside a frame is skipped too', () => {
  const frame = newFrame(FrameKind.ack, { psn: 5, ttl: 0 });
  const env: Envelope = { type: 'batch', batch: { lease: 1, window: 1, frames: [frame], arrivalPs: [10], originSeq: [1], fcsBad: [false] } };
  const bytes = encodeEnvelope(env);
  // Layout: 0x12 len(batch) [08 01 10 01 1a len(frame) [08 02 68 05] ...]; add field 30 = 7 to the frame.
  const at = bytes.indexOf(0x1a);
  assert.deepEqual([...bytes.subarray(at, at + 6)], [0x1a, 4, 0x08, 0x02, 0x68, 0x05]);
  const patched = [...bytes.subarray(0, at), 0x1a, 7, 0x08, 0x02, 0x68, 0x05, 0xf0, 0x01, 0x07, ...bytes.subarray(at + 6)];
  patched[1] = bytes[1]! + 3; // the batch got 3 bytes longer
  assert.deepStrictEqual(decodeEnvelope(Uint8Array.from(patched)), env);
});

test('an envelope with no body is refused as empty', () => {
  for (const bytes of [new Uint8Array(0), Uint8Array.from([0x78, 0x01])]) {
    assert.throws(() => decodeEnvelope(bytes), (err: unknown) => {
      assert.ok(err instanceof WireError);
      assert.equal(err.code, 'empty');
      assert.match(err.message, /^Envelope: expected one body: hello, batch, .*, got none$/);
      return true;
    });
  }
});

test('a NodeReport without stats decodes to stats: null', () => {
  const env = sampleEnvelopes()[4]!;
  const back = decodeEnvelope(encodeEnvelope(env));
  assert.ok(back.type === 'report');
  assert.equal(back.report.nodes[1]!.stats, null);
  assert.notEqual(back.report.nodes[0]!.stats, null);
});
