/**
 * An emulated frame as the real bytes it stands for, for pcap export (Wireshark, tshark).
 *
 * Data, ACK/NAK and CNP frames are RoCEv2 (IBA vol 1 Annex A17): Ethernet II, IPv4 (no
 * options, DF), UDP to port 4791 (or the frame's `udpDstPort`) with checksum 0, the BTH, then the transport headers of the
 * opcode (RETH on the first and only packets of a WRITE and on a READ request, ImmDt, AETH on
 * ACK/NAKs and READ responses, AtomicETH, AtomicAckETH) or the CNP's 16 reserved bytes, the
 * payload padded to a multiple of 4 (BTH PadCnt), and the ICRC. PFC frames are 802.1Qbb MAC
 * control frames. No FCS: pcap's LINKTYPE_ETHERNET captures exclude it, so a frame encodes to
 * `frameBytes(frame) - 4` bytes (pad bytes included: `frameBytes` counts them too).
 * A memory-backed QP's frame (`frame.rdma`) writes what it carries: the RETH's virtual address
 * and R_Key, the ImmDt, the AtomicETH's address, key and operands, the AtomicAckETH's original
 * word and the payload's bytes. Other frames carry none of these: those fields and the payload
 * are zeros (a built-in generator's message has no bytes, only a length).
 * A frame with an INT header (`intMode`, issue 26) has it after its transport headers and before
 * its payload, in HPCC ns-3's layout (`writeIntHeader`); the ICRC covers it.
 */
import { AETH_BYTES, ATOMIC_ACK_ETH_BYTES, CNP_RESERVED_BYTES, IMMDT_BYTES, MIN_FRAME_BYTES, extensionBytes, intHeaderBytes } from './bytes.js';
import { bitsExpected, isUint } from './check.js';
import { FrameKind, INT_MAX_HOPS, IntMode, Opcode, PFC_PRIORITIES, carriesReth, isReadResponseWithAeth, u64Of, type Frame } from './frame.js';

const FCS_BYTES = 4;
const ETHERNET_BYTES = 14;
const IPV4_BYTES = 20;
const UDP_BYTES = 8;
const BTH_BYTES = 12;
const ICRC_BYTES = 4;
/** Headers the ICRC covers in masked form: IPv4, UDP, BTH. */
const MASKED_BYTES = IPV4_BYTES + UDP_BYTES + BTH_BYTES;

const ETHERTYPE_IPV4 = 0x0800;
const ETHERTYPE_MAC_CONTROL = 0x8808;
const IPV4_VERSION_IHL = 0x45;
const IPV4_DONT_FRAGMENT = 0x4000;
const IP_PROTOCOL_UDP = 17;
const IP_PROTOCOL_TCP = 6;
/** TCP header with the timestamps option (NOP, NOP, kind 8 length 10), as Linux sends it. */
const TCP_BYTES = 32;
/** The port rocelab's TCP connections listen on (iperf's), the source being the connection's ECMP entropy. */
export const TCP_DST_PORT = 5001;
const TCP_ACK = 0x10;
const TCP_PSH = 0x08;
const TCP_ECE = 0x40;
const TCP_FIELD_BITS = { srcMac: 48, dstMac: 48, srcIp: 32, dstIp: 32, dscp: 6, ecn: 2, ipId: 16, ttl: 8, udpSrcPort: 16, tcpSeq: 32, tcpAck: 32, payloadBytes: 32 } as const;
const ROCEV2_UDP_PORT = 4791;
const DEFAULT_PKEY = 0xffff;
const BTH_BECN = 0x40;
const BTH_ACK_REQ = 0x80;
/** 802.1Qbb: PFC frames go to the MAC control multicast address with opcode 0x0101. */
const PFC_DST_MAC = 0x0180_c200_0001;
const PFC_OPCODE = 0x0101;

export interface EncodeOptions {
  /** Source MAC of PFC frames whose `srcMac` is 0 (the emulator leaves it unset): the sending port's. */
  srcMacForPfc?: number;
}

