/**
 * A host's RDMA NIC (DESIGN §5): RC queue pairs (requesters for the connections this host
 * opens, responders for those others open to it), DCQCN per QP (reaction point paces the
 * sender, notification point turns CE marks into CNPs), the receive buffer with its PFC, and
 * the workload that posts messages. One port; replies (ACK/NAK/CNP) go before data, data
 * QPs round robin, each paced at its DCQCN rate.
 */
import { FrameKind, Opcode, frameBytes, newFrame, serializedBytes, type ByteAccounting, type DscpMap, type Frame } from '@rocelab/wire';
import { FixedHistogram, exponentialBounds, wireTimePs, type NodeContext, type NodeModel, type WireModel } from '@rocelab/sim';
import type { HostTraffic, MessagePost } from '@rocelab/workload';
import { syndromeKind } from './aeth.js';
import { DcqcnNotificationPoint } from './dcqcn-np.js';
import { DcqcnReactionPoint } from './dcqcn-rp.js';
import { LATENCY_BUCKETS, LATENCY_BUCKETS_FACTOR, LATENCY_BUCKETS_START_S } from './defaults.js';
import { NicPfc, type NicPfcTimer } from './nic-pfc.js';
import type { NicSettings } from './nic-settings.js';
import { RcRequester, type Completion, type WorkOpcode } from './rc-requester.js';
import { RcResponder } from './rc-responder.js';

export interface HostPeer {
  name: string;
  ip: number;
  mac: number;
}

/** One end of a connection: the QP number (the same at both ends) and the host at the other end. */
export interface QpEnd {
  qpn: number;
  key: string;
  peer: HostPeer;
  probe: boolean;
  /** DSCP of the connection's data and ACKs (ACKs ride their QP's priority, DESIGN §9). */
  dscp: number;
  /** A cap on the sending rate (a flow's `rate`), bit/s; null = none. */
  rateCapBps: number | null;
}

export interface NicConfig {
  ip: number;
  mac: number;
  /** The ToR's MAC: every frame's first hop. */
  gatewayMac: number;
  /** Connections this host sends on, and connections other hosts send to it. */
  requesters: readonly QpEnd[];
  responders: readonly QpEnd[];
  traffic: HostTraffic;
  settings: NicSettings;
  wire: WireModel;
  dscpMap: DscpMap;
  /**
   * The host came back from a `restart` (or a `kill` with `for`): its applications are gone, so
   * the NIC has no queue pairs and posts nothing — `requesters`, `responders` and `traffic` are
   * not used. Whatever arrives for a QP is dropped (`misdelivered`); the peers' requesters time
   * out and end in error. Reconnecting is out of scope.
   */
  rebooted?: boolean;
}

/** What happened to one message this host posted (the run's per-flow results). */
export interface MessageResult {
  flow: number;
  to: string;
  /** The QP it went on, and its operation. */
  qpn: number;
  opcode: WorkOpcode;
  sizeBytes: number;
  postedPs: number;
  completedPs: number | null;
  /** `lost`: still pending when its host was killed (set by the runtime from the dead NIC's results). */
  status: Completion['status'] | 'pending' | 'lost';
  /** Bytes the responder holds for good (all of them once completed; see `RcRequester.ackedBytes`). */
  deliveredBytes: number;
  /** When the message last made progress (an ACK moved its QP forward after it was posted); null = none yet. */
  lastProgressPs: number | null;
  /** Its data packets sent again (go-back-N/0, timeouts). */
  retransmittedPackets: number;
  /** CNPs (or CNP-flagged ACKs) its QP received while it was the oldest uncompleted message. */
  cnps: number;
}

/** Pingmesh probes of one host: counts, and the round trips of the completed ones per peer (ps). */
export interface ProbeResults {
  sent: number;
  failed: number;
  /** Posted, not completed by the end of the run. */
  pending: number;
  rttPs: Record<string, number[]>;
  /** Round trips beyond the per-host cap, counted but not kept. */
  rttOmitted: number;
}

/** Round trips a host keeps for the run's percentiles (bounded memory in long live runs). */
export const MAX_PROBE_SAMPLES = 100_000;

/**
 * A NIC fault or configuration change, in base units (the fault table in @rocelab/topology
 * resolves a file's or an API call's fault to these); null restores what the settings said.
 */
