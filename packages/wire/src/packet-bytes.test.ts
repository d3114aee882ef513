// Real bytes of emulated frames: header layouts read back at their IBA / RFC offsets, the
// IPv4 checksum, the ICRC against packets from outside this code, and lengths against frameBytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { frameBytes } from './bytes.js';
import { FrameKind, Opcode, TcpFlag, creditFrame, newFrame, pfcFrame, rdmaFields, u64Bytes, type Frame } from './frame.js';
import { encodeFrame, roceIcrc } from './packet-bytes.js';

const hex = (text: string): Uint8Array => Uint8Array.from(Buffer.from(text.replace(/\s+/g, ''), 'hex'));
const view = (bytes: Uint8Array): DataView => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
const uint24 = (v: DataView, at: number): number => (v.getUint8(at) << 16) | v.getUint16(at + 1);
const uint48 = (v: DataView, at: number): number => v.getUint16(at) * 2 ** 32 + v.getUint32(at + 2);

const ADDRESSED = {
  srcMac: 0x02_00_00_00_00_01, dstMac: 0x02_00_00_00_00_02, srcIp: 0x0a_00_00_01, dstIp: 0x0a_00_01_02,
  dscp: 26, ecn: 2, ipId: 0xbeef, ttl: 63, udpSrcPort: 49_170, destQp: 0xab_cd_ef,
};
const data = (opcode: number, fields: Partial<Frame> = {}): Frame => newFrame(FrameKind.data, { ...ADDRESSED, opcode, ...fields });
const ack = (fields: Partial<Frame> = {}): Frame => newFrame(FrameKind.ack, { ...ADDRESSED, opcode: Opcode.acknowledge, ...fields });
const cnp = (): Frame => newFrame(FrameKind.cnp, { ...ADDRESSED, opcode: Opcode.cnp, becn: true, ecn: 0, dscp: 48 });

// Offsets of a RoCEv2 packet: Ethernet 0, IPv4 14, UDP 34, BTH 42, the next header 54.
const IP = 14;
const UDP = 34;
const BTH = 42;
const NEXT = 54;

/** RFC 1071, written independently of the encoder: a correct header sums to 0xFFFF. */
function onesComplementSum(bytes: Uint8Array, from: number, to: number): number {
  let sum = 0;
  for (let i = from; i < to; i += 2) sum += (bytes[i]! << 8) | bytes[i + 1]!;
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return sum;
}

test('ICRC vector: a CNP captured on a ConnectX-4 Lx encodes byte for byte, checksum and ICRC included', () => {
  // scapy test/contrib/roce.uts, "RoCE CNP captured on ConnectX-4 Lx": the NIC's own bytes (no FCS).
  const captured = hex(`
    e41d 2dab 2bc2 7cfe 9064 3b32 0800 45c2 003c 718c 4000 4011 9161 0a00 1101 0a00
    1201 0000 12b7 0028 0000 8100 ffff 4000 0118 0000 0000 0000 0000 0000 0000 0000
    0000 0000 0000 82fd 002a`);
  const frame = newFrame(FrameKind.cnp, {
    dstMac: 0xe4_1d_2d_ab_2b_c2, srcMac: 0x7c_fe_90_64_3b_32, srcIp: 0x0a_00_11_01, dstIp: 0x0a_00_12_01,
    dscp: 0x30, ecn: 2, ipId: 0x718c, ttl: 64, udpSrcPort: 0, opcode: Opcode.cnp, destQp: 0x118, becn: true,
  });
  assert.deepEqual(encodeFrame(frame), captured);
  assert.equal(roceIcrc(captured), 0x2a00fd82); // sent least significant byte first
});

