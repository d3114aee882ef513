/**
 * The host's TCP-like stack (issue 14; tcp-requester.ts, tcp.ts): the TCP connections this host
 * opens and accepts. It sends on the NIC's port, its connections taking their turns with the QPs
 * (`HostQueue`), paced by their rate caps; the NIC hands up the segments and ACKs that drained
 * from its receive buffer, and the stack sees each one a receive latency later (the kernel's
 * receive path), through a FIFO the host counts as held frames. Every segment is ACKed, its CE
 * echoed; a write enters a stream after the scheduling and send latency.
 */
import { isTcp, traceCompletions, unpaced, type Completion, type HostQueue, type MessageResult, type MessageSender, type Nic, type NicConfig, type QpEnd } from '@rocelab/rnic';
import { FrameKind, type Frame } from '@rocelab/wire';
import { armTimer, type NodeContext, type TimerTable } from '@rocelab/sim';
import { TcpReceiver } from './tcp.js';
import { TcpRequester, unwrapSeq } from './tcp-requester.js';
import type { Traffic, TrafficWork } from './traffic.js';

const PORT = 0;

/** A TCP connection this host opens: its stream, its messages, its turn on the NIC's port. */
export class TcpConnection implements MessageSender, HostQueue {
  rp = null;
  nextSendPs: number;
  lastSendPs: number;
  lastWireBytes: number;
  repaceAtPs: number;
  readonly priority: number;
  readonly messages = new Map<number, MessageResult>();
  readonly probe: boolean;
  firstFlow: number | null = null;
  cnps = 0;
  readonly app = null;
  readonly dctcp: boolean;

  constructor(
    private readonly stack: TcpStack,
    readonly index: number,
    readonly end: QpEnd,
    readonly req: TcpRequester,
    priority: number,
  ) {
    ({ nextSendPs: this.nextSendPs, lastSendPs: this.lastSendPs, lastWireBytes: this.lastWireBytes, repaceAtPs: this.repaceAtPs, priority: this.priority } = unpaced(priority));
    this.probe = end.probe;
    this.dctcp = end.transport === 'dctcp';
  }

  ready(nowPs: number): boolean {
    return this.req.hasSegment(nowPs);
  }

  take(nowPs: number): Frame {
    return this.stack.segment(nowPs, this);
  }
}

/** A TCP connection other hosts open to this one. */
interface TcpAccepted {
  end: QpEnd;
  rx: TcpReceiver;
}

/** What the stack takes of the host's configuration: the same connections and settings as the NIC's (it carries the TCP ones). */
export type TcpStackConfig = Pick<NicConfig, 'requesters' | 'responders' | 'settings' | 'dscpMap' | 'rebooted'>;

export class TcpStack {
  readonly connections: TcpConnection[];
  private readonly byQpn = new Map<number, TcpConnection>();
  private readonly byKey = new Map<string, TcpConnection>();
  private readonly accepted = new Map<number, TcpAccepted>();
  /** Segments and ACKs the NIC handed up, each processed at `atPs` (a fixed latency: FIFO is time order). */
  private readonly incoming: Array<{ atPs: number; frame: Frame }> = [];
  private incomingHead = 0;
  private readonly timers: number;
  private readonly stackTimer: number;
  /** Payload of every segment that reached the stack, in order or not, duplicates too. */
  receivedPayloadBytes = 0;
  /** Where the host's streams' segments go past the receive latency (streams.ts); null: nowhere, they are misdelivered. */
  onStreamFrame: ((nowPs: number, frame: Frame) => void) | null = null;

  constructor(
    private readonly ctx: NodeContext,
    private readonly config: TcpStackConfig,
    private readonly nic: Nic,
    private readonly traffic: Traffic,
    timers: TimerTable,
  ) {
    const tcp = config.settings.tcp;
    const mtu = ctx.ports[PORT]!.out.mtu;
    const ends = (list: readonly QpEnd[]) => (config.rebooted === true ? [] : list.filter(isTcp));
    this.connections = ends(config.requesters).map((end, index) => {
      const req = new TcpRequester(
        { mssBytes: tcp.mssBytes ?? mtu, initialCwndSegments: tcp.initialWindowSegments, initialRtoPs: tcp.initialRtoPs, minRtoPs: tcp.minRtoPs, maxRtoPs: tcp.maxRtoPs, dctcpGain: end.transport === 'dctcp' ? tcp.dctcpGain : null, receiveWindowBytes: tcp.receiveWindowBytes },
        tcp.schedulingPs + tcp.sendLatencyPs,
      );
      return new TcpConnection(this, index, end, req, config.dscpMap[end.dscp]!);
    });
    // Each connection's timer (its RTO or its next write), then the stack's own (the receive latency).
    this.timers = timers.registerEach(this.connections.length, (nowPs, i) => this.onTimer(nowPs, this.connections[i]!));
    this.stackTimer = timers.register((nowPs) => this.run(nowPs));
    for (const t of this.connections) {
      this.byQpn.set(t.end.qpn, t);
      this.byKey.set(t.end.key, t);
    }
    for (const end of ends(config.responders)) this.accepted.set(end.qpn, { end, rx: new TcpReceiver() });
  }

  /** The connection the host's traffic posts on for `connection`, if the stack carries it. */
  connectionFor(connection: string): TcpConnection | undefined {
    return this.byKey.get(connection);
  }

  post(t: TcpConnection, work: TrafficWork): void {
    t.req.post(work);
    this.arm(t);
  }

