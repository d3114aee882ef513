/**
 * Frames between the threads of one process (`--threads K`), as fixed little-endian records.
 *
 * Why not the protobuf envelope the members speak: between threads the peer is this very program,
 * so there is nothing to validate, and a profile of two threads put a fifth of a thread's own time
 * outside its engine into building, checking and reading protobuf objects. A record is the frame's
 * fields in a fixed order, each number a float64 (so every value a field can hold, integer or not,
 * comes back exact), then its variable parts with their lengths: PFC quanta, INT hops, and the
 * RDMA fields with their bytes. Sockets keep protobuf: what crosses a socket is checked.
 */
import { NO_HOPS, newFrame, type Frame, type FrameKind, type IntHop, type IntMode, type RdmaFields } from './frame.js';

const INITIAL_BYTES = 64 * 1024;
/** The frame's numbers written as float64s, in the order `frame` writes them. */
const FIXED_FIELDS = 27;

/** Appends numbers, byte strings and frames to a buffer that grows as needed, reused message after message. */
export class RecordWriter {
  private bytes = new Uint8Array(INITIAL_BYTES);
  private view = new DataView(this.bytes.buffer);
  /** Bytes written since the last `reset`. */
  length = 0;

  reset(): void {
    this.length = 0;
  }

  /** What was written since the last `reset` (a view: valid until the next write). */
  get written(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }

  f64(value: number): void {
    this.room(8);
    this.view.setFloat64(this.length, value, true);
    this.length += 8;
  }

  u32(value: number): void {
    this.room(4);
    this.view.setUint32(this.length, value, true);
    this.length += 4;
  }

  byteString(value: Uint8Array): void {
    this.u32(value.length);
    this.room(value.length);
    this.bytes.set(value, this.length);
    this.length += value.length;
  }

  frame(f: Frame): void {
    this.room(FIXED_FIELDS * 8);
    const v = this.view;
    const o = this.length;
    v.setFloat64(o, f.kind, true);
    v.setFloat64(o + 8, f.srcMac, true);
    v.setFloat64(o + 16, f.dstMac, true);
    v.setFloat64(o + 24, f.srcIp, true);
    v.setFloat64(o + 32, f.dstIp, true);
    v.setFloat64(o + 40, f.dscp, true);
    v.setFloat64(o + 48, f.ecn, true);
    v.setFloat64(o + 56, f.ipId, true);
    v.setFloat64(o + 64, f.ttl, true);
    v.setFloat64(o + 72, f.udpSrcPort, true);
    v.setFloat64(o + 80, f.udpDstPort, true);
    v.setFloat64(o + 88, f.opcode, true);
    v.setFloat64(o + 96, f.destQp, true);
    v.setFloat64(o + 104, f.psn, true);
    v.setFloat64(o + 112, f.ackReq ? 1 : 0, true);
    v.setFloat64(o + 120, f.becn ? 1 : 0, true);
    v.setFloat64(o + 128, f.syndrome, true);
    v.setFloat64(o + 136, f.msn, true);
    v.setFloat64(o + 144, f.sackPsn, true);
    v.setFloat64(o + 152, f.tcpSeq, true);
    v.setFloat64(o + 160, f.tcpAck, true);
    v.setFloat64(o + 168, f.tcpDstPort, true);
    v.setFloat64(o + 176, f.tcpFlags, true);
    v.setFloat64(o + 184, f.dmaLength, true);
    v.setFloat64(o + 192, f.payloadBytes, true);
    v.setFloat64(o + 200, f.pfcEnable, true);
    v.setFloat64(o + 208, f.intTsPs, true);
    this.length = o + FIXED_FIELDS * 8;
    this.u32(f.pfcQuanta.length);
    for (const q of f.pfcQuanta) this.f64(q);
    this.u32(f.intMode);
    this.u32(f.int.length);
    for (const hop of f.int) {
      this.f64(hop.qlenBytes);
      this.f64(hop.txBytes);
      this.f64(hop.tsPs);
      this.f64(hop.lineRateBps);
    }
    const r = f.rdma;
    this.u32(r === null ? 0 : 1);
    if (r === null) return;
    this.f64(r.va);
    this.f64(r.rkey);
    this.byteString(r.data);
    this.f64(r.immediate);
    this.byteString(r.operand);
    this.byteString(r.swap);
    this.byteString(r.original);
  }

  private room(bytes: number): void {
    if (this.length + bytes <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + bytes));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
    this.view = new DataView(grown.buffer);
  }
}

/** Reads back, in the same order, what a `RecordWriter` wrote. */
export class RecordReader {
  private readonly view: DataView;
  offset = 0;

  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get done(): boolean {
    return this.offset >= this.bytes.length;
  }

  f64(): number {
    const value = this.view.getFloat64(this.offset, true);
    this.offset += 8;
    return value;
  }

  u32(): number {
    const value = this.view.getUint32(this.offset, true);
    this.offset += 4;
    return value;
  }

  byteString(): Uint8Array {
    const n = this.u32();
    const value = this.bytes.slice(this.offset, this.offset + n);
    this.offset += n;
    return value;
  }

  frame(): Frame {
    const f = newFrame(this.f64() as FrameKind);
    f.srcMac = this.f64();
    f.dstMac = this.f64();
    f.srcIp = this.f64();
    f.dstIp = this.f64();
    f.dscp = this.f64();
    f.ecn = this.f64();
    f.ipId = this.f64();
    f.ttl = this.f64();
    f.udpSrcPort = this.f64();
    f.udpDstPort = this.f64();
    f.opcode = this.f64();
    f.destQp = this.f64();
    f.psn = this.f64();
    f.ackReq = this.f64() === 1;
    f.becn = this.f64() === 1;
    f.syndrome = this.f64();
    f.msn = this.f64();
    f.sackPsn = this.f64();
    f.tcpSeq = this.f64();
    f.tcpAck = this.f64();
    f.tcpDstPort = this.f64();
    f.tcpFlags = this.f64();
    f.dmaLength = this.f64();
    f.payloadBytes = this.f64();
    f.pfcEnable = this.f64();
    f.intTsPs = this.f64();
    const quanta = this.u32();
    if (quanta > 0) {
      f.pfcQuanta = new Array<number>(quanta);
      for (let i = 0; i < quanta; i++) f.pfcQuanta[i] = this.f64();
    }
    f.intMode = this.u32() as IntMode;
    const hops = this.u32();
    f.int = hops === 0 ? NO_HOPS : [];
    for (let i = 0; i < hops; i++) f.int.push({ qlenBytes: this.f64(), txBytes: this.f64(), tsPs: this.f64(), lineRateBps: this.f64() } satisfies IntHop);
    if (this.u32() === 1) {
      f.rdma = { va: this.f64(), rkey: this.f64(), data: this.byteString(), immediate: this.f64(), operand: this.byteString(), swap: this.byteString(), original: this.byteString() } satisfies RdmaFields;
    }
    return f;
  }
}