test('ICRC vector: scapy\'s RoCE test packet (UC SEND ONLY with 2 pad bytes, non-zero UDP checksum)', () => {
  // scapy test/contrib/roce.uts, "RoCE layer": scapy computes the ICRC with zlib over its own masking.
  const packet = hex(`
    248a07a8fa22 248a07a8fa22 0800
    4501 0040 0478 4000 4011 b4d5 c0a80007 c0a80007
    c000 12b7 002c aca2
    24 60 ffff 00 0000d3 00 cf1710
    4630818be28935d90e9a955054 01be885e50 0000
    78f353f3`);
  assert.equal(roceIcrc(packet), 0xf353f378);
});

test('ICRC ignores exactly the fields routers may change: TOS, TTL, IP checksum, UDP checksum, FECN/BECN', () => {
  const base = encodeFrame(data(Opcode.writeFirst, { payloadBytes: 64, dmaLength: 64 }));
  const icrc = roceIcrc(base);
  for (const at of [IP + 1, IP + 8, IP + 10, IP + 11, UDP + 6, UDP + 7, BTH + 4]) {
    const changed = base.slice();
    changed[at]! ^= 0x5a;
    assert.equal(roceIcrc(changed), icrc, `byte ${at} is masked`);
  }
  for (const at of [IP + 4, IP + 6, IP + 12, UDP, UDP + 4, BTH, BTH + 5, BTH + 8, BTH + 11, NEXT, NEXT + 20]) {
    const changed = base.slice();
    changed[at]! ^= 0x5a;
    assert.notEqual(roceIcrc(changed), icrc, `byte ${at} is covered`);
  }
  assert.throws(() => roceIcrc(base.subarray(0, 40)), /roceIcrc: expected an Ethernet \+ IPv4 \+ UDP \+ BTH packet/);
});

test('Ethernet, IPv4, UDP and BTH of a RoCEv2 data packet', () => {
  const bytes = encodeFrame(data(Opcode.writeMiddle, { psn: 0x12_34_56, ackReq: true, payloadBytes: 1024 }));
  const v = view(bytes);
  assert.equal(bytes.length, 14 + 20 + 8 + 12 + 1024 + 4);
  assert.deepEqual([uint48(v, 0), uint48(v, 6), v.getUint16(12)], [ADDRESSED.dstMac, ADDRESSED.srcMac, 0x0800]);
  assert.equal(v.getUint8(IP), 0x45, 'version 4, IHL 5');
  assert.equal(v.getUint8(IP + 1), (26 << 2) | 2, 'DSCP 26, ECN ECT(0)');
  assert.equal(v.getUint16(IP + 2), 20 + 8 + 12 + 1024 + 4, 'total length');
  assert.equal(v.getUint16(IP + 4), 0xbeef, 'identification');
  assert.equal(v.getUint16(IP + 6), 0x4000, 'DF, offset 0');
  assert.deepEqual([v.getUint8(IP + 8), v.getUint8(IP + 9)], [63, 17], 'TTL, UDP');
  assert.deepEqual([v.getUint32(IP + 12), v.getUint32(IP + 16)], [ADDRESSED.srcIp, ADDRESSED.dstIp]);
  assert.deepEqual([v.getUint16(UDP), v.getUint16(UDP + 2), v.getUint16(UDP + 4), v.getUint16(UDP + 6)], [49_170, 4791, 8 + 12 + 1024 + 4, 0]);
  assert.equal(v.getUint8(BTH), Opcode.writeMiddle);
  assert.equal(v.getUint8(BTH + 1), 0, 'SE 0, MigReq 0, PadCnt 0, TVer 0');
  assert.equal(v.getUint16(BTH + 2), 0xffff, 'default P_Key');
  assert.equal(v.getUint8(BTH + 4), 0, 'FECN, BECN, resv6a');
  assert.equal(uint24(v, BTH + 5), 0xab_cd_ef, 'DestQP');
  assert.equal(v.getUint8(BTH + 8), 0x80, 'AckReq');
  assert.equal(uint24(v, BTH + 9), 0x12_34_56, 'PSN');
  assert.ok(bytes.subarray(NEXT, NEXT + 1024).every((b) => b === 0), 'payload of zeros');
  assert.equal(v.getUint32(bytes.length - 4, true), roceIcrc(bytes), 'ICRC last, least significant byte first');
});