export type NicFault = { kind: 'nicPauseStorm'; on: boolean } | { kind: 'drainRate'; drainBps: number | null } | { kind: 'pfc'; enabled: boolean | null };

interface SenderQp {
  index: number;
  end: QpEnd;
  req: RcRequester;
  rp: DcqcnReactionPoint | null;
  nextSendPs: number;
  /** The last packet's start and wire bytes: a rate increase may let the next one go earlier. */
  lastSendPs: number;
  lastWireBytes: number;
  /** When to look again whether a rate increase shortened the running gap (cached: costly to find). */
  repaceAtPs: number;
  priority: number;
  /** Uncompleted work requests by id. */
  messages: Map<number, MessageResult>;
  /** A pingmesh probe connection. */
  probe: boolean;
  /** The flow id of the first message posted on it; null before any. */
  firstFlow: number | null;
  /** CNPs (or CNP-flagged ACKs) it received. */
  cnps: number;
}

interface ReceiverQp {
  /** Its timer: QP_TIMER_BASE + senders + index. */
  timer: number;
  end: QpEnd;
  resp: RcResponder;
  np: DcqcnNotificationPoint | null;
}

const PORT = 0;
const POST_TIMER = 0;
const WAKE_TIMER = 1;
const PFC_TIMERS: readonly NicPfcTimer[] = ['drain', 'refresh', 'minor', 'critical'];
const PFC_TIMER_BASE = 2;
const QP_TIMER_BASE = 8;

export class Nic implements NodeModel {
  private readonly senders: SenderQp[];
  private readonly receivers: ReceiverQp[];
  private readonly senderByQpn = new Map<number, SenderQp>();
  private readonly receiverByQpn = new Map<number, ReceiverQp>();
  private readonly senderByKey = new Map<string, SenderQp>();
  private readonly replies: Frame[] = [];
  readonly pfc: NicPfc;
  readonly lineRateBps: number;
  private readonly accounting: ByteAccounting;
  private nextPost: MessagePost | null;
  private wrId = 0;
  private rr = 0;
  private ipId = 0;
  readonly stats = {
    cnpsSent: 0,
    cnpsReceived: 0,
    naksReceived: { seq: 0, rnr: 0 },
    /** Payload of every data packet that reached the transport: in order or not, duplicates too. */
    receivedPayloadBytes: 0,
    /** Frames of a lossless priority the receive buffer could not take (its PFC did not hold the ToR back). */
    losslessDrops: 0,
    messagesReceived: 0,
  };
  readonly completion = new FixedHistogram(exponentialBounds(LATENCY_BUCKETS_START_S, LATENCY_BUCKETS_FACTOR, LATENCY_BUCKETS));
  readonly probeRtt = new FixedHistogram(exponentialBounds(LATENCY_BUCKETS_START_S, LATENCY_BUCKETS_FACTOR, LATENCY_BUCKETS));
  private readonly messageLog: MessageResult[] = [];
  private readonly probes: ProbeResults = { sent: 0, failed: 0, pending: 0, rttPs: {}, rttOmitted: 0 };
  /** Watches messages as they complete (tracing); never changes what happens. */
  onMessageDone: ((m: MessageResult, probe: boolean) => void) | null = null;
  private probeSamples = 0;