/** Header fields a RoCEv2 frame writes, with their width in bits. */
const ROCE_FIELD_BITS = {
  srcMac: 48, dstMac: 48, srcIp: 32, dstIp: 32, dscp: 6, ecn: 2, ipId: 16, ttl: 8, udpSrcPort: 16, udpDstPort: 16,
  opcode: 8, destQp: 24, psn: 24, syndrome: 8, msn: 24, dmaLength: 32, payloadBytes: 32,
} as const;

/** RC request opcodes and READ responses: every packet but ACKs and CNPs, 0x00–0x10, 0x13, 0x14. */
const DATA_OPCODES: readonly number[] = [
  Opcode.sendFirst, Opcode.sendMiddle, Opcode.sendLast, Opcode.sendLastImmediate, Opcode.sendOnly, Opcode.sendOnlyImmediate,
  Opcode.writeFirst, Opcode.writeMiddle, Opcode.writeLast, Opcode.writeLastImmediate, Opcode.writeOnly, Opcode.writeOnlyImmediate,
  Opcode.readRequest, Opcode.readResponseFirst, Opcode.readResponseMiddle, Opcode.readResponseLast, Opcode.readResponseOnly,
  Opcode.compareSwap, Opcode.fetchAdd,
];

/** Bad input reads like a WireError: `FIELD: expected EXPECTED, got ACTUAL`. */
function refuse(field: string, expected: string, got: number | string): never {
  throw new RangeError(`encodeFrame: frame.${field}: expected ${expected}, got ${got}`);
}

const hex = (value: number): string => `0x${value.toString(16).padStart(2, '0')}`;

/** The frame as it would be on the wire, without the FCS. Throws a RangeError for a frame no real packet matches. */
export function encodeFrame(frame: Frame, opts: EncodeOptions = {}): Uint8Array {
  switch (frame.kind) {
    case FrameKind.data:
      if (!DATA_OPCODES.includes(frame.opcode)) {
        refuse('opcode', `an RC request or READ response opcode (${DATA_OPCODES.map(hex).join(', ')}) on a data frame`, hex(frame.opcode));
      }
      return encodeRoce(frame, extensionBytes(frame.opcode), frame.payloadBytes);
    case FrameKind.ack:
      if (frame.opcode !== Opcode.acknowledge && frame.opcode !== Opcode.atomicAcknowledge) refuse('opcode', 'ACKNOWLEDGE (0x11) or ATOMIC ACKNOWLEDGE (0x12) on an ack frame', hex(frame.opcode));
      return encodeRoce(frame, AETH_BYTES + (frame.opcode === Opcode.atomicAcknowledge ? ATOMIC_ACK_ETH_BYTES : 0), 0);
    case FrameKind.cnp:
      if (frame.opcode !== Opcode.cnp) refuse('opcode', 'CNP (0x81) on a cnp frame', hex(frame.opcode));
      return encodeRoce(frame, CNP_RESERVED_BYTES, 0);
    case FrameKind.pfc:
      return encodePfc(frame, frame.srcMac === 0 ? opts.srcMacForPfc ?? 0 : frame.srcMac);
    case FrameKind.tcpData:
    case FrameKind.tcpAck:
      return encodeTcp(frame);
    case FrameKind.credit:
      return encodeCredit(frame, frame.srcMac === 0 ? opts.srcMacForPfc ?? 0 : frame.srcMac);
    default:
      return refuse('kind', 'a frame kind: 1 (data), 2 (ack), 3 (cnp), 4 (pfc), 5 (TCP segment), 6 (TCP ACK) or 7 (credit)', String(frame.kind));
  }
}