test('UDP destination port: the frame\'s udpDstPort (issue 26, an hpcc-ns3 flow\'s own), 0 meaning RoCEv2\'s 4791', () => {
  const at = (udpDstPort: number) => view(encodeFrame(data(Opcode.writeMiddle, { payloadBytes: 8, udpSrcPort: 10000, udpDstPort }))).getUint16(UDP + 2);
  assert.deepEqual([at(0), at(100), at(0xffff)], [4791, 100, 0xffff]);
  assert.throws(() => encodeFrame(data(Opcode.writeMiddle, { udpDstPort: 0x10000 })), /udpDstPort/);
});

test('the IPv4 header checksum is correct whatever the fields', () => {
  for (const fields of [{}, { dscp: 63, ecn: 3, ttl: 255, ipId: 0xffff }, { srcIp: 0xffff_ffff, dstIp: 0, ttl: 1 }]) {
    for (const frame of [data(Opcode.sendOnly, { payloadBytes: 1000, ...fields }), ack(fields), cnp()]) {
      assert.equal(onesComplementSum(encodeFrame(frame), IP, IP + 20), 0xffff);
    }
  }
});

test('RETH on WRITE FIRST and WRITE ONLY: virtual address 0, R_Key 0, DMA length', () => {
  for (const opcode of [Opcode.writeFirst, Opcode.writeOnly]) {
    const bytes = encodeFrame(data(opcode, { payloadBytes: 8, dmaLength: 4_000_000_000 }));
    const v = view(bytes);
    assert.deepEqual([v.getBigUint64(NEXT), v.getUint32(NEXT + 8), v.getUint32(NEXT + 12)], [0n, 0, 4_000_000_000]);
    assert.equal(bytes.length, NEXT + 16 + 8 + 4);
  }
  for (const opcode of [Opcode.writeMiddle, Opcode.writeLast, Opcode.sendFirst, Opcode.sendOnly]) {
    assert.equal(encodeFrame(data(opcode, { payloadBytes: 8, dmaLength: 99 })).length, NEXT + 8 + 4, 'no RETH');
  }
});

test('AETH on ACK and NAK: syndrome and 24-bit MSN; BECN where the frame says so', () => {
  const ackBytes = encodeFrame(ack({ psn: 7, syndrome: 0x1f, msn: 0xfe_dc_ba }));
  const nakBytes = encodeFrame(ack({ psn: 9, syndrome: 0x60, msn: 3, becn: true }));
  assert.deepEqual([ackBytes[NEXT], uint24(view(ackBytes), NEXT + 1), ackBytes[BTH + 4]], [0x1f, 0xfe_dc_ba, 0]);
  assert.deepEqual([nakBytes[NEXT], uint24(view(nakBytes), NEXT + 1), nakBytes[BTH + 4]], [0x60, 3, 0x40]);
  assert.equal(ackBytes.length, NEXT + 4 + 4);
});

test('CNP: opcode 0x81, BECN, 16 reserved zero bytes, then the ICRC', () => {
  const bytes = encodeFrame(cnp());
  assert.deepEqual([bytes[BTH], bytes[BTH + 4]], [0x81, 0x40]);
  assert.ok(bytes.subarray(NEXT, NEXT + 16).every((b) => b === 0));
  assert.equal(bytes.length, NEXT + 16 + 4);
});

test('a payload that is not a multiple of 4 is padded, and PadCnt says by how much (IBA 9.2)', () => {
  for (const [payloadBytes, pad] of [[1021, 3], [1022, 2], [1023, 1], [1024, 0]] as const) {
    const bytes = encodeFrame(data(Opcode.sendLast, { payloadBytes }));
    assert.equal((bytes[BTH + 1]! >> 4) & 3, pad);
    assert.equal(view(bytes).getUint16(IP + 2), 20 + 8 + 12 + payloadBytes + pad + 4);
  }
});