  constructor(
    private readonly ctx: NodeContext,
    private readonly config: NicConfig,
  ) {
    if (ctx.ports.length !== 1) throw new Error(`host ${ctx.name} needs exactly one port, has ${ctx.ports.length}`);
    const s = config.settings;
    const port = ctx.ports[PORT]!;
    this.lineRateBps = port.out.rateBps;
    this.accounting = config.wire.accounting;
    const rebooted = config.rebooted === true;
    this.senders = (rebooted ? [] : config.requesters).map((end, index) => ({
      index,
      end,
      req: new RcRequester({ mtu: port.out.mtu, recovery: s.recovery, ackTimeoutPs: s.ackTimeoutPs, retryCount: s.retryCount, rnrRetry: s.rnrRetry, initialPsn: 0 }),
      rp: s.dcqcn.enabled ? new DcqcnReactionPoint(s.dcqcn.params, this.lineRateBps) : null,
      nextSendPs: 0,
      lastSendPs: 0,
      lastWireBytes: 0,
      repaceAtPs: Infinity,
      priority: config.dscpMap[end.dscp]!,
      messages: new Map(),
      probe: end.probe,
      firstFlow: null,
      cnps: 0,
    }));
    this.receivers = (rebooted ? [] : config.responders).map((end, index) => {
      const resp = new RcResponder({ initialPsn: 0, ackEvery: s.ackEvery, nakPolicy: s.nakPolicy, nakIntervalPs: s.nakIntervalPs, rnrTimerCode: s.rnrTimerCode, recovery: s.recovery });
      resp.postReceive(s.postedReceives);
      return { timer: QP_TIMER_BASE + this.senders.length + index, end, resp, np: s.dcqcn.enabled && s.dcqcn.variant !== 'hpcc-ns3' ? new DcqcnNotificationPoint(s.dcqcn.variant, s.cnpIntervalPs) : null };
    });
    for (const q of this.senders) {
      this.senderByQpn.set(q.end.qpn, q);
      this.senderByKey.set(q.end.key, q);
    }
    for (const r of this.receivers) this.receiverByQpn.set(r.end.qpn, r);
    this.pfc = new NicPfc(
      { ...s.pfc, refreshPs: s.pfcRefreshPs },
      {
        sendPause: (frame) => ctx.sendControl(PORT, frame),
        onStormEvent: (level) => ctx.note(`nic_stall_${level}`, PORT, -1, this.pfc.pausing),
        setTimer: (name, atPs) => {
          const id = PFC_TIMER_BASE + PFC_TIMERS.indexOf(name);
          if (atPs === null) ctx.cancelTimer(id);
          else ctx.setTimer(id, atPs);
        },
        timePs: (bytes, bps) => wireTimePs(bytes, bps, config.wire),
      },
    );
    this.nextPost = rebooted ? null : config.traffic.next();
    if (this.nextPost !== null) ctx.setTimer(POST_TIMER, this.nextPost.atPs);
  }

  // --- sending -------------------------------------------------------------------------------

  nextFrame(_port: number, nowPs: number, pausedMask: number): Frame | null {
    for (let i = 0; i < this.replies.length; i++) {
      const reply = this.replies[i]!;
      if ((pausedMask & (1 << this.config.dscpMap[reply.dscp]!)) !== 0) continue;
      this.replies.splice(i, 1);
      if (reply.kind === FrameKind.cnp) this.stats.cnpsSent++;
      return this.transmit(reply);
    }
    const n = this.senders.length;
    let wakePs = Infinity;
    for (let k = 0; k < n; k++) {
      const i = (this.rr + k) % n;
      const q = this.senders[i]!;
      if ((pausedMask & (1 << q.priority)) !== 0 || !q.req.hasPacket(nowPs)) continue;
      if (q.nextSendPs > nowPs && !this.repace(nowPs, q)) {
        wakePs = Math.min(wakePs, q.nextSendPs, q.repaceAtPs);
        continue;
      }
      this.rr = (i + 1) % n;
      return this.transmit(this.dataFrame(nowPs, q));
    }
    if (wakePs !== Infinity) {
      const pending = this.ctx.timerDeadlinePs(WAKE_TIMER);
      if (pending === null || pending > wakePs) this.ctx.setTimer(WAKE_TIMER, wakePs);
    }
    return null;
  }

  /**
   * A QP waiting out its pacing gap after a rate increase: a hardware rate limiter applies the
   * new rate at once, so the gap since the last packet is re-measured at the current rate.
   * (`hpcc-ns3` keeps the gap fixed at send time, as `UpdateNextAvail` does.) True = may send now.
   */
  private repace(nowPs: number, q: SenderQp): boolean {
    if (q.rp === null || nowPs < q.repaceAtPs) return false;
    const rate = Math.min(q.rp.rateBps(nowPs), q.end.rateCapBps ?? Infinity);
    const earliest = rate >= this.lineRateBps ? q.lastSendPs : q.lastSendPs + wireTimePs(q.lastWireBytes, rate, this.config.wire);
    if (earliest < q.nextSendPs) q.nextSendPs = Math.max(earliest, nowPs);
    q.repaceAtPs = q.rp.nextRateChangePs() ?? Infinity;
    return q.nextSendPs <= nowPs;
  }

