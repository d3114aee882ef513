/**
 * One TCP connection's sending side as the host sees it (issue 14): messages written to a byte
 * stream, each complete once the peer acknowledges its last byte. The stream is a `TcpSender`;
 * this class adds what the host needs around it — the messages and their completions, the send
 * side of the host stack latency (a write reaches the stream only after the application is
 * scheduled and the write crosses the kernel), and the same read-outs an RC requester gives
 * the NIC's metrics, reports and traces (`RequesterView`).
 *
 * Deterministic and clocked from outside like the RC state machines: the NIC asks for segments,
 * hands in ACKs (their sequence numbers already unwrapped) and calls `onTimer` at `deadlinePs()`.
 */
import type { Completion, WorkOpcode } from '@rocelab/rnic';
import { TcpSender, type TcpConfig, type TcpSegment } from './tcp.js';

/** What the NIC, the metrics and the traces read of a QP's sending side, RDMA or TCP. */
export interface RequesterView {
  readonly stats: {
    packetsSent: number;
    retransmittedPackets: number;
    rtoExpirations: number;
    completed: number;
    completedBytes: number;
    failed: number;
    naksReceived: { seq: number; rnr: number; fatal: number };
  };
  readonly headWrId: number | null;
  ackedBytes(wrId: number): number;
  readonly lastProgressPs: number | null;
}

interface Pending {
  id: number;
  sizeBytes: number;
  postedPs: number;
  /** When the write reaches the stream (post + scheduling + send latency). */
  atPs: number;
}

interface Written extends Pending {
  /** Stream offsets of its first byte and one past its last. */
  startByte: number;
  endByte: number;
}

export class TcpRequester implements RequesterView {
  readonly stats = { packetsSent: 0, retransmittedPackets: 0, rtoExpirations: 0, completed: 0, completedBytes: 0, failed: 0, naksReceived: { seq: 0, rnr: 0, fatal: 0 }, readRetries: 0 };
  readonly sender: TcpSender;
  /** Posted, not yet in the stream (in post order, so in `atPs` order: the latency is fixed). */
  private readonly pending: Pending[] = [];
  /** In the stream, not yet acknowledged, oldest first. */
  private readonly written: Written[] = [];
  private streamBytes = 0;
  private progressPs: number | null = null;

  constructor(
    config: TcpConfig,
    /** Post to stream: the application's scheduling plus the send crossing of the kernel. */
    private readonly writeLatencyPs: number,
  ) {
    this.sender = new TcpSender(config);
  }

  get headWrId(): number | null {
    return this.written[0]?.id ?? this.pending[0]?.id ?? null;
  }

  get lastProgressPs(): number | null {
    return this.progressPs;
  }

  /** Bytes of an uncompleted message the peer has acknowledged. */
  ackedBytes(wrId: number): number {
    const m = this.written.find((w) => w.id === wrId);
    if (m === undefined) return 0;
    return Math.max(0, Math.min(m.endByte, this.sender.snd.una) - m.startByte);
  }

  post(wr: { id: number; opcode: WorkOpcode; sizeBytes: number; postedPs: number }): void {
    if (wr.opcode !== 'write') throw new Error(`TCP connection: message ${wr.id} is a ${wr.opcode}; a TCP stream carries writes`);
    this.pending.push({ id: wr.id, sizeBytes: wr.sizeBytes, postedPs: wr.postedPs, atPs: wr.postedPs + this.writeLatencyPs });
  }

  hasSegment(nowPs: number): boolean {
    this.admit(nowPs);
    return this.sender.hasSegment();
  }

  nextSegment(nowPs: number): TcpSegment | null {
    this.admit(nowPs);
    const seg = this.sender.nextSegment(nowPs);
    if (seg !== null) {
      this.stats.packetsSent++;
      if (seg.retransmission) this.stats.retransmittedPackets++;
    }
    return seg;
  }

  /** A cumulative ACK of the stream up to `ack` (unwrapped), with its ECE flag: the messages it completes. */
  onAck(nowPs: number, ack: number, ece: boolean): Completion[] {
    if (this.sender.onAck(nowPs, ack, ece) > 0) this.progressPs = nowPs;
    return this.completeUpTo(nowPs, this.sender.snd.una);
  }

  /** The RTO, or the next write to reach the stream. */
  deadlinePs(): number | null {
    const rto = this.sender.deadlinePs();
    const next = this.pending[0]?.atPs ?? null;
    if (rto === null) return next;
    return next === null ? rto : Math.min(rto, next);
  }

  onTimer(nowPs: number): Completion[] {
    const before = this.sender.stats.rtoExpirations;
    this.sender.onTimer(nowPs);
    this.stats.rtoExpirations += this.sender.stats.rtoExpirations - before;
    this.admit(nowPs);
    // A 0-byte message admitted behind acknowledged data is complete at once.
    return this.completeUpTo(nowPs, this.sender.snd.una);
  }

  /** Writes whose time has come enter the stream. */
  private admit(nowPs: number): void {
    while (this.pending.length > 0 && this.pending[0]!.atPs <= nowPs) {
      const p = this.pending.shift()!;
      const startByte = this.streamBytes;
      this.streamBytes += p.sizeBytes;
      if (p.sizeBytes > 0) this.sender.write(p.sizeBytes);
      this.written.push({ ...p, startByte, endByte: this.streamBytes });
    }
  }

  private completeUpTo(nowPs: number, una: number): Completion[] {
    let n = 0;
    while (n < this.written.length && this.written[n]!.endByte <= una) n++;
    if (n === 0) return [];
    const done = this.written.splice(0, n);
    this.stats.completed += n;
    return done.map((m) => {
      this.stats.completedBytes += m.sizeBytes;
      return { wrId: m.id, opcode: 'write', sizeBytes: m.sizeBytes, postedPs: m.postedPs, completedPs: nowPs, status: 'success' };
    });
  }
}

/** A 32-bit wire sequence number as the stream offset nearest `near` (streams are far shorter than 2^31 bytes apart). */
export function unwrapSeq(wire: number, near: number): number {
  const delta = ((wire - near) % 2 ** 32 + 2 ** 32) % 2 ** 32;
  return delta >= 2 ** 31 ? near + delta - 2 ** 32 : near + delta;
}