test('a short packet is padded to 60 bytes after the IP packet, behind the ICRC', () => {
  const bytes = encodeFrame(data(Opcode.sendOnly, { payloadBytes: 0 }));
  assert.equal(bytes.length, 60);
  assert.equal(view(bytes).getUint16(IP + 2), 20 + 8 + 12 + 4, 'the IP length does not count the Ethernet pad');
  assert.equal(view(bytes).getUint32(NEXT, true), roceIcrc(bytes));
  assert.deepEqual([...bytes.subarray(58)], [0, 0]);
});

test('PFC: MAC control to 01:80:C2:00:00:01, opcode 0x0101, class-enable vector, eight quanta, padded to 60', () => {
  const pause = pfcFrame(0b0000_1000, [1, 2, 3, 0xffff, 5, 6, 7, 8]);
  const bytes = encodeFrame(pause, { srcMacForPfc: 0x02_00_00_00_00_09 });
  const v = view(bytes);
  assert.equal(bytes.length, 60);
  assert.deepEqual([uint48(v, 0), uint48(v, 6), v.getUint16(12)], [0x01_80_c2_00_00_01, 0x02_00_00_00_00_09, 0x8808]);
  assert.deepEqual([v.getUint16(14), v.getUint16(16)], [0x0101, 0x0008]);
  assert.deepEqual(Array.from({ length: 8 }, (_, p) => v.getUint16(18 + 2 * p)), [1, 2, 3, 0xffff, 5, 6, 7, 8]);
  assert.ok(bytes.subarray(34).every((b) => b === 0));
  pause.srcMac = 0x02_00_00_00_00_07; // a frame's own source MAC wins over the option
  assert.equal(uint48(view(encodeFrame(pause, { srcMacForPfc: 0x02_00_00_00_00_09 })), 6), 0x02_00_00_00_00_07);
  assert.equal(uint48(view(encodeFrame(pfcFrame(1, [0, 0, 0, 0, 0, 0, 0, 0]))), 6), 0, 'no MAC at all: zeros');
});

test('length + 4 (FCS) = frameBytes for every kind and opcode, counting the payload pad bytes', () => {
  const kinds: Frame[] = [ack(), ack({ syndrome: 0x60 }), cnp(), pfcFrame(0x08, [0, 0, 0, 0xffff, 0, 0, 0, 0])];
  for (const opcode of [Opcode.sendFirst, Opcode.sendMiddle, Opcode.sendLast, Opcode.sendOnly, Opcode.writeFirst, Opcode.writeMiddle, Opcode.writeLast, Opcode.writeOnly]) {
    for (const payloadBytes of [0, 1, 2, 3, 4, 5, 6, 7, 8, 100, 1021, 1024, 4096, 9000]) kinds.push(data(opcode, { payloadBytes }));
  }
  for (const frame of kinds) {
    const what = `kind ${frame.kind} opcode ${frame.opcode} payload ${frame.payloadBytes}`;
    assert.equal(encodeFrame(frame).length + 4, frameBytes(frame), what);
  }
});

