/**
 * The emulated frame: header fields, with lengths standing for the bytes (DESIGN §4), except on
 * memory-backed queue pairs, whose frames carry their bytes in `rdma`.
 * Field names and meanings match `proto/rocelab.proto` message `Frame`.
 */

/** What a frame is; selects which header groups are meaningful. */
export const FrameKind = {
  data: 1,
  ack: 2,
  cnp: 3,
  pfc: 4,
  /** A TCP segment with data (issue 14: a host's TCP-like transport beside RoCE). */
  tcpData: 5,
  /** A pure TCP ACK; `becn` is its ECE flag (DCTCP). */
  tcpAck: 6,
  /**
   * A credit update of a link in credit flow control (issue 14; IBA vol. 1 §7.9.4 flow control
   * packets): link control like PFC, never forwarded. `pfcEnable` has a bit per virtual lane it
   * speaks for and `pfcQuanta[lane]` carries that lane's FCCL (12 bits).
   */
  credit: 7,
} as const;
export type FrameKind = (typeof FrameKind)[keyof typeof FrameKind];

/** RC opcodes (IBTA; Linux `include/rdma/ib_pack.h`) and the RoCEv2 CNP opcode (PHYSICS §5.1). */
export const Opcode = {
  sendFirst: 0x00,
  sendMiddle: 0x01,
  sendLast: 0x02,
  sendLastImmediate: 0x03,
  sendOnly: 0x04,
  sendOnlyImmediate: 0x05,
  writeFirst: 0x06,
  writeMiddle: 0x07,
  writeLast: 0x08,
  writeLastImmediate: 0x09,
  writeOnly: 0x0a,
  writeOnlyImmediate: 0x0b,
  readRequest: 0x0c,
  readResponseFirst: 0x0d,
  readResponseMiddle: 0x0e,
  readResponseLast: 0x0f,
  readResponseOnly: 0x10,
  acknowledge: 0x11,
  atomicAcknowledge: 0x12,
  compareSwap: 0x13,
  fetchAdd: 0x14,
  cnp: 0x81,
} as const;

/** TCP header flags (RFC 9293 §3.1), as a host stream's segment carries them in `tcpFlags`. */
export const TcpFlag = { fin: 0x01, syn: 0x02, rst: 0x04, psh: 0x08, ack: 0x10, ece: 0x40 } as const;

/** ECN codepoints of the IPv4 header (RFC 3168). */
export const Ecn = { notEct: 0, ect1: 1, ect0: 2, ce: 3 } as const;

/** 802.1Qbb: eight priorities, one quantum = 512 bit times, 0xFFFF the largest pause. */
export const PFC_PRIORITIES = 8;
export const PFC_QUANTUM_BITS = 512;
export const PFC_MAX_QUANTA = 0xffff;

