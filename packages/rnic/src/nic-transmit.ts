/**
 * The NIC's transmit side: which frame leaves the port next. Replies (ACK/NAK/CNP, and the host
 * stack's ACKs) go first, in the order they were queued (with `ackIgnoresPause`, ACKs and NAKs
 * even while their priority is paused); then the RC requesters, the responders
 * with READ responses queued and the host's own senders (`HostQueue`) take turns, round robin,
 * each paced at its rate (`Pacer`). Without READs or TCP the turns are the requesters' alone.
 * Every frame that leaves gets the NIC's next IPv4 id.
 */
import { FrameKind, IntMode, rdmaFields, type DscpMap, type Frame } from '@rocelab/wire';
import type { NodeContext } from '@rocelab/sim';
import { frameTo, requestFields, type HostAddress } from './nic-frames.js';
import type { HostQueue, QpEnd, ReadOut, ReceiverQp, SenderQp } from './nic-types.js';
import type { Pacer } from './pacing.js';
import { psnAdd } from './psn.js';
import type { ReadResponses } from './rc-responder.js';
import { payloadOf, readResponseOpcode } from './segmentation.js';

const isFrame = (item: ReadOut | Frame): item is Frame => 'kind' in item;

export interface TransmitConfig extends HostAddress {
  dscpMap: DscpMap;
  mtu: number;
  /** ACKs and NAKs leave while their priority is paused (`nic.ackIgnoresPause`, hpcc-ns3's ACK_HIGH_PRIO 1). */
  ackIgnoresPause?: boolean;
}

export class NicTransmit {
  private readonly replies: Frame[] = [];
  /** Receivers with READ responses or replies queued behind them, in the order they got them. */
  private readonly responding: ReceiverQp[] = [];
  private hostQueues: readonly HostQueue[] = [];
  private rr = 0;
  private ipId = 0;
  /** A `dscpMisconfig` fault's re-marking: frames with DSCP `from` (null: all) leave with DSCP `to`; null: none. */
  private remark: { from: number | null; to: number } | null = null;
  /** Frames re-marked so far (a metric). */
  remarked = 0;

  /**
   * `wakeTimer`: the NIC's timer that kicks the port when a pacing gap ends; `onDataSent`: a
   * requester sent a packet (its retransmission timer follows the requester's deadline).
   */
  constructor(
    private readonly ctx: NodeContext,
    private readonly config: TransmitConfig,
    private readonly senders: readonly SenderQp[],
    private readonly pacer: Pacer,
    private readonly wakeTimer: number,
    private readonly onDataSent: (q: SenderQp) => void,
    private readonly stats: { cnpsSent: number },
    /** A QP's window of bytes in flight (null: none); absent: no QP has one, and nothing is asked. */
    private readonly windowOf?: (q: SenderQp) => number | null,
  ) {
    this.windowed = windowOf !== undefined;
  }

  private readonly windowed: boolean;

  /** rdma-queue-pair.cc `IsWinBound`: bytes in flight reached the window. */
  private windowBound(q: SenderQp): boolean {
    const w = this.windowOf!(q);
    return w !== null && q.req.inFlightBytes >= w;
  }

  /** The host's own senders (its TCP connections), taking their turns after the QPs and READ responders. */
  setHostQueues(queues: readonly HostQueue[]): void {
    this.hostQueues = queues;
  }

  /** A reply (an ACK, NAK or CNP of the NIC's, a TCP ACK of the host's stack): it goes before data. */
  queueReply(frame: Frame): void {
    this.replies.push(frame);
  }

  /** A responder's reply: it may not overtake the READ responses queued before it on its QP. */
  queueResponderReply(r: ReceiverQp, frame: Frame): void {
    if (r.out !== null && r.out.length > 0) r.out.push(frame);
    else this.replies.push(frame);
  }

  /** Queue the responses a READ request asks for (`data`: the bytes read, memory-backed QPs). */
  queueRead(r: ReceiverQp, read: ReadResponses, data: Uint8Array | null, makeReactionPoint: () => ReceiverQp['rp']): void {
    if (r.out === null) {
      r.out = [];
      r.rp = makeReactionPoint();
    }
    if (r.out.length === 0) this.responding.push(r);
    r.out.push({ read, next: 0, msn: r.resp.messageSequence, data });
  }