test('READ requests and responses, atomics, Atomic ACKs and immediates encode to frameBytes − FCS, their headers where IBA puts them', () => {
  const frames = [
    data(Opcode.readRequest, { dmaLength: 2500 }),
    data(Opcode.readResponseFirst, { payloadBytes: 1024, syndrome: 0x1f, msn: 7 }),
    data(Opcode.readResponseMiddle, { payloadBytes: 1024 }),
    data(Opcode.readResponseLast, { payloadBytes: 452, syndrome: 0x1f, msn: 7 }),
    data(Opcode.readResponseOnly, { payloadBytes: 3 }),
    data(Opcode.writeOnlyImmediate, { payloadBytes: 10, dmaLength: 10 }),
    data(Opcode.sendLastImmediate, { payloadBytes: 10 }),
    data(Opcode.fetchAdd),
    data(Opcode.compareSwap),
    ack({ opcode: Opcode.atomicAcknowledge, syndrome: 0x1f, msn: 9 }),
  ];
  for (const frame of frames) assert.equal(encodeFrame(frame).length, frameBytes(frame) - 4, `opcode 0x${frame.opcode.toString(16)}`);
  const bth = 14 + 20 + 8;
  const at = (frame: Frame, offset: number) => new DataView(encodeFrame(frame).buffer).getUint32(bth + 12 + offset);
  assert.equal(at(frames[0]!, 12), 2500, "the READ request's RETH DMA length");
  assert.equal(at(frames[1]!, 0), (0x1f << 24) | 7, "a READ response's AETH: syndrome and MSN");
  assert.equal(at(frames[9]!, 0), (0x1f << 24) | 9, "an Atomic ACK's AETH, before the AtomicAckETH");
  assert.equal(at(frames[5]!, 12), 10, "WRITE ONLY with immediate: the RETH first, then the ImmDt");
});

test("a memory-backed QP's frame writes its RETH, ImmDt, AtomicETH, AtomicAckETH and payload where IBA puts them (issue 24)", () => {
  const v = (frame: Frame): DataView => view(encodeFrame(frame));
  const payload = Uint8Array.from([104, 105, 33]);
  const write = v(data(Opcode.writeOnlyImmediate, { payloadBytes: 3, dmaLength: 3, rdma: rdmaFields({ va: 2 ** 40 + 0x1000, rkey: 0x1234_5678, data: payload, immediate: 0xcafe_f00d }) }));
  assert.equal(write.getBigUint64(NEXT), 2n ** 40n + 0x1000n, 'RETH VA, big-endian');
  assert.equal(write.getUint32(NEXT + 8), 0x1234_5678, 'RETH R_Key');
  assert.equal(write.getUint32(NEXT + 12), 3, 'RETH DMA length');
  assert.equal(write.getUint32(NEXT + 16), 0xcafe_f00d, 'ImmDt after the RETH');
  assert.deepEqual([write.getUint8(NEXT + 20), write.getUint8(NEXT + 21), write.getUint8(NEXT + 22), write.getUint8(NEXT + 23)], [104, 105, 33, 0], 'the payload, then one pad byte');
  const cas = v(data(Opcode.compareSwap, { rdma: rdmaFields({ va: 0x1000_0008, rkey: 7, operand: u64Bytes(41n), swap: u64Bytes(-1n) }) }));
  assert.deepEqual([cas.getBigUint64(NEXT), cas.getUint32(NEXT + 8), cas.getBigUint64(NEXT + 12), cas.getBigUint64(NEXT + 20)], [0x1000_0008n, 7, 2n ** 64n - 1n, 41n], 'VA, R_Key, swap, compare');
  const add = v(data(Opcode.fetchAdd, { rdma: rdmaFields({ va: 8, rkey: 9, operand: u64Bytes(5n) }) }));
  assert.deepEqual([add.getBigUint64(NEXT + 12), add.getBigUint64(NEXT + 20)], [5n, 0n], 'add, compare 0');
  const atomicAck = v(ack({ opcode: Opcode.atomicAcknowledge, syndrome: 0x1f, msn: 1, rdma: rdmaFields({ original: u64Bytes(2n ** 50n + 3n) }) }));
  assert.equal(atomicAck.getBigUint64(NEXT + 4), 2n ** 50n + 3n, 'the original word after the AETH');
  // A frame without RDMA fields (a built-in generator's) keeps zeros; the ICRC covers the bytes.
  const plain = encodeFrame(data(Opcode.writeOnly, { payloadBytes: 3, dmaLength: 3 }));
  const withBytes = encodeFrame(data(Opcode.writeOnly, { payloadBytes: 3, dmaLength: 3, rdma: rdmaFields({ data: payload }) }));
  assert.equal(view(plain).getBigUint64(NEXT), 0n);
  assert.notDeepEqual(plain.subarray(-4), withBytes.subarray(-4), 'the ICRC changes with the payload');
  assert.throws(() => encodeFrame(data(Opcode.readRequest, { rdma: rdmaFields({ va: -1 }) })), /frame\.rdma\.va: expected a safe non-negative integer, got -1/);
});