  private dataFrame(nowPs: number, q: SenderQp): Frame {
    const p = q.req.nextPacket(nowPs)!;
    if (p.retransmission) {
      const m = q.messages.get(p.wrId);
      if (m !== undefined) m.retransmittedPackets++;
    }
    // Plain stores on a fresh frame: this runs once per data packet.
    const frame = this.addressed(FrameKind.data, q.end);
    frame.ecn = 2; // ECT(0): RoCEv2 data is ECN-capable (DCQCN)
    frame.opcode = p.opcode;
    frame.psn = p.psn;
    frame.ackReq = p.ackReq;
    frame.dmaLength = p.dmaLength;
    frame.payloadBytes = p.payloadBytes;
    // Pace the QP: the next packet may start once this one would have left at the QP's rate
    // (HPCC `UpdateNextAvail`; a new rate takes effect from the next gap).
    const rate = Math.min(q.rp?.rateBps(nowPs) ?? this.lineRateBps, q.end.rateCapBps ?? Infinity);
    q.lastSendPs = nowPs;
    q.lastWireBytes = serializedBytes(frame, this.accounting);
    if (rate < this.lineRateBps) {
      q.nextSendPs = nowPs + wireTimePs(q.lastWireBytes, rate, this.config.wire);
      q.repaceAtPs = this.config.settings.repace && q.rp !== null ? (q.rp.nextRateChangePs() ?? Infinity) : Infinity;
    }
    q.rp?.onBytesSent(nowPs, frameBytes(frame, this.accounting));
    this.armRequester(q);
    return frame;
  }

  private transmit(frame: Frame): Frame {
    frame.ipId = this.ipId;
    this.ipId = (this.ipId + 1) & 0xffff;
    this.ctx.originate(frame);
    return frame;
  }

  // --- receiving -------------------------------------------------------------------------------

  onFrame(nowPs: number, port: number, frame: Frame): void {
    if (frame.dstIp !== this.config.ip || frame.dstMac !== this.config.mac) return this.ctx.drop(frame, 'misdelivered', port);
    if (this.pfc.receive(nowPs, frame, frameBytes(frame, this.accounting))) return;
    if (this.config.settings.pfc.lossless.includes(this.config.dscpMap[frame.dscp]!)) this.stats.losslessDrops++;
    this.ctx.drop(frame, 'buffer', port);
  }

  /** A frame reached host memory: the transport sees it now. */
  private process(nowPs: number, frame: Frame): void {
    switch (frame.kind) {
      case FrameKind.data:
        this.onData(nowPs, frame);
        break;
      case FrameKind.ack:
        this.onAckOrNak(nowPs, frame);
        break;
      case FrameKind.cnp: {
        const q = this.senderByQpn.get(frame.destQp);
        if (q === undefined) {
          this.ctx.drop(frame, 'misdelivered', PORT);
          break;
        }
        this.ctx.deliver(frame);
        this.onCnp(nowPs, q);
        break;
      }
      case FrameKind.pfc:
        throw new Error('PFC frames never reach the transport');
    }
    this.ctx.kick(PORT);
  }

  private onData(nowPs: number, frame: Frame): void {
    const r = this.receiverByQpn.get(frame.destQp);
    if (r === undefined) return this.ctx.drop(frame, 'misdelivered', PORT);
    this.stats.receivedPayloadBytes += frame.payloadBytes;
    const ce = frame.ecn === 3;
    if (ce && r.np !== null) {
      if (r.np.onCe(nowPs)) this.queueCnp(r);
      this.armNotificationPoint(r);
    }
    const result = r.resp.onPacket(nowPs, frame.psn, frame.opcode, frame.payloadBytes, frame.ackReq);
    switch (result.verdict) {
      case 'accepted':
        this.ctx.deliver(frame);
        if (result.messageBytes !== null) this.stats.messagesReceived++;
        break;
      case 'outOfSequence':
      case 'duplicate':
        this.ctx.drop(frame, 'out_of_sequence', PORT);
        break;
      case 'rnr':
        this.ctx.drop(frame, 'buffer', PORT); // no receive posted: nowhere to put a SEND
        break;
    }
    const reply = result.reply;
    if (reply === null) return;
    if (reply.kind === 'atomicAck') throw new Error('NIC: an Atomic ACK, but this NIC does not carry atomics yet');
    // hpcc-ns3: no CNP packets; the ACK of a CE-marked packet carries the CNP flag (PHYSICS §1.6).
    const cnpFlag = ce && this.config.settings.dcqcn.enabled && this.config.settings.dcqcn.variant === 'hpcc-ns3';
    const ack = this.addressed(FrameKind.ack, r.end);
    ack.opcode = Opcode.acknowledge;
    ack.psn = reply.psn;
    ack.msn = reply.msn;
    ack.syndrome = reply.kind === 'ack' ? 0 : reply.syndrome;
    ack.becn = cnpFlag;
    this.replies.push(ack);
  }