/** `extensionBytes`: the transport headers or the CNP's reserved bytes, between the BTH and the payload. */
function encodeRoce(frame: Frame, extensionBytes: number, payloadBytes: number): Uint8Array {
  for (const [field, bits] of Object.entries(ROCE_FIELD_BITS)) {
    const value = frame[field as keyof typeof ROCE_FIELD_BITS];
    if (!isUint(value, 2 ** bits - 1)) refuse(field, bitsExpected(bits), value);
  }
  const padBytes = -payloadBytes & 3; // IBA 9.2: the payload is padded to a multiple of 4 bytes
  const intBytes = frame.kind === FrameKind.data || frame.kind === FrameKind.ack ? intHeaderBytes(frame) : 0;
  const udpBytes = UDP_BYTES + BTH_BYTES + extensionBytes + intBytes + payloadBytes + padBytes + ICRC_BYTES;
  const ipBytes = IPV4_BYTES + udpBytes;
  if (ipBytes > 0xffff) {
    const most = (0xffff - (ipBytes - payloadBytes - padBytes)) & ~3;
    refuse('payloadBytes', `at most ${most} here (an IPv4 packet has at most 65535 bytes)`, payloadBytes);
  }
  const { bytes, view } = ipv4Packet(frame, ipBytes, IP_PROTOCOL_UDP);
  const ip = ETHERNET_BYTES;
  const udp = ip + IPV4_BYTES;
  view.setUint16(udp, frame.udpSrcPort);
  view.setUint16(udp + 2, frame.udpDstPort === 0 ? ROCEV2_UDP_PORT : frame.udpDstPort);
  view.setUint16(udp + 4, udpBytes); // checksum stays 0: RoCEv2 (A17.4.2) allows it

  const bth = udp + UDP_BYTES;
  view.setUint8(bth, frame.opcode);
  view.setUint8(bth + 1, padBytes << 4); // SE 0, MigReq 0, PadCnt, TVer 0
  view.setUint16(bth + 2, DEFAULT_PKEY);
  view.setUint8(bth + 4, frame.becn ? BTH_BECN : 0); // FECN 0, resv6a 0
  setUint24(view, bth + 5, frame.destQp);
  view.setUint8(bth + 8, frame.ackReq ? BTH_ACK_REQ : 0);
  setUint24(view, bth + 9, frame.psn);

  const extension = bth + BTH_BYTES;
  const rdma = frame.rdma;
  if (frame.kind === FrameKind.ack || (frame.kind === FrameKind.data && isReadResponseWithAeth(frame.opcode))) {
    view.setUint8(extension, frame.syndrome);
    setUint24(view, extension + 1, frame.msn);
    if (frame.opcode === Opcode.atomicAcknowledge && rdma !== null) view.setBigUint64(extension + AETH_BYTES, u64Of(rdma.original));
  } else if (frame.kind === FrameKind.data && carriesReth(frame.opcode)) {
    if (rdma !== null) writeVaKey(view, extension, rdma.va, rdma.rkey);
    view.setUint32(extension + 12, frame.dmaLength);
  } else if (frame.kind === FrameKind.data && (frame.opcode === Opcode.compareSwap || frame.opcode === Opcode.fetchAdd) && rdma !== null) {
    // AtomicETH (IBA 9.3.4): VA, R_Key, Swap (or Add) Data, Compare Data. rocelab's `operand` is
    // the add of FETCH_AND_ADD and the compare of COMPARE_AND_SWAP; `swap` its swap.
    writeVaKey(view, extension, rdma.va, rdma.rkey);
    const cas = frame.opcode === Opcode.compareSwap;
    view.setBigUint64(extension + 12, u64Of(cas ? rdma.swap : rdma.operand));
    view.setBigUint64(extension + 20, cas ? u64Of(rdma.operand) : 0n);
  }
  if (intBytes !== 0) writeIntHeader(view, extension + extensionBytes, frame);
  if (rdma !== null && frame.kind === FrameKind.data) {
    // ImmDt is the last transport header (after a RETH on WRITE ONLY with immediate).
    if (carriesImmediate(frame.opcode)) view.setUint32(extension + extensionBytes - IMMDT_BYTES, rdma.immediate);
    bytes.set(rdma.data.subarray(0, payloadBytes), extension + extensionBytes + intBytes);
  }
  const icrc = ip + ipBytes - ICRC_BYTES;
  view.setUint32(icrc, roceIcrc(bytes), true);
  return bytes;
}