test('frames no real packet matches are refused with the field, the expectation and the value', () => {
  assert.throws(() => encodeFrame(data(0x11)), /^RangeError: encodeFrame: frame\.opcode: expected an RC request or READ response opcode .* on a data frame, got 0x11$/);
  assert.throws(() => encodeFrame(data(0x15)), /got 0x15$/);
  assert.throws(() => encodeFrame(ack({ opcode: 0 })), /frame\.opcode: expected ACKNOWLEDGE \(0x11\) or ATOMIC ACKNOWLEDGE \(0x12\) on an ack frame, got 0x00/);
  assert.throws(() => encodeFrame(newFrame(FrameKind.cnp)), /frame\.opcode: expected CNP \(0x81\) on a cnp frame, got 0x00/);
  assert.throws(() => encodeFrame({ ...ack(), kind: 9 as FrameKind }), /frame\.kind: expected a frame kind: 1 \(data\), 2 \(ack\), 3 \(cnp\), 4 \(pfc\), 5 \(TCP segment\), 6 \(TCP ACK\) or 7 \(credit\), got 9/);
  assert.throws(() => encodeFrame(data(Opcode.sendOnly, { psn: 2 ** 24 })), /frame\.psn: expected a 24-bit value \(0\.\.16777215\), got 16777216/);
  assert.throws(() => encodeFrame(data(Opcode.sendOnly, { dscp: 64 })), /frame\.dscp: expected a 6-bit value/);
  assert.throws(() => encodeFrame(data(Opcode.sendOnly, { srcMac: -1 })), /frame\.srcMac: expected a 48-bit value/);
  assert.throws(() => encodeFrame(data(Opcode.sendOnly, { payloadBytes: 65_492 })), /frame\.payloadBytes: expected at most 65488 here \(an IPv4 packet has at most 65535 bytes\), got 65492/);
  assert.equal(encodeFrame(data(Opcode.sendOnly, { payloadBytes: 65_488 })).length, 14 + 65_532);
  assert.throws(() => encodeFrame({ ...pfcFrame(1, [0, 0, 0, 0, 0, 0, 0, 0]), pfcQuanta: [1] }), /frame\.pfcQuanta: expected exactly 8 quanta on a PFC frame, got 1/);
  assert.throws(() => encodeFrame({ ...pfcFrame(1, [0, 0, 0, 0, 0, 0, 0, 0]), pfcQuanta: [0, 0, 0, 0, 0, 0, 0, 65_536] }), /frame\.pfcQuanta\[7\]: expected a 16-bit value/);
  assert.throws(() => encodeFrame(pfcFrame(1, [0, 0, 0, 0, 0, 0, 0, 0]), { srcMacForPfc: 2 ** 48 }), /frame\.srcMac \(or srcMacForPfc\): expected a 48-bit value/);
});