  private onAckOrNak(nowPs: number, frame: Frame): void {
    const q = this.senderByQpn.get(frame.destQp);
    // No such QP (a rebooted NIC, or a stray reply): nothing consumes it, as for data.
    if (q === undefined) return this.ctx.drop(frame, 'misdelivered', PORT);
    this.ctx.deliver(frame);
    if (frame.becn) this.onCnp(nowPs, q);
    const kind = syndromeKind(frame.syndrome);
    let done: Completion[];
    if (kind === 'ack') {
      done = q.req.onAck(nowPs, frame.psn);
    } else {
      if (kind === 'rnrNak') this.stats.naksReceived.rnr++;
      else this.stats.naksReceived.seq++;
      done = q.req.onNak(nowPs, frame.psn, frame.syndrome);
    }
    this.complete(q, done);
    this.armRequester(q);
  }

  private onCnp(nowPs: number, q: SenderQp): void {
    this.stats.cnpsReceived++;
    q.cnps++;
    const head = q.req.headWrId;
    const m = head === null ? undefined : q.messages.get(head);
    if (m !== undefined) m.cnps++;
    q.rp?.onCnp(nowPs);
  }

  private queueCnp(r: ReceiverQp): void {
    const cnp = this.addressed(FrameKind.cnp, r.end);
    cnp.dscp = this.config.settings.cnpDscp;
    cnp.opcode = Opcode.cnp;
    cnp.becn = true;
    this.replies.push(cnp);
  }

  /** A new frame of `kind` on the connection `end`: addresses, first hop, DSCP, QP, ECMP entropy. */
  private addressed(kind: FrameKind, end: QpEnd): Frame {
    const frame = newFrame(kind);
    frame.srcMac = this.config.mac;
    frame.dstMac = this.config.gatewayMac;
    frame.srcIp = this.config.ip;
    frame.dstIp = end.peer.ip;
    frame.dscp = end.dscp;
    frame.udpSrcPort = udpSourcePort(end.qpn);
    frame.destQp = end.qpn;
    return frame;
  }

  // --- timers, posts, completions ----------------------------------------------------------

  onTimer(nowPs: number, timer: number): void {
    if (timer === POST_TIMER) return this.postDue(nowPs);
    if (timer === WAKE_TIMER) return this.ctx.kick(PORT);
    if (timer < QP_TIMER_BASE) {
      const frame = this.pfc.onTimer(nowPs, PFC_TIMERS[timer - PFC_TIMER_BASE]!);
      if (frame !== null) this.process(nowPs, frame);
      return;
    }
    const i = timer - QP_TIMER_BASE;
    if (i < this.senders.length) {
      const q = this.senders[i]!;
      this.complete(q, q.req.onTimer(nowPs));
      this.armRequester(q);
    } else {
      const r = this.receivers[i - this.senders.length]!;
      if (r.np?.onTimer(nowPs)) this.queueCnp(r);
      this.armNotificationPoint(r);
    }
    this.ctx.kick(PORT);
  }

  onFault(nowPs: number, fault: NicFault): void {
    switch (fault.kind) {
      case 'nicPauseStorm':
        if (fault.on) this.pfc.startStorm(nowPs);
        else this.pfc.stopStorm(nowPs);
        return;
      case 'drainRate':
        return this.pfc.setDrainBps(fault.drainBps);
      case 'pfc':
        return this.pfc.setEnabled(nowPs, fault.enabled ?? this.config.settings.pfc.lossless.length > 0);
    }
  }