  /** The next segment of a TCP connection (ECN-capable under DCTCP only), paced by its rate cap if it has one. */
  segment(nowPs: number, t: TcpConnection): Frame {
    const seg = t.req.nextSegment(nowPs)!;
    if (seg.retransmission) {
      const m = t.req.headWrId === null ? undefined : t.messages.get(t.req.headWrId);
      if (m !== undefined) m.retransmittedPackets++;
    }
    const frame = this.nic.frameTo(FrameKind.tcpData, t.end);
    frame.ecn = t.dctcp ? 2 : 0;
    frame.tcpSeq = seg.seq % 2 ** 32;
    frame.payloadBytes = seg.lengthBytes;
    this.nic.pacer.pace(nowPs, t, frame);
    this.arm(t);
    return frame;
  }

  /** A segment or ACK drained from the NIC's buffer: the kernel's receive path hands it to the stack a fixed latency later. */
  onFrame(nowPs: number, frame: Frame): void {
    const atPs = nowPs + this.config.settings.tcp.receiveLatencyPs;
    this.incoming.push({ atPs, frame });
    if (this.ctx.timerDeadlinePs(this.stackTimer) === null) this.ctx.setTimer(this.stackTimer, atPs);
  }

  /** The stack processes what the receive latency has let through, and waits for the next. */
  private run(nowPs: number): void {
    const queue = this.incoming;
    while (this.incomingHead < queue.length && queue[this.incomingHead]!.atPs <= nowPs) {
      const { frame } = queue[this.incomingHead++]!;
      // A stream's segment always has flags; the planned connections' frames never do.
      if (frame.tcpFlags !== 0) this.onStreamSegment(nowPs, frame);
      else if (frame.kind === FrameKind.tcpData) this.onSegment(frame);
      else this.onAck(nowPs, frame);
    }
    if (this.incomingHead === queue.length) {
      queue.length = 0;
      this.incomingHead = 0;
    } else {
      this.ctx.setTimer(this.stackTimer, queue[this.incomingHead]!.atPs);
    }
    this.nic.kick();
  }

  private onStreamSegment(nowPs: number, frame: Frame): void {
    if (this.onStreamFrame === null) return this.ctx.drop(frame, 'misdelivered', PORT);
    this.onStreamFrame(nowPs, frame);
  }

  /** A segment reaches its connection's receiver: taken (in order or held) or a duplicate; every segment is ACKed, its CE echoed. */
  private onSegment(frame: Frame): void {
    const r = this.accepted.get(frame.destQp);
    if (r === undefined) return this.ctx.drop(frame, 'misdelivered', PORT);
    this.receivedPayloadBytes += frame.payloadBytes;
    const seq = unwrapSeq(frame.tcpSeq, r.rx.expected);
    const duplicates = r.rx.stats.duplicates;
    const reply = r.rx.onSegment(seq, frame.payloadBytes, frame.ecn === 3);
    if (r.rx.stats.duplicates > duplicates) this.ctx.drop(frame, 'out_of_sequence', PORT);
    else this.ctx.deliver(frame);
    const ack = this.nic.frameTo(FrameKind.tcpAck, r.end);
    ack.tcpAck = reply.ack % 2 ** 32;
    ack.becn = reply.ece;
    this.nic.queueReply(ack);
  }

  /** An ACK reaches the sending connection: the window moves, and the messages it covers complete. */
  private onAck(nowPs: number, frame: Frame): void {
    const t = this.byQpn.get(frame.destQp);
    if (t === undefined) return this.ctx.drop(frame, 'misdelivered', PORT);
    const ack = unwrapSeq(frame.tcpAck, t.req.sender.snd.una);
    // Nothing in the pod acknowledges bytes never sent; a frame that does is not this connection's.
    if (ack > t.req.sender.highestSent) return this.ctx.drop(frame, 'misdelivered', PORT);
    this.ctx.deliver(frame);
    if (frame.becn) t.cnps++;
    this.complete(t, t.req.onAck(nowPs, ack, frame.becn));
    this.arm(t);
  }

  private onTimer(nowPs: number, t: TcpConnection): void {
    this.complete(t, t.req.onTimer(nowPs));
    this.arm(t);
    this.nic.kick();
  }

  private complete(t: TcpConnection, done: readonly Completion[]): void {
    traceCompletions(this.ctx, t.end.qpn, done);
    this.traffic.complete(t, done);
  }

  /** Keep a connection's timer on its RTO or its next write. */
  private arm(t: TcpConnection): void {
    armTimer(this.ctx, this.timers + t.index, t.req.deadlinePs());
  }

  /** Segments and ACKs handed up and not processed yet. */
  get heldFrames(): number {
    return this.incoming.length - this.incomingHead;
  }

  /** Payload the accepted connections hold for good. */
  get goodputBytes(): number {
    let bytes = 0;
    for (const r of this.accepted.values()) bytes += r.rx.stats.deliveredBytes;
    return bytes;
  }

  /** Whether this host has TCP connections (its metrics then include the stack's). */
  get active(): boolean {
    return this.connections.length > 0 || this.accepted.size > 0;
  }

  /** The stack's counters, summed over its connections (both ends). */
  get stats(): { segmentsSent: number; retransmittedSegments: number; fastRetransmits: number; rtoExpirations: number; cwndCuts: number; outOfOrder: number; duplicates: number } {
    const out = { segmentsSent: 0, retransmittedSegments: 0, fastRetransmits: 0, rtoExpirations: 0, cwndCuts: 0, outOfOrder: 0, duplicates: 0 };
    for (const t of this.connections) {
      const s = t.req.sender.stats;
      out.segmentsSent += s.segmentsSent;
      out.retransmittedSegments += s.retransmittedSegments;
      out.fastRetransmits += s.fastRetransmits;
      out.rtoExpirations += s.rtoExpirations;
      out.cwndCuts += s.cwndCuts;
    }
    for (const r of this.accepted.values()) {
      out.outOfOrder += r.rx.stats.outOfOrder;
      out.duplicates += r.rx.stats.duplicates;
    }
    return out;
  }
}