test('a TCP segment and a TCP ACK encode as IPv4/TCP with their ports, numbers, flags and a checksum that verifies', () => {
  const fields = { srcMac: 0x02_00_00_00_00_01, dstMac: 0x02_00_00_00_00_02, srcIp: 0x0a_01_01_01, dstIp: 0x0a_02_01_01, dscp: 0, ecn: 2, ttl: 64, udpSrcPort: 49_200, tcpSeq: 0xffff_fff0, tcpAck: 7 };
  const segment = encodeFrame(newFrame(FrameKind.tcpData, { ...fields, payloadBytes: 1000 }));
  assert.equal(segment.length, 14 + 20 + 32 + 1000);
  const view = new DataView(segment.buffer);
  assert.deepEqual([view.getUint8(14 + 9), view.getUint16(14 + 2), view.getUint8(14 + 1)], [6, 20 + 32 + 1000, 2], 'protocol TCP, IP length, ECT(0)');
  const tcp = 34;
  assert.deepEqual([view.getUint16(tcp), view.getUint16(tcp + 2), view.getUint32(tcp + 4), view.getUint32(tcp + 8), view.getUint8(tcp + 12) >> 4, view.getUint8(tcp + 13)], [49_200, 5001, 0xffff_fff0, 7, 8, 0x18]);
  // The ones' complement sum over the pseudo-header and the segment is all ones.
  let sum = 0x0a01 + 0x0101 + 0x0a02 + 0x0101 + 6 + 32 + 1000;
  for (let at = tcp; at < segment.length; at += 2) sum += view.getUint16(at);
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  assert.equal(sum, 0xffff);
  const pureAck = encodeFrame(newFrame(FrameKind.tcpAck, { ...fields, ecn: 0, becn: true }));
  assert.equal(pureAck.length, 14 + 20 + 32, 'no payload, no padding: 66 bytes is above the 60-byte minimum');
  assert.equal(new DataView(pureAck.buffer).getUint8(tcp + 13), 0x50, 'ACK and ECE');
});

test('a host stream\'s segment (issue 25) writes its own destination port, flags and bytes, with a checksum over them that verifies (odd length too)', () => {
  const text = new TextEncoder().encode('hello');
  const frame = newFrame(FrameKind.tcpData, { srcIp: 0x0a_01_01_01, dstIp: 0x0a_02_01_01, udpSrcPort: 32_768, tcpDstPort: 18_515, tcpFlags: TcpFlag.ack | TcpFlag.psh, tcpSeq: 1, tcpAck: 1, payloadBytes: text.length, rdma: rdmaFields({ data: text }) });
  const segment = encodeFrame(frame);
  const view = new DataView(segment.buffer);
  const tcp = 34;
  assert.deepEqual([view.getUint16(tcp), view.getUint16(tcp + 2), view.getUint8(tcp + 13)], [32_768, 18_515, 0x18]);
  assert.equal(new TextDecoder().decode(segment.subarray(tcp + 32, tcp + 37)), 'hello');
  let sum = 0x0a01 + 0x0101 + 0x0a02 + 0x0101 + 6 + 32 + 5;
  for (let at = tcp; at < tcp + 37; at += 2) sum += at + 1 < tcp + 37 ? view.getUint16(at) : view.getUint8(at) << 8;
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  assert.equal(sum, 0xffff);
  const syn = encodeFrame(newFrame(FrameKind.tcpAck, { udpSrcPort: 32_768, tcpDstPort: 18_515, tcpFlags: TcpFlag.syn }));
  assert.equal(new DataView(syn.buffer).getUint8(tcp + 13), 0x02, 'SYN alone');
  assert.throws(() => encodeFrame(newFrame(FrameKind.tcpAck, { tcpFlags: 256 })), /frame\.tcpFlags: expected an 8-bit value/);
});

test('a credit update is written as a minimum frame: the PFC address, EtherType 0x88B5, then per lane the IBA flow control packet\'s VL and FCCL', () => {
  const bytes = encodeFrame(creditFrame(1 << 3 | 1 << 6, [0, 0, 0, 0xabc, 0, 0, 0x123, 0]), { srcMacForPfc: 0x020000000001 });
  assert.equal(bytes.length + 4, frameBytes(creditFrame(0, [0, 0, 0, 0, 0, 0, 0, 0])), 'the length frameBytes counts');
  const view = new DataView(bytes.buffer);
  assert.equal(view.getUint16(12), 0x88b5);
  assert.deepEqual([view.getUint16(14), view.getUint16(16)], [0, (3 << 12) | 0xabc], 'lane 3');
  assert.deepEqual([view.getUint16(18), view.getUint16(20)], [0, (6 << 12) | 0x123], 'lane 6');
  assert.equal(view.getUint16(22), 0, 'then padding');
});