/** HPCC int-header.h `IntHop`: bit widths of its fields and their units (INT_MULTI 1). */
const INT_TIME_BITS = 24;
const INT_BYTES_BITS = 20;
const INT_QLEN_BITS = 17;
const INT_BYTE_UNIT = 128;
const INT_QLEN_UNIT = 80;
/** `IntHop::lineRateValues`: the rates a 3-bit code names; any other rate is written as code 7. */
const INT_LINE_RATES: readonly number[] = [25e9, 50e9, 100e9, 200e9, 400e9];
const INT_UNKNOWN_RATE = 7;

/**
 * The INT header, between the transport headers and the payload (the layout of HPCC ns-3's
 * `IntHeader::Serialize`, so its bytes read as that simulator's). Hops mode: 5 hop slots of
 * 8 bytes, each its 64-bit word `lineRate:3 | time:24 << 3 | bytes:20 << 27 | qlen:17 << 47`
 * (x86 bitfield order) written as two big-endian 32-bit halves, low half first, unused slots
 * zero; then the hop count (16 bits). Time in ns modulo 2^24, bytes in 128-byte and queue in
 * 80-byte units (INT_MULTI 1), each cut to its width. Timestamp mode: the send time in ns, 64 bits.
 */
function writeIntHeader(view: DataView, at: number, frame: Frame): void {
  if (frame.intMode === IntMode.ts) {
    view.setBigUint64(at, BigInt(Math.floor(frame.intTsPs / 1000)));
    return;
  }
  frame.int.forEach((hop, i) => {
    const code = INT_LINE_RATES.indexOf(hop.lineRateBps);
    const word =
      BigInt(code < 0 ? INT_UNKNOWN_RATE : code) |
      (BigInt(Math.floor(hop.tsPs / 1000) % 2 ** INT_TIME_BITS) << 3n) |
      (BigInt(Math.floor(hop.txBytes / INT_BYTE_UNIT) % 2 ** INT_BYTES_BITS) << 27n) |
      (BigInt(Math.floor(hop.qlenBytes / INT_QLEN_UNIT) % 2 ** INT_QLEN_BITS) << 47n);
    view.setUint32(at + 8 * i, Number(word & 0xffff_ffffn));
    view.setUint32(at + 8 * i + 4, Number(word >> 32n));
  });
  view.setUint16(at + 8 * INT_MAX_HOPS, frame.int.length);
}

/** One hop of an INT header as its bytes hold it (`decodeIntHeader`). */
export interface IntHopBytes {
  /** `IntHop::lineRateValues` index, 7 for a rate not in that table. */
  lineRateCode: number;
  timeNs: number;
  txBytes: number;
  qlenBytes: number;
}

/** Where an encoded data or ACK frame's INT header starts: after Ethernet, IPv4, UDP, BTH and its transport headers. */
export function intHeaderOffset(frame: Frame): number {
  const transport = frame.kind === FrameKind.ack ? AETH_BYTES + (frame.opcode === Opcode.atomicAcknowledge ? ATOMIC_ACK_ETH_BYTES : 0) : extensionBytes(frame.opcode);
  return ETHERNET_BYTES + IPV4_BYTES + UDP_BYTES + BTH_BYTES + transport;
}

/** Reads back a hops-mode INT header written by `encodeFrame` at `offset` of `packet` (pcap readers, tests). */
export function decodeIntHeader(packet: Uint8Array, offset: number): IntHopBytes[] {
  const view = new DataView(packet.buffer, packet.byteOffset, packet.byteLength);
  const count = view.getUint16(offset + 8 * INT_MAX_HOPS);
  const hops: IntHopBytes[] = [];
  for (let i = 0; i < Math.min(count, INT_MAX_HOPS); i++) {
    const word = BigInt(view.getUint32(offset + 8 * i)) | (BigInt(view.getUint32(offset + 8 * i + 4)) << 32n);
    hops.push({
      lineRateCode: Number(word & 7n),
      timeNs: Number((word >> 3n) & BigInt(2 ** INT_TIME_BITS - 1)),
      txBytes: Number((word >> 27n) & BigInt(2 ** INT_BYTES_BITS - 1)) * INT_BYTE_UNIT,
      qlenBytes: Number((word >> 47n) & BigInt(2 ** INT_QLEN_BITS - 1)) * INT_QLEN_UNIT,
    });
  }
  return hops;
}