  nextFrame(nowPs: number, pausedMask: number): Frame | null {
    // hpcc-ns3 ACK_HIGH_PRIO 1: its hosts queue ACK/NACK (and nothing else) in queue 0, which a
    // PAUSE of the data's priority never stops (HPCC qbb-net-device.cc GetNextQindex, rdma-hw.cc ReceiveUdp).
    const ackIgnoresPause = this.config.ackIgnoresPause === true;
    for (let i = 0; i < this.replies.length; i++) {
      const reply = this.replies[i]!;
      if ((pausedMask & (1 << this.config.dscpMap[reply.dscp]!)) !== 0 && !(ackIgnoresPause && reply.kind === FrameKind.ack)) continue;
      this.replies.splice(i, 1);
      if (reply.kind === FrameKind.cnp) this.stats.cnpsSent++;
      return this.transmit(reply);
    }
    const n = this.senders.length;
    const withReads = n + this.responding.length;
    const total = withReads + this.hostQueues.length;
    let wakePs = Infinity;
    for (let k = 0; k < total; k++) {
      const i = (this.rr + k) % total;
      if (i >= withReads) {
        const t = this.hostQueues[i - withReads]!;
        if ((pausedMask & (1 << t.priority)) !== 0 || !t.ready(nowPs)) continue;
        if (t.nextSendPs > nowPs) {
          wakePs = Math.min(wakePs, t.nextSendPs);
          continue;
        }
        this.rr = (i + 1) % total;
        return this.transmit(t.take(nowPs));
      }
      if (i >= n) {
        const r = this.responding[i - n]!;
        if ((pausedMask & (1 << r.priority)) !== 0) continue;
        const head = r.out![0]!;
        if (isFrame(head)) {
          this.rr = (i + 1) % total;
          return this.transmit(this.shiftOut(r));
        }
        if (r.nextSendPs > nowPs && !this.pacer.repace(nowPs, r)) {
          wakePs = Math.min(wakePs, r.nextSendPs, r.repaceAtPs);
          continue;
        }
        this.rr = (i + 1) % total;
        return this.transmit(this.readResponseFrame(nowPs, r, head));
      }
      const q = this.senders[i]!;
      if ((pausedMask & (1 << q.priority)) !== 0 || !q.req.hasPacket(nowPs)) continue;
      // HAS_WIN (issue 26): a full window waits for an ACK, which kicks the port.
      if (this.windowed && this.windowBound(q)) continue;
      if (q.nextSendPs > nowPs && !this.pacer.repace(nowPs, q)) {
        wakePs = Math.min(wakePs, q.nextSendPs, q.repaceAtPs);
        continue;
      }
      this.rr = (i + 1) % total;
      return this.transmit(this.dataFrame(nowPs, q));
    }
    if (wakePs !== Infinity) {
      const pending = this.ctx.timerDeadlinePs(this.wakeTimer);
      if (pending === null || pending > wakePs) this.ctx.setTimer(this.wakeTimer, wakePs);
    }
    return null;
  }

  /** A new frame of `kind` on the connection `end`, addressed from this host. */
  frameTo(kind: FrameKind, end: QpEnd): Frame {
    return frameTo(this.config, kind, end);
  }

  private dataFrame(nowPs: number, q: SenderQp): Frame {
    const p = q.req.nextPacket(nowPs)!;
    if (p.retransmission) {
      const m = q.messages.get(p.wrId);
      if (m !== undefined) m.retransmittedPackets++;
    }
    // Plain stores on a fresh frame: this runs once per data packet.
    const frame = this.frameTo(FrameKind.data, q.end);
    frame.ecn = 2; // ECT(0): RoCEv2 data is ECN-capable (DCQCN)
    frame.opcode = p.opcode;
    frame.psn = p.psn;
    frame.ackReq = p.ackReq;
    frame.dmaLength = p.dmaLength;
    frame.payloadBytes = p.payloadBytes;
    if (q.app !== null) frame.rdma = requestFields(q.app.get(p.wrId)!, p.opcode, p.offsetBytes, p.payloadBytes, p.immediate);
    // HPCC asks the switches for INT records, TIMELY stamps its send time (HPCC ns-3 IntHeader NORMAL and TS modes).
    const cc = q.rp?.kind;
    if (cc === 'hpcc') frame.intMode = IntMode.hops;
    else if (cc === 'timely') {
      frame.intMode = IntMode.ts;
      frame.intTsPs = nowPs;
    }
    this.pacer.pace(nowPs, q, frame);
    this.onDataSent(q);
    return frame;
  }

  /** The next response of the READ at the head of `r`'s queue: data on the reverse path, paced by the responder's own DCQCN. */
  private readResponseFrame(nowPs: number, r: ReceiverQp, out: ReadOut): Frame {
    const { read } = out;
    const index = out.next++;
    const mtu = this.config.mtu;
    const frame = this.frameTo(FrameKind.data, r.end);
    frame.ecn = 2;
    frame.opcode = readResponseOpcode(index, read.count);
    frame.psn = psnAdd(read.firstPsn, index);
    frame.msn = out.msn;
    frame.payloadBytes = read.lengthBytes === 0 ? 0 : payloadOf(index, read.lengthBytes, mtu);
    if (out.data !== null) frame.rdma = rdmaFields({ data: out.data.subarray(index * mtu, index * mtu + frame.payloadBytes) });
    if (out.next === read.count) this.shiftOut(r);
    this.pacer.pace(nowPs, r, frame);
    return frame;
  }

  /** Take the head of a responder's queue; a drained responder leaves the turns. */
  private shiftOut<T extends ReadOut | Frame>(r: ReceiverQp): T {
    const head = r.out!.shift()!;
    if (r.out!.length === 0) this.responding.splice(this.responding.indexOf(r), 1);
    return head as T;
  }

  /** Re-mark what leaves (`dscpMisconfig`): DSCP `from` (null: all) to `to`; null: mark as configured. */
  setRemark(remark: { from: number | null; to: number } | null): void {
    this.remark = remark;
  }

  private transmit(frame: Frame): Frame {
    const remark = this.remark;
    if (remark !== null && (remark.from === null || frame.dscp === remark.from)) {
      frame.dscp = remark.to;
      this.remarked++;
    }
    frame.ipId = this.ipId;
    this.ipId = (this.ipId + 1) & 0xffff;
    this.ctx.originate(frame);
    return frame;
  }
}