export interface Frame {
  kind: FrameKind;
  srcMac: number;
  dstMac: number;
  srcIp: number;
  dstIp: number;
  dscp: number;
  ecn: number;
  ipId: number;
  ttl: number;
  udpSrcPort: number;
  /** UDP destination port; 0 is RoCEv2's 4791 (so frames made before it existed are unchanged). */
  udpDstPort: number;
  opcode: number;
  destQp: number;
  psn: number;
  ackReq: boolean;
  becn: boolean;
  syndrome: number;
  msn: number;
  /** Selective repeat (IRN) NAK: the out-of-order PSN the receiver holds (its SACK); 0 otherwise. */
  sackPsn: number;
  /** TCP (kinds tcpData, tcpAck): the sequence number of the segment's first byte and the cumulative ACK, both 32 bits and wrapping. */
  tcpSeq: number;
  tcpAck: number;
  /**
   * A host stream's segment (issue 25, packages/host/src/streams.ts): its TCP destination port
   * (the source port is `udpSrcPort`) and its TCP flags (`TcpFlag`), never 0 on such a segment,
   * whose bytes are in `rdma.data`. Both 0 on the planned TCP connections' frames (port 5001,
   * flags derived by the pcap encoder).
   */
  tcpDstPort: number;
  tcpFlags: number;
  dmaLength: number;
  payloadBytes: number;
  pfcEnable: number;
  /** Exactly 8 entries for PFC frames, empty otherwise. */
  pfcQuanta: number[];
  /** Memory-backed queue pairs only (addresses, keys, bytes); null on every other frame. Never mutated once sent. */
  rdma: RdmaFields | null;
  /**
   * HPCC's INT header (HPCC ns-3 int-header.h `IntHeader`, issue 26), on data and ACK frames of
   * QPs whose NIC runs `cc: hpcc` (`IntMode.hops`) or `cc: timely` (`IntMode.ts`); `IntMode.none`
   * (0) on every other frame, which then has no INT bytes on the wire (`intHeaderBytes`).
   */
  intMode: IntMode;
  /**
   * `IntMode.hops`: one record per switch egress the data packet left by, at most
   * `INT_MAX_HOPS` (HPCC switch-node.cc `SwitchNotifyDequeue` → `IntHeader::PushHop`); an ACK
   * carries its data packet's (rdma-hw.cc `ReceiveUdp`: `seqh.SetIntHeader(ch.udp.ih)`). A new
   * array for every stamp: never mutated once sent. Empty otherwise.
   */
  int: IntHop[];
  /** `IntMode.ts`: the data packet's send time, echoed by its ACK (IntHeader TS mode, TIMELY); 0 otherwise. */
  intTsPs: number;
}

/** Which INT header a frame carries (HPCC ns-3 `IntHeader::Mode`: NORMAL is `hops`, TS is `ts`). */
export const IntMode = { none: 0, hops: 1, ts: 2 } as const;
export type IntMode = (typeof IntMode)[keyof typeof IntMode];

/** HPCC `IntHeader::maxHop`. */
export const INT_MAX_HOPS = 5;

/**
 * One switch's INT record, in the units HPCC's `IntHop` decodes to (int-header.h `GetQlen`,
 * `GetBytes`, `GetTime`, `GetLineRate`): the egress queue's bytes and the port's transmitted
 * bytes as the record's fields hold them (quantised and wrapped, `intHop` in @rocelab/switch),
 * the time (wrapped at 2^24 ns) and the port's line rate.
 */
export interface IntHop {
  qlenBytes: number;
  txBytes: number;
  tsPs: number;
  lineRateBps: number;
}

/**
 * What only the frames of memory-backed QPs carry (`RdmaFields` in the proto): the RETH or
 * AtomicETH address and key, the payload's bytes, the immediate data, the atomic operands and
 * the Atomic ACK's original value. 64-bit values are 8 little-endian bytes, as on the wire
 * (`u64Bytes`, `u64Of`); an absent one is empty.
 */
export interface RdmaFields {
  va: number;
  rkey: number;
  /** The packet's payload, `payloadBytes` long; empty when it carries none. */
  data: Uint8Array;
  immediate: number;
  operand: Uint8Array;
  swap: Uint8Array;
  original: Uint8Array;
}

/** The absent bytes field (shared: never written to). */
export const NO_BYTES = new Uint8Array(0);

export function rdmaFields(fields: Partial<RdmaFields>): RdmaFields {
  return Object.assign({ va: 0, rkey: 0, data: NO_BYTES, immediate: 0, operand: NO_BYTES, swap: NO_BYTES, original: NO_BYTES }, fields);
}

/** A 64-bit unsigned value as 8 little-endian bytes (`BigInt.asUintN(64, …)` first). */
export function u64Bytes(value: bigint): Uint8Array {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setBigUint64(0, BigInt.asUintN(64, value), true);
  return bytes;
}

/** 8 little-endian bytes as a value; empty is 0. */
export function u64Of(bytes: Uint8Array): bigint {
  return bytes.length === 0 ? 0n : new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true);
}