/** Ethernet and IPv4 headers for an IP packet of `ipBytes`; Ethernet pads short frames after it (IP lengths do not count the pad). */
function ipv4Packet(frame: Frame, ipBytes: number, protocol: number): { bytes: Uint8Array; view: DataView } {
  const bytes = new Uint8Array(Math.max(ETHERNET_BYTES + ipBytes, MIN_FRAME_BYTES - FCS_BYTES));
  const view = new DataView(bytes.buffer);
  writeEthernet(view, frame.dstMac, frame.srcMac, ETHERTYPE_IPV4);
  const ip = ETHERNET_BYTES;
  view.setUint8(ip, IPV4_VERSION_IHL);
  view.setUint8(ip + 1, (frame.dscp << 2) | frame.ecn);
  view.setUint16(ip + 2, ipBytes);
  view.setUint16(ip + 4, frame.ipId);
  view.setUint16(ip + 6, IPV4_DONT_FRAGMENT);
  view.setUint8(ip + 8, frame.ttl);
  view.setUint8(ip + 9, protocol);
  view.setUint32(ip + 12, frame.srcIp);
  view.setUint32(ip + 16, frame.dstIp);
  view.setUint16(ip + 10, ipv4Checksum(view, ip));
  return { bytes, view };
}

/**
 * A TCP segment or pure ACK (issue 14): source port the connection's entropy, destination port
 * 5001, ACK (and PSH with data), ECE for DCTCP's echo, a 64 KiB window, the timestamps option
 * zeroed, zero payload bytes, and a correct checksum over the pseudo-header. A host stream's
 * segment (`tcpFlags` set, issue 25) writes its own destination port, flags and bytes instead.
 */
function encodeTcp(frame: Frame): Uint8Array {
  for (const [field, bits] of Object.entries(TCP_FIELD_BITS)) {
    const value = frame[field as keyof typeof TCP_FIELD_BITS];
    if (!isUint(value, 2 ** bits - 1)) refuse(field, bitsExpected(bits), value);
  }
  if (!isUint(frame.tcpDstPort, 0xffff)) refuse('tcpDstPort', bitsExpected(16), frame.tcpDstPort);
  if (!isUint(frame.tcpFlags, 0xff)) refuse('tcpFlags', bitsExpected(8), frame.tcpFlags);
  const stream = frame.tcpFlags !== 0;
  const payloadBytes = frame.kind === FrameKind.tcpData ? frame.payloadBytes : 0;
  const ipBytes = IPV4_BYTES + TCP_BYTES + payloadBytes;
  if (ipBytes > 0xffff) refuse('payloadBytes', `at most ${0xffff - IPV4_BYTES - TCP_BYTES} (an IPv4 packet has at most 65535 bytes)`, payloadBytes);
  const { bytes, view } = ipv4Packet(frame, ipBytes, IP_PROTOCOL_TCP);
  const tcp = ETHERNET_BYTES + IPV4_BYTES;
  view.setUint16(tcp, frame.udpSrcPort);
  view.setUint16(tcp + 2, stream ? frame.tcpDstPort : TCP_DST_PORT);
  view.setUint32(tcp + 4, frame.tcpSeq);
  view.setUint32(tcp + 8, frame.tcpAck);
  view.setUint8(tcp + 12, (TCP_BYTES / 4) << 4);
  view.setUint8(tcp + 13, stream ? frame.tcpFlags : TCP_ACK | (payloadBytes > 0 ? TCP_PSH : 0) | (frame.becn ? TCP_ECE : 0));
  view.setUint16(tcp + 14, 0xffff);
  view.setUint8(tcp + 20, 1); // NOP, NOP, timestamps (kind 8, length 10)
  view.setUint8(tcp + 21, 1);
  view.setUint8(tcp + 22, 8);
  view.setUint8(tcp + 23, 10);
  const data = stream ? frame.rdma?.data : undefined;
  if (data !== undefined && data.length > 0) bytes.set(data.subarray(0, payloadBytes), tcp + TCP_BYTES);
  let sum = (frame.srcIp >>> 16) + (frame.srcIp & 0xffff) + (frame.dstIp >>> 16) + (frame.dstIp & 0xffff) + IP_PROTOCOL_TCP + TCP_BYTES + payloadBytes;
  // Over the header and the payload (zeros but for a stream's bytes; an odd last byte is padded with a zero, RFC 9293 §3.1).
  const end = tcp + TCP_BYTES + (data === undefined ? 0 : payloadBytes);
  for (let at = tcp; at < end; at += 2) sum += at + 1 < end ? view.getUint16(at) : view.getUint8(at) << 8;
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  view.setUint16(tcp + 16, ~sum & 0xffff);
  return bytes;
}

