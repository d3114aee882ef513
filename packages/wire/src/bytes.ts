/**
 * How many bytes a frame occupies on the wire (DESIGN §5).
 *
 * `rocelab` (the default accounting, every profile but `hpcc-ns3`): a RoCEv2 data packet is
 * payload + 62 B of headers (Ethernet 14, IPv4 20, UDP 8, BTH 12, ICRC 4, FCS 4), + the
 * transport headers its opcode has (`extensionBytes`: 16 B RETH on the first packet of a WRITE
 * and on a READ request, 4 B ImmDt, 4 B AETH on READ responses, 28 B AtomicETH), the payload
 * padded to a multiple of 4 B (the BTH's PadCnt, IBTA §9.2: a 1 B payload travels as 4);
 * ACK/NAK 62 + 4 (AETH), an Atomic ACK 8 B more (AtomicAckETH); CNP 62 + 16 reserved; PFC 64.
 * A TCP segment is its payload + 70 B (Ethernet 14, IPv4 20, TCP 20 with 12 B of timestamps,
 * FCS 4). Frames shorter than Ethernet's 64 B minimum are padded. Serialization adds 20 B of
 * preamble, SFD and inter-frame gap per frame.
 *
 * `hpcc-ns3`: payload + 48 B and no gap, as that simulator counts (PHYSICS §7).
 *
 * A data or ACK frame with an INT header (`intMode`, issue 26: `cc: hpcc` or `timely`) is longer
 * by that header, in both accountings, as HPCC's `CustomHeader` is (`intHeaderBytes`).
 */
import { FrameKind, IntMode, Opcode, type Frame } from './frame.js';

export type ByteAccounting = 'rocelab' | 'hpcc-ns3';

export const ROCE_HEADER_BYTES = 62;
export const RETH_BYTES = 16;
export const AETH_BYTES = 4;
export const IMMDT_BYTES = 4;
export const ATOMIC_ETH_BYTES = 28;
export const ATOMIC_ACK_ETH_BYTES = 8;
export const CNP_RESERVED_BYTES = 16;
export const PFC_FRAME_BYTES = 64;
export const MIN_FRAME_BYTES = 64;
export const PREAMBLE_AND_GAP_BYTES = 20;
export const HPCC_HEADER_BYTES = 48;
/** A TCP segment: Ethernet 14, IPv4 20, TCP 20 + 12 of timestamps option (Linux's default), FCS 4. */
export const TCP_HEADER_BYTES = 70;

/**
 * The transport headers between a request's (or READ response's) BTH and its payload, by RC
 * opcode (IBA vol 1 §9.2, Table 38): RETH on a WRITE's first or only packet and on a READ
 * request, ImmDt on the opcodes with immediate, AETH on READ responses but MIDDLE, AtomicETH on
 * atomic requests. A table: this is read for every frame.
 */
const EXTENSION_BYTES = (() => {
  const table = new Uint8Array(256);
  const add = (opcodes: readonly number[], bytes: number) => {
    for (const op of opcodes) table[op] = table[op]! + bytes;
  };
  add([Opcode.writeFirst, Opcode.writeOnly, Opcode.writeOnlyImmediate, Opcode.readRequest], RETH_BYTES);
  add([Opcode.sendLastImmediate, Opcode.sendOnlyImmediate, Opcode.writeLastImmediate, Opcode.writeOnlyImmediate], IMMDT_BYTES);
  add([Opcode.readResponseFirst, Opcode.readResponseLast, Opcode.readResponseOnly], AETH_BYTES);
  add([Opcode.compareSwap, Opcode.fetchAdd], ATOMIC_ETH_BYTES);
  return table;
})();

/** Bytes of the transport headers a data frame with this opcode has after its BTH. */
export function extensionBytes(opcode: number): number {
  return EXTENSION_BYTES[opcode & 0xff]!;
}

/** A payload with the 0–3 pad bytes IBA adds so the ICRC starts on a 4-byte boundary. */
export function paddedPayload(payloadBytes: number): number {
  return (payloadBytes + 3) & ~3;
}

/** HPCC `IntHeader::GetStaticSize`: NORMAL mode, five 8-byte hops and the 2-byte hop count; TS mode, one 8-byte time. */
export const INT_HOPS_HEADER_BYTES = 42;
export const INT_TS_HEADER_BYTES = 8;

/**
 * Bytes of the frame's INT header (HPCC `IntHeader::GetStaticSize`): on its data and ACK frames
 * only, and 0 unless the frame carries one (`intMode`), so frames without INT keep their size.
 */
export function intHeaderBytes(frame: Frame): number {
  return frame.intMode === IntMode.hops ? INT_HOPS_HEADER_BYTES : frame.intMode === IntMode.ts ? INT_TS_HEADER_BYTES : 0;
}

/** Bytes of the frame itself (destination MAC through FCS), as counters and buffers count them. */
export function frameBytes(frame: Frame, accounting: ByteAccounting = 'rocelab'): number {
  if (accounting === 'hpcc-ns3') {
    return frame.kind === FrameKind.pfc || frame.kind === FrameKind.credit ? PFC_FRAME_BYTES : frame.payloadBytes + HPCC_HEADER_BYTES + intHeaderBytes(frame);
  }
  let bytes: number;
  switch (frame.kind) {
    case FrameKind.data:
      bytes = paddedPayload(frame.payloadBytes) + ROCE_HEADER_BYTES + EXTENSION_BYTES[frame.opcode & 0xff]! + intHeaderBytes(frame);
      break;
    case FrameKind.ack:
      bytes = ROCE_HEADER_BYTES + AETH_BYTES + (frame.opcode === Opcode.atomicAcknowledge ? ATOMIC_ACK_ETH_BYTES : 0) + intHeaderBytes(frame);
      break;
    case FrameKind.cnp:
      bytes = ROCE_HEADER_BYTES + CNP_RESERVED_BYTES;
      break;
    case FrameKind.pfc:
    case FrameKind.credit: // a link-control frame of minimum size, like PFC
      bytes = PFC_FRAME_BYTES;
      break;
    case FrameKind.tcpData:
    case FrameKind.tcpAck:
      bytes = frame.payloadBytes + TCP_HEADER_BYTES;
      break;
  }
  return bytes < MIN_FRAME_BYTES ? MIN_FRAME_BYTES : bytes;
}

/** Bytes the transmitter spends on the frame: the frame plus preamble and gap (none in hpcc-ns3). */
export function serializedBytes(frame: Frame, accounting: ByteAccounting = 'rocelab'): number {
  return frameBytes(frame, accounting) + (accounting === 'hpcc-ns3' ? 0 : PREAMBLE_AND_GAP_BYTES);
}

/** The smallest number of bytes any frame occupies on the wire: the lookahead's serialization term. */
export function minSerializedBytes(accounting: ByteAccounting = 'rocelab'): number {
  return accounting === 'hpcc-ns3' ? HPCC_HEADER_BYTES : MIN_FRAME_BYTES + PREAMBLE_AND_GAP_BYTES;
}

/**
 * The largest frame a link of `mtu` payload bytes carries, in either accounting: a full payload
 * padded to 4 bytes with the longest transport headers a payload may carry (RETH + ImmDt).
 */
export function maxFrameBytes(mtu: number): number {
  return Math.max(paddedPayload(mtu) + ROCE_HEADER_BYTES + RETH_BYTES + IMMDT_BYTES, ROCE_HEADER_BYTES + ATOMIC_ETH_BYTES, MIN_FRAME_BYTES);
}