const NO_QUANTA = Object.freeze([]) as unknown as number[];
/** The absent INT stack (shared and frozen: stamping makes a new array). */
export const NO_HOPS = Object.freeze([]) as unknown as IntHop[];

/**
 * A frame with every field present (monomorphic objects keep the hot path fast). The literal
 * comes first and the overrides are assigned onto it: a spread costs ~10× more per call.
 */
export function newFrame(kind: FrameKind, fields?: Partial<Frame>): Frame {
  const frame: Frame = {
    kind,
    srcMac: 0,
    dstMac: 0,
    srcIp: 0,
    dstIp: 0,
    dscp: 0,
    ecn: 0,
    ipId: 0,
    ttl: 64,
    udpSrcPort: 0,
    udpDstPort: 0,
    opcode: 0,
    destQp: 0,
    psn: 0,
    ackReq: false,
    becn: false,
    syndrome: 0,
    msn: 0,
    sackPsn: 0,
    tcpSeq: 0,
    tcpAck: 0,
    tcpDstPort: 0,
    tcpFlags: 0,
    dmaLength: 0,
    payloadBytes: 0,
    pfcEnable: 0,
    pfcQuanta: NO_QUANTA,
    rdma: null,
    intMode: IntMode.none,
    int: NO_HOPS,
    intTsPs: 0,
  };
  return fields === undefined ? frame : Object.assign(frame, fields);
}

/** A copy that shares nothing mutable with the original (flooding makes new packets). */
export function cloneFrame(frame: Frame): Frame {
  return { ...frame, pfcQuanta: frame.pfcQuanta.length === 0 ? NO_QUANTA : frame.pfcQuanta.slice() };
}

/**
 * A PFC frame (MAC control opcode 0x0101) pausing each priority whose bit is set in
 * `enable` for `quanta[p]` quanta; 0 quanta with the bit set means resume (XON).
 */
export function pfcFrame(enable: number, quanta: readonly number[]): Frame {
  if (quanta.length !== PFC_PRIORITIES) throw new Error(`PFC frame needs 8 quanta, got ${quanta.length}`);
  for (const q of quanta) if (!(Number.isInteger(q) && q >= 0 && q <= PFC_MAX_QUANTA)) throw new RangeError(`PFC quanta must be 0..65535, got ${q}`);
  return newFrame(FrameKind.pfc, { pfcEnable: enable & 0xff, pfcQuanta: quanta.slice(), ttl: 0 });
}

/** A credit update: `fccl[lane]` (0..4095) for each lane whose bit is set in `lanes`. */
export function creditFrame(lanes: number, fccl: readonly number[]): Frame {
  if (fccl.length !== PFC_PRIORITIES) throw new Error(`credit frame needs 8 FCCLs, got ${fccl.length}`);
  for (const c of fccl) if (!(Number.isInteger(c) && c >= 0 && c <= MAX_FCCL)) throw new RangeError(`FCCL must be 0..4095, got ${c}`);
  return newFrame(FrameKind.credit, { pfcEnable: lanes & 0xff, pfcQuanta: fccl.slice(), ttl: 0 });
}

/** FCCL is a 12-bit field (IBA vol. 1 §7.9.4). */
export const MAX_FCCL = 0xfff;

export function isWriteOpcode(opcode: number): boolean {
  return opcode >= Opcode.writeFirst && opcode <= Opcode.writeOnlyImmediate;
}

/** The first packet of a WRITE, and a READ request, carry a RETH (16 B). */
export function carriesReth(opcode: number): boolean {
  return opcode === Opcode.writeFirst || opcode === Opcode.writeOnly || opcode === Opcode.writeOnlyImmediate || opcode === Opcode.readRequest;
}

/** READ responses FIRST, LAST and ONLY carry an AETH (MIDDLE none). */
export function isReadResponseWithAeth(opcode: number): boolean {
  return opcode === Opcode.readResponseFirst || opcode === Opcode.readResponseLast || opcode === Opcode.readResponseOnly;
}