/**
 * A credit update has no Ethernet encoding (InfiniBand sends a 6-byte flow control packet per VL,
 * IBA vol. 1 §7.9.4.2): the capture writes it to the PFC multicast address with the IEEE local
 * experimental EtherType 0x88B5 and, per lane it speaks for, the IBA packet's first 4 bytes —
 * Op 0 (normal), FCTBS 0 (not tracked by the receiver), VL, FCCL — padded to a minimum frame.
 */
function encodeCredit(frame: Frame, srcMac: number): Uint8Array {
  if (!isUint(srcMac, 2 ** 48 - 1)) refuse('srcMac (or srcMacForPfc)', bitsExpected(48), srcMac);
  const fccl = frame.pfcQuanta;
  if (fccl.length !== PFC_PRIORITIES) refuse('pfcQuanta', `exactly ${PFC_PRIORITIES} FCCLs on a credit frame`, fccl.length);
  const bytes = new Uint8Array(MIN_FRAME_BYTES - FCS_BYTES);
  const view = new DataView(bytes.buffer);
  writeEthernet(view, PFC_DST_MAC, srcMac, 0x88b5);
  let at = ETHERNET_BYTES;
  for (let lane = 0; lane < PFC_PRIORITIES; lane++) {
    if ((frame.pfcEnable & (1 << lane)) === 0) continue;
    if (!isUint(fccl[lane]!, 0xfff)) refuse(`pfcQuanta[${lane}]`, bitsExpected(12), fccl[lane]!);
    view.setUint16(at, 0); // Op 0, FCTBS 0
    view.setUint16(at + 2, (lane << 12) | fccl[lane]!);
    at += 4;
  }
  return bytes;
}

function encodePfc(frame: Frame, srcMac: number): Uint8Array {
  if (!isUint(srcMac, 2 ** 48 - 1)) refuse('srcMac (or srcMacForPfc)', bitsExpected(48), srcMac);
  if (!isUint(frame.pfcEnable, 0xff)) refuse('pfcEnable', bitsExpected(8), frame.pfcEnable);
  const quanta = frame.pfcQuanta;
  if (quanta.length !== PFC_PRIORITIES) refuse('pfcQuanta', `exactly ${PFC_PRIORITIES} quanta on a PFC frame`, quanta.length);
  const bytes = new Uint8Array(MIN_FRAME_BYTES - FCS_BYTES); // 34 bytes of fields, then zero padding
  const view = new DataView(bytes.buffer);
  writeEthernet(view, PFC_DST_MAC, srcMac, ETHERTYPE_MAC_CONTROL);
  view.setUint16(ETHERNET_BYTES, PFC_OPCODE);
  view.setUint16(ETHERNET_BYTES + 2, frame.pfcEnable); // class-enable vector: the high byte is reserved
  for (let p = 0; p < PFC_PRIORITIES; p++) {
    if (!isUint(quanta[p]!, 0xffff)) refuse(`pfcQuanta[${p}]`, bitsExpected(16), quanta[p]!);
    view.setUint16(ETHERNET_BYTES + 4 + 2 * p, quanta[p]!);
  }
  return bytes;
}