  private postDue(nowPs: number): void {
    while (this.nextPost !== null && this.nextPost.atPs <= nowPs) {
      const post = this.nextPost;
      const q = this.senderByKey.get(post.connection);
      if (q === undefined) throw new Error(`${this.ctx.name}: no QP for connection ${post.connection}`);
      const id = this.wrId++;
      const result: MessageResult = {
        flow: post.flow,
        to: post.to,
        qpn: q.end.qpn,
        opcode: post.opcode,
        sizeBytes: post.sizeBytes,
        postedPs: nowPs,
        completedPs: null,
        status: 'pending',
        deliveredBytes: 0,
        lastProgressPs: null,
        retransmittedPackets: 0,
        cnps: 0,
      };
      q.messages.set(id, result);
      q.firstFlow ??= post.flow;
      if (post.probe) this.probes.sent++;
      else this.messageLog.push(result);
      q.req.post({ id, opcode: post.opcode, sizeBytes: post.sizeBytes, postedPs: nowPs });
      this.nextPost = this.config.traffic.next();
    }
    if (this.nextPost !== null) this.ctx.setTimer(POST_TIMER, this.nextPost.atPs);
    this.ctx.kick(PORT);
  }

  private complete(q: SenderQp, done: readonly Completion[]): void {
    for (const c of done) {
      const m = q.messages.get(c.wrId);
      if (m === undefined) continue;
      q.messages.delete(c.wrId);
      m.completedPs = c.completedPs;
      m.status = c.status;
      if (c.status === 'success') {
        m.deliveredBytes = m.sizeBytes;
        m.lastProgressPs = c.completedPs;
      }
      if (q.probe) this.probeDone(m);
      else if (c.status === 'success') this.completion.observe((c.completedPs - c.postedPs) / 1e12);
      this.onMessageDone?.(m, q.probe);
    }
  }

  private probeDone(m: MessageResult): void {
    if (m.status !== 'success') {
      this.probes.failed++;
      return;
    }
    const rttPs = m.completedPs! - m.postedPs;
    this.probeRtt.observe(rttPs / 1e12);
    if (this.probeSamples >= MAX_PROBE_SAMPLES) {
      this.probes.rttOmitted++;
      return;
    }
    this.probeSamples++;
    (this.probes.rttPs[m.to] ??= []).push(rttPs);
  }

  /** Keep the QP's timer on the requester's deadline (RTO or RNR wait). */
  private armRequester(q: SenderQp): void {
    this.arm(QP_TIMER_BASE + q.index, q.req.deadlinePs());
  }

  /** The paper NP sends a pending CNP at the end of its window. */
  private armNotificationPoint(r: ReceiverQp): void {
    this.arm(r.timer, r.np?.deadlinePs() ?? null);
  }

  private arm(timer: number, deadline: number | null): void {
    if (deadline === this.ctx.timerDeadlinePs(timer)) return;
    if (deadline === null) this.ctx.cancelTimer(timer);
    else this.ctx.setTimer(timer, Math.max(deadline, this.ctx.nowPs));
  }

  // --- accounting and observation ----------------------------------------------------------

  heldFrames(): number {
    return this.pfc.heldFrames;
  }

  heldFramesByPort(): readonly number[] {
    return [this.pfc.heldFrames];
  }

  /** The priorities this NIC pauses its ToR on. */
  get pfcPriorities(): readonly number[] {
    return this.config.settings.pfc.lossless;
  }

  get qpMetricsEnabled(): boolean {
    return this.config.settings.qpMetrics;
  }

  get senderQps(): readonly SenderQp[] {
    return this.senders;
  }

  get receiverQps(): readonly ReceiverQp[] {
    return this.receivers;
  }

  /** Goodput: payload this host's responders hold for good (`RcResponder` stats.bytesDelivered). */
  get goodputBytes(): number {
    let bytes = 0;
    for (const r of this.receivers) bytes += r.resp.stats.bytesDelivered;
    return bytes;
  }

  /** Every message this host posted (probes apart) and its probes, progress brought up to date. */
  results(): { sent: MessageResult[]; probes: ProbeResults } {
    for (const q of this.senders) {
      for (const [wrId, m] of q.messages) {
        m.deliveredBytes = q.req.ackedBytes(wrId);
        const progress = q.req.lastProgressPs;
        m.lastProgressPs = progress !== null && progress > m.postedPs ? progress : null;
      }
    }
    let pending = 0;
    for (const q of this.senders) if (q.probe) pending += q.messages.size;
    return { sent: this.messageLog, probes: { ...this.probes, pending } };
  }
}

/** RoCEv2 sets the UDP source port per QP for ECMP entropy (PHYSICS §5.1). */
export function udpSourcePort(qpn: number): number {
  return 49152 + (qpn % 16384);
}
