// HPCC's INT header on frames (issue 26): its size, its trip through a batch, its bytes in pcap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { INT_HOPS_HEADER_BYTES, INT_TS_HEADER_BYTES, frameBytes, serializedBytes } from './bytes.js';
import { decodeEnvelope, encodeEnvelope } from './codec.js';
import { FrameKind, IntMode, Opcode, newFrame, type Frame, type IntHop } from './frame.js';
import { decodeIntHeader, encodeFrame, intHeaderOffset, roceIcrc } from './packet-bytes.js';
import { WireError } from './errors.js';

const HOPS: IntHop[] = [
  { qlenBytes: 8_000, txBytes: 1_280_000, tsPs: 1_234_567_000, lineRateBps: 100e9 },
  { qlenBytes: 0, txBytes: 256, tsPs: 1_235_000_000, lineRateBps: 40e9 },
];
const data = (fields: Partial<Frame> = {}): Frame => newFrame(FrameKind.data, { opcode: Opcode.writeMiddle, payloadBytes: 1000, udpSrcPort: 49_153, ...fields });

test('an INT header adds IntHeader::GetStaticSize on data and ACK frames, and nothing without one', () => {
  const plain = data();
  assert.equal(frameBytes(plain), 1062);
  assert.equal(frameBytes(data({ intMode: IntMode.hops, int: HOPS })), 1062 + INT_HOPS_HEADER_BYTES);
  assert.equal(frameBytes(data({ intMode: IntMode.hops })), 1062 + 42, 'the header is there with 0 hops too');
  assert.equal(frameBytes(data({ intMode: IntMode.ts, intTsPs: 5 })), 1062 + INT_TS_HEADER_BYTES);
  assert.equal(frameBytes(data({ intMode: IntMode.hops }), 'hpcc-ns3'), 1000 + 48 + 42);
  assert.equal(serializedBytes(newFrame(FrameKind.ack, { opcode: Opcode.acknowledge, intMode: IntMode.hops })), 66 + 42 + 20);
  assert.equal(frameBytes(newFrame(FrameKind.ack, { opcode: Opcode.acknowledge })), 66);
});

test('INT hops and the timestamp survive a batch; an existing frame encodes to the same bytes as before', () => {
  const frames = [data({ intMode: IntMode.hops, int: HOPS }), newFrame(FrameKind.ack, { opcode: Opcode.acknowledge, intMode: IntMode.ts, intTsPs: 2 ** 40 + 7 }), data()];
  const batch = { lease: 1, window: 2, frames, arrivalPs: [1, 2, 3], originSeq: [1, 2, 3], fcsBad: [false, false, false] };
  const back = decodeEnvelope(encodeEnvelope({ type: 'batch', batch }));
  assert.deepStrictEqual(back, { type: 'batch', batch });
  // Proto3 leaves zero fields out: a frame without INT is written exactly as before (no new bytes).
  const without = encodeEnvelope({ type: 'batch', batch: { ...batch, frames: [data()], arrivalPs: [1], originSeq: [1], fcsBad: [false] } });
  const withZeros = encodeEnvelope({ type: 'batch', batch: { ...batch, frames: [data({ intMode: 0, int: [], intTsPs: 0 })], arrivalPs: [1], originSeq: [1], fcsBad: [false] } });
  assert.deepStrictEqual(withZeros, without);
});

test('a batch with six hops or hops on a CNP is refused', () => {
  const one = (frame: Frame) => encodeEnvelope({ type: 'batch', batch: { lease: 1, window: 1, frames: [frame], arrivalPs: [0], originSeq: [0], fcsBad: [false] } });
  const six = Array.from({ length: 6 }, () => HOPS[0]!);
  assert.throws(() => decodeEnvelope(one(data({ intMode: IntMode.hops, int: six }))), (e: unknown) => e instanceof WireError && /at most 5 hops/.test(e.message));
  assert.throws(() => decodeEnvelope(one(newFrame(FrameKind.cnp, { opcode: Opcode.cnp, intMode: IntMode.hops }))), (e: unknown) => e instanceof WireError && /data and ACK frames only/.test(e.message));
});

test('pcap: the INT header sits after the transport headers in HPCC ns-3 layout and reads back', () => {
  const frame = data({ intMode: IntMode.hops, int: HOPS });
  const bytes = encodeFrame(frame);
  assert.equal(bytes.length + 4, frameBytes(frame));
  const at = intHeaderOffset(frame);
  assert.equal(at, 54, 'a WRITE MIDDLE has no transport header after its BTH');
  assert.deepStrictEqual(decodeIntHeader(bytes, at), [
    // 8000 B = 100 units of 80; 1,280,000 B = 10,000 units of 128; 1,234,567 ns; 100G is code 2.
    { lineRateCode: 2, timeNs: 1_234_567, txBytes: 1_280_000, qlenBytes: 8_000 },
    // 40G is not in IntHop::lineRateValues: code 7.
    { lineRateCode: 7, timeNs: 1_235_000, txBytes: 256, qlenBytes: 0 },
  ]);
  // Hop 0's word: 2 | 1234567 << 3 | 10000 << 27 | 100 << 47, low half first, each big-endian.
  const word = 2n | (1_234_567n << 3n) | (10_000n << 27n) | (100n << 47n);
  const v = new DataView(bytes.buffer, bytes.byteOffset);
  assert.equal(v.getUint32(at), Number(word & 0xffff_ffffn));
  assert.equal(v.getUint32(at + 4), Number(word >> 32n));
  assert.equal(v.getUint16(at + 40), 2, 'the hop count after the five slots');
  // The ICRC covers it: the last four bytes are the ICRC of what came before.
  assert.equal(v.getUint32(bytes.length - 4, true), roceIcrc(bytes));
  // An ACK copies its data packet's INT: after its AETH.
  const ack = newFrame(FrameKind.ack, { opcode: Opcode.acknowledge, intMode: IntMode.hops, int: HOPS });
  const ackBytes = encodeFrame(ack);
  assert.equal(intHeaderOffset(ack), 58);
  assert.equal(decodeIntHeader(ackBytes, 58).length, 2);
  assert.equal(ackBytes.length + 4, frameBytes(ack));
  // Timestamp mode: the send time in ns, 64 bits big-endian.
  const ts = encodeFrame(data({ intMode: IntMode.ts, intTsPs: 7_000_123 }));
  assert.equal(new DataView(ts.buffer).getBigUint64(54), 7000n);
});