function writeEthernet(view: DataView, dstMac: number, srcMac: number, etherType: number): void {
  setUint48(view, 0, dstMac);
  setUint48(view, 6, srcMac);
  view.setUint16(12, etherType);
}

/** Big-endian, like every header field here; values above 32 bits exceed JS bit operators. */
function setUint48(view: DataView, at: number, value: number): void {
  view.setUint16(at, Math.floor(value / 2 ** 32));
  view.setUint32(at + 2, value % 2 ** 32);
}

/** The opcodes with an ImmDt header. */
function carriesImmediate(opcode: number): boolean {
  return opcode === Opcode.sendLastImmediate || opcode === Opcode.sendOnlyImmediate || opcode === Opcode.writeLastImmediate || opcode === Opcode.writeOnlyImmediate;
}

/** The RETH's or AtomicETH's first 12 bytes: the 64-bit virtual address and the R_Key. */
function writeVaKey(view: DataView, at: number, va: number, rkey: number): void {
  if (!Number.isSafeInteger(va) || va < 0) refuse('rdma.va', 'a safe non-negative integer', va);
  if (!isUint(rkey, 0xffff_ffff)) refuse('rdma.rkey', bitsExpected(32), rkey);
  view.setBigUint64(at, BigInt(va));
  view.setUint32(at + 8, rkey);
}

function setUint24(view: DataView, at: number, value: number): void {
  view.setUint8(at, value >>> 16);
  view.setUint16(at + 1, value & 0xffff);
}

/** RFC 791/1071: the ones' complement of the ones' complement sum of the header's 16-bit words (checksum field 0). */
function ipv4Checksum(view: DataView, ip: number): number {
  let sum = 0;
  for (let at = ip; at < ip + IPV4_BYTES; at += 2) sum += view.getUint16(at);
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return ~sum & 0xffff;
}

/** CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), the CRC the ICRC uses. */
const CRC32_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
})();

function crc32Update(crc: number, bytes: Uint8Array, start: number, end: number): number {
  for (let i = start; i < end; i++) crc = CRC32_TABLE[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return crc;
}

/**
 * The ICRC of a RoCEv2 packet: Ethernet II, IPv4 without options, UDP, IB transport headers,
 * payload, and 4 ICRC bytes at the end of the IP packet (their value is ignored). As IBA
 * A17.3.3 and Linux `rxe_icrc.c` compute it: CRC-32 over 8 bytes of 0xFF (the masked LRH),
 * the IPv4 header with TOS, TTL and checksum set to ones, the UDP header with its checksum set
 * to ones, the BTH with byte 4 (FECN, BECN, resv6a) set to ones, then the rest up to the ICRC.
 * The ICRC is sent least significant byte first (`DataView.setUint32(at, icrc, true)`).
 */
export function roceIcrc(packet: Uint8Array): number {
  const ip = ETHERNET_BYTES;
  const end = ip + ((packet[ip + 2]! << 8) | packet[ip + 3]!) - ICRC_BYTES;
  if (packet.length < ip + MASKED_BYTES || end < ip + MASKED_BYTES || end + ICRC_BYTES > packet.length) {
    throw new RangeError(`roceIcrc: expected an Ethernet + IPv4 + UDP + BTH packet whose IP length fits it, got ${packet.length} bytes`);
  }
  const masked = new Uint8Array(8 + MASKED_BYTES).fill(0xff, 0, 8);
  masked.set(packet.subarray(ip, ip + MASKED_BYTES), 8);
  const at = 8;
  masked[at + 1] = 0xff; // TOS: DSCP and ECN
  masked[at + 8] = 0xff; // TTL
  masked.fill(0xff, at + 10, at + 12); // IPv4 checksum
  masked.fill(0xff, at + IPV4_BYTES + 6, at + IPV4_BYTES + 8); // UDP checksum
  masked[at + IPV4_BYTES + UDP_BYTES + 4] = 0xff; // BTH FECN, BECN, resv6a
  const crc = crc32Update(0xffffffff, masked, 0, masked.length);
  return ~crc32Update(crc, packet, ip + MASKED_BYTES, end) >>> 0;
}
