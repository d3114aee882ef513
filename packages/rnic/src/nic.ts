/**
 * A host's RDMA NIC (DESIGN §5), what a ConnectX does: RC queue pairs (requesters for the
 * connections this host opens, responders for those others open to it; READ and atomics),
 * DCQCN per QP (the reaction point paces the sender, the notification point turns CE marks into
 * CNPs), and the receive buffer with its PFC. One port; replies (ACK/NAK/CNP) go before data,
 * then the QPs, the responders with READ responses and the host's own senders (its TCP
 * connections, `HostQueue`) take turns, each paced at its rate. What is not the NIC's — the
 * traffic that posts work, the TCP stack, the application — is its host's (`NicHost`,
 * @rocelab/host), which hears of completions, receives and TCP frames through it.
 */
import { FrameKind, IntMode, NO_BYTES, Opcode, frameBytes, u64Bytes, u64Of, type Frame } from '@rocelab/wire';
import { armTimer, wireTimePs, type NodeContext, type TimerTable, type WireModel } from '@rocelab/sim';
import { NAK_PSN_SEQUENCE_ERROR, syndromeKind } from './aeth.js';
import type { DcqcnNotificationPoint } from './dcqcn-np.js';
import { createCongestionControl, windowOf } from './cc.js';
import { traceCompletions } from './completion-trace.js';
import { memoryRequest, readData } from './memory-requests.js';
import { MemoryRegions } from './memory-region.js';
import { cnpFrame, replyFrame, type HostAddress } from './nic-frames.js';
import { NicPfc, type NicPfcTimer } from './nic-pfc.js';
import { NicTransmit } from './nic-transmit.js';
import type { AppWork, HostQueue, NicFault, NicHost, QpEnd, ReceiverQp, SenderQp } from './nic-types.js';
import { Pacer } from './pacing.js';
import { addReceiver, addSender, createQps, notificationPoint, type QpConfig, type QpOverrides, type QpTimerHandlers } from './qp-setup.js';
import type { Completion } from './rc-requester.js';

export interface NicConfig extends HostAddress, QpConfig {
  wire: WireModel;
  /** The host's registered memory, which its memory-backed QPs read and write (an application's). */
  memory?: MemoryRegions;
}

/** No memory registered: every access by rkey is refused. */
const NO_MEMORY = new MemoryRegions();
const PORT = 0;
const PFC_TIMERS: readonly NicPfcTimer[] = ['drain', 'refresh', 'minor', 'critical'];

export class Nic {
  private readonly senders: SenderQp[];
  private readonly receivers: ReceiverQp[];
  private readonly senderByQpn = new Map<number, SenderQp>();
  private readonly receiverByQpn = new Map<number, ReceiverQp>();
  private readonly senderByKey = new Map<string, SenderQp>();
  private readonly memory: MemoryRegions;
  private readonly wakeTimer: number;
  private readonly timers: TimerTable;
  readonly pfc: NicPfc;
  readonly pacer: Pacer;
  private readonly tx: NicTransmit;
  private wrId = 0;
  readonly stats = {
    cnpsSent: 0,
    cnpsReceived: 0,
    naksReceived: { seq: 0, rnr: 0 },
    /** Payload of every data packet that reached a transport (the TCP stack's too): in order or not, duplicates too. */
    receivedPayloadBytes: 0,
    /** Frames of a lossless priority the receive buffer could not take (its PFC did not hold the ToR back). */
    losslessDrops: 0,
    messagesReceived: 0,
    /** READ response payload taken in order by this host's requesters: a READ's goodput. */
    readBytesReceived: 0,
  };

  constructor(
    private readonly ctx: NodeContext,
    private readonly config: NicConfig,
    private readonly host: NicHost,
    timers: TimerTable,
  ) {
    if (ctx.ports.length !== 1) throw new Error(`host ${ctx.name} needs exactly one port, has ${ctx.ports.length}`);
    const s = config.settings;
    const out = ctx.ports[PORT]!.out;
    this.pacer = new Pacer(out.rateBps, config.wire, s.repace);
    // Timers, after the host's traffic's (0): the wake-up after a pacing gap, the PFC's four, two ids never used, then the QPs'.
    this.wakeTimer = timers.register(() => this.kick());
    const pfcTimers = new Map(PFC_TIMERS.map((name) => [name, timers.register((nowPs) => this.onPfcTimer(nowPs, name))]));
    timers.skip(2);
    this.timers = timers;
    const qps = createQps(ctx.name, config, out, timers, this.qpTimers);
    ({ senders: this.senders, receivers: this.receivers } = qps);
    for (const q of this.senders) {
      this.senderByQpn.set(q.end.qpn, q);
      this.senderByKey.set(q.end.key, q);
    }
    for (const r of this.receivers) this.receiverByQpn.set(r.end.qpn, r);
    this.memory = config.memory ?? NO_MEMORY;
    // Only a window (HAS_WIN) or a congestion control that may have one asks each QP before it sends.
    const windowed = s.window.enabled || s.cc !== 'dcqcn';
    this.tx = new NicTransmit(ctx, { ...config, mtu: out.mtu, ackIgnoresPause: s.ackIgnoresPause }, this.senders, this.pacer, this.wakeTimer, (q) => this.armRequester(q), this.stats, windowed ? (q) => this.windowOf(q) : undefined);
    this.pfc = new NicPfc(
      { ...s.pfc, refreshPs: s.pfcRefreshPs },
      {
        sendPause: (frame) => ctx.sendControl(PORT, frame),
        onStormEvent: (level) => ctx.note(`nic_stall_${level}`, PORT, -1, this.pfc.pausing),
        setTimer: (name, atPs) => {
          const id = pfcTimers.get(name)!;
          if (atPs === null) ctx.cancelTimer(id);
          else ctx.setTimer(id, atPs);
        },
        timePs: (bytes, bps) => wireTimePs(bytes, bps, config.wire),
      },
    );
  }

  /** The host's own senders (its TCP connections), taking their turns after the QPs and READ responders. */
  setHostQueues(queues: readonly HostQueue[]): void {
    this.tx.setHostQueues(queues);
  }

  nextFrame(nowPs: number, pausedMask: number): Frame | null {
    return this.tx.nextFrame(nowPs, pausedMask);
  }

  /** A new frame of `kind` on the connection `end`, addressed from this host. */
  frameTo(kind: FrameKind, end: QpEnd): Frame {
    return this.tx.frameTo(kind, end);
  }

  /** A reply of the host's stack (a TCP ACK): it goes before data, as the NIC's own replies do. */
  queueReply(frame: Frame): void {
    this.tx.queueReply(frame);
  }

  kick(): void {
    this.ctx.kick(PORT);
  }

  // --- receiving -------------------------------------------------------------------------------

  onFrame(nowPs: number, port: number, frame: Frame): void {
    if (frame.dstIp !== this.config.ip || frame.dstMac !== this.config.mac) return this.ctx.drop(frame, 'misdelivered', port);
    if (this.pfc.receive(nowPs, frame, frameBytes(frame, this.config.wire.accounting))) return;
    if (this.config.settings.pfc.lossless.includes(this.config.dscpMap[frame.dscp]!)) this.stats.losslessDrops++;
    this.ctx.drop(frame, 'buffer', port);
  }

  /** A frame drained from the receive buffer into host memory: its transport sees it now. */
  private process(nowPs: number, frame: Frame): void {
    switch (frame.kind) {
      case FrameKind.data:
        if (frame.opcode >= Opcode.readResponseFirst && frame.opcode <= Opcode.readResponseOnly) this.onReadResponse(nowPs, frame);
        else this.onData(nowPs, frame);
        break;
      case FrameKind.ack:
        this.onAckOrNak(nowPs, frame);
        break;
      case FrameKind.cnp:
        this.onCnpFrame(nowPs, frame);
        break;
      case FrameKind.pfc:
        throw new Error('PFC frames never reach the transport');
      case FrameKind.tcpData:
      case FrameKind.tcpAck:
        return this.host.onStackFrame(nowPs, frame);
    }
    this.kick();
  }

  private onData(nowPs: number, frame: Frame): void {
    const r = this.receiverByQpn.get(frame.destQp);
    if (r === undefined) return this.ctx.drop(frame, 'misdelivered', PORT);
    this.stats.receivedPayloadBytes += frame.payloadBytes;
    const ce = frame.ecn === 3;
    if (ce && r.np !== null) {
      if (r.np.onCe(nowPs)) this.queueCnp(r.end);
      this.armNotificationPoint(r.timer, r.np);
    }
    const result = r.end.memory === true ? memoryRequest(nowPs, r, frame, this.memory, (receive) => this.host.onAppReceive(r.end.qpn, receive)) : r.resp.onPacket(nowPs, frame.psn, frame.opcode, frame.payloadBytes, frame.ackReq, frame.dmaLength);
    switch (result.verdict) {
      case 'accepted':
        this.ctx.deliver(frame);
        if (result.messageBytes !== null) this.stats.messagesReceived += result.messages ?? 1;
        if (r.end.memory === true && (frame.payloadBytes > 0 || frame.opcode === Opcode.fetchAdd || frame.opcode === Opcode.compareSwap)) this.host.onAppMemory();
        break;
      case 'outOfSequence':
      case 'duplicate':
        this.ctx.drop(frame, 'out_of_sequence', PORT);
        break;
      case 'rnr':
        this.ctx.drop(frame, 'buffer', PORT); // no receive posted: nowhere to put a SEND
        break;
      case 'error':
        this.ctx.drop(frame, 'qp_error', PORT);
        break;
    }
    if (result.read !== undefined) {
      const data = r.end.memory === true ? readData(this.memory, result.read, frame) : null;
      // READ responses are paced by DCQCN only (HPCC ns-3 has no READ): other `cc`s send them at line rate.
      this.tx.queueRead(r, result.read, data, () => (this.config.settings.cc === 'dcqcn' ? createCongestionControl(this.config.settings, this.pacer.lineRateBps, null) : null));
    }
    if (result.reply === null) return;
    // hpcc-ns3, and every `cc` but DCQCN: no CNP packets; the ACK of a CE-marked packet carries
    // the CNP flag (PHYSICS §1.6; HPCC rdma-hw.cc ReceiveUdp `seqh.SetCnp()`).
    const s = this.config.settings;
    const cnpFlag = ce && (s.cc !== 'dcqcn' || (s.dcqcn.enabled && s.dcqcn.variant === 'hpcc-ns3'));
    const ack = replyFrame(this.config, r.end, result.reply, cnpFlag);
    // The ACK carries its data packet's INT header back (rdma-hw.cc ReceiveUdp `seqh.SetIntHeader(ch.udp.ih)`).
    if (frame.intMode !== IntMode.none) {
      ack.intMode = frame.intMode;
      ack.int = frame.int;
      ack.intTsPs = frame.intTsPs;
    }
    this.tx.queueResponderReply(r, ack);
  }

  /** A READ response reached the requester: it acknowledges what came before it, and its bytes land in the READ's buffer. */
  private onReadResponse(nowPs: number, frame: Frame): void {
    const q = this.senderByQpn.get(frame.destQp);
    if (q === undefined) return this.ctx.drop(frame, 'misdelivered', PORT);
    this.stats.receivedPayloadBytes += frame.payloadBytes;
    if (frame.ecn === 3 && this.config.settings.dcqcn.enabled && this.config.settings.dcqcn.variant !== 'hpcc-ns3') {
      q.np ??= notificationPoint(this.config.settings);
      if (q.np!.onCe(nowPs)) this.queueCnp(q.end);
      this.armNotificationPoint(q.readNpTimer, q.np);
    }
    const target = q.req.responseTarget(frame.psn);
    if (target === null) {
      this.ctx.drop(frame, 'out_of_sequence', PORT);
    } else {
      this.ctx.deliver(frame);
      this.stats.readBytesReceived += frame.payloadBytes;
      const data = frame.rdma?.data;
      if (data !== undefined && data.length > 0) {
        q.app?.get(target.wrId)?.local?.set(data, target.offsetBytes);
        this.host.onAppMemory();
      }
    }
    this.complete(q, q.req.onReadResponse(nowPs, frame.psn));
    this.armRequester(q);
  }

  private onAckOrNak(nowPs: number, frame: Frame): void {
    const q = this.senderByQpn.get(frame.destQp);
    // No such QP (a rebooted NIC, or a stray reply): nothing consumes it, as for data.
    if (q === undefined) return this.ctx.drop(frame, 'misdelivered', PORT);
    this.ctx.deliver(frame);
    if (frame.becn) this.onCnp(nowPs, q);
    const kind = syndromeKind(frame.syndrome);
    let done: Completion[];
    if (frame.opcode === Opcode.atomicAcknowledge) {
      done = q.req.onAtomicAck(nowPs, frame.psn, u64Of(frame.rdma?.original ?? NO_BYTES));
    } else if (kind === 'ack') {
      done = q.req.onAck(nowPs, frame.psn);
    } else {
      if (kind === 'rnrNak') this.stats.naksReceived.rnr++;
      else if (frame.syndrome === NAK_PSN_SEQUENCE_ERROR) this.stats.naksReceived.seq++;
      done = q.req.onNak(nowPs, frame.psn, frame.syndrome, frame.sackPsn);
    }
    this.complete(q, done);
    if (q.rp !== null && q.rp.kind !== 'dcqcn') this.feedBack(nowPs, q, frame);
    this.armRequester(q);
  }

  /**
   * An ACK or NAK told the QP's congestion control what it carries (HPCC rdma-hw.cc `ReceiveAck`:
   * after `Acknowledge`, `HandleAckHp` / `HandleAckTimely` / `HandleAckDctcp`); a new rate
   * re-times the gap running since the last packet.
   */
  private feedBack(nowPs: number, q: SenderQp, frame: Frame): void {
    const cc = q.rp!;
    const before = cc.rateBps(nowPs);
    cc.onAck(nowPs, {
      nowPs,
      ackedBytes: q.req.ackedSeqBytes,
      nextSendBytes: q.req.nextSeqBytes,
      ecnEcho: frame.becn,
      hops: frame.int,
      sentTsPs: frame.intMode === IntMode.ts ? frame.intTsPs : null,
    });
    const after = cc.rateBps(nowPs);
    if (after !== before) this.pacer.rateChanged(q, after);
  }

  /** The QP's window of bytes in flight now (HPCC's own, or `window:`'s at the QP's rate); null: none. */
  private windowOf(q: SenderQp): number | null {
    const line = this.pacer.lineRateBps;
    return q.rp?.windowBytes() ?? windowOf(this.config.settings, this.config.ccPath ?? null, q.rp?.rateBps(this.ctx.nowPs) ?? line, line);
  }

  /** A CNP slows the QP's sender: the requester for its requests, the responder for its READ responses. */
  private onCnpFrame(nowPs: number, frame: Frame): void {
    const q = this.senderByQpn.get(frame.destQp);
    if (q !== undefined) {
      this.ctx.deliver(frame);
      return this.onCnp(nowPs, q);
    }
    const r = this.receiverByQpn.get(frame.destQp);
    if (r === undefined) return this.ctx.drop(frame, 'misdelivered', PORT);
    this.ctx.deliver(frame);
    this.stats.cnpsReceived++;
    r.rp?.onCnp(nowPs);
  }

  private onCnp(nowPs: number, q: SenderQp): void {
    this.stats.cnpsReceived++;
    q.cnps++;
    const head = q.req.headWrId;
    const m = head === null ? undefined : q.messages.get(head);
    if (m !== undefined) m.cnps++;
    q.rp?.onCnp(nowPs);
  }

  private queueCnp(end: QpEnd): void {
    this.tx.queueReply(cnpFrame(this.config, end, this.config.settings.cnpDscp));
  }

  // --- timers, work requests, completions --------------------------------------------------

  private onPfcTimer(nowPs: number, name: NicPfcTimer): void {
    const frame = this.pfc.onTimer(nowPs, name);
    if (frame !== null) this.process(nowPs, frame);
  }

  private onRto(nowPs: number, q: SenderQp): void {
    this.complete(q, q.req.onTimer(nowPs));
    this.armRequester(q);
    this.kick();
  }

  /** The paper NP's window ended: the CNP it held goes out (a responder's NP, or a requester's for READ responses). */
  private onNpTimer(nowPs: number, q: { end: QpEnd; np: DcqcnNotificationPoint | null }, timer: number): void {
    if (q.np?.onTimer(nowPs)) this.queueCnp(q.end);
    this.armNotificationPoint(timer, q.np);
    this.kick();
  }

  /** The RC QP the host's traffic posts on for `connection`, if the NIC carries it. */
  senderFor(connection: string): SenderQp | undefined {
    return this.senderByKey.get(connection);
  }

  /** Watches the application's work requests as they are posted, before any packet of theirs leaves (tracing); never changes what happens. */
  onAppPosted: ((qpn: number, work: AppWork) => void) | null = null;

  /** The next work request id: one sequence for the host's traffic and its application. */
  takeWrId(): number {
    return this.wrId++;
  }

  /**
   * Post an application's work request on the memory-backed QP `qpn`; returns its WR id. Its
   * completion goes to the host (`NicHost.onAppCompletion`). Throws (with the requester's
   * message) for a QP in error or a malformed request: the app runtime reports it as the app's error.
   */
  postApp(qpn: number, work: AppWork, issued?: { id: number; postedPs: number }): number {
    const q = this.senderByQpn.get(qpn);
    if (q === undefined || q.app === null) throw new Error(`no memory-backed QP ${qpn} sends from ${this.ctx.name}`);
    // `issued`: the host's CPU took the id when the app called, and posts it now (host-cpu.ts).
    const id = issued?.id ?? this.wrId++;
    q.req.post({ id, opcode: work.opcode, sizeBytes: work.sizeBytes, postedPs: issued?.postedPs ?? this.ctx.nowPs, ...(work.atomic === undefined ? {} : { atomic: work.atomic }), ...(work.immediate === undefined ? {} : { immediate: work.immediate }) });
    q.app.set(id, work);
    this.onAppPosted?.(qpn, work);
    this.kick();
    return id;
  }

  private readonly qpTimers: QpTimerHandlers = { rto: (nowPs, q) => this.onRto(nowPs, q), np: (nowPs, q, timer) => this.onNpTimer(nowPs, q, timer) };

  /**
   * Bring up a memory-backed QP's requester at run time (a native program's QP reaching RTS,
   * issue 25): it sends to `end.qpn` at `end.peer` and takes its turns in the round robin after
   * the pod's planned QPs. Its timers are registered now, after every other.
   */
  addAppSender(end: QpEnd, overrides: QpOverrides): void {
    if (this.senderByQpn.has(end.qpn)) throw new Error(`${this.ctx.name}: a QP that sends to QP ${end.qpn} already exists`);
    const q = addSender(this.ctx.name, this.config, this.ctx.ports[PORT]!.out, this.timers, this.qpTimers, end, this.senders.length, overrides);
    this.senders.push(q);
    this.senderByQpn.set(end.qpn, q);
    this.senderByKey.set(end.key, q);
  }

  /** Bring up a memory-backed QP's responder at run time (a native program's QP reaching RTR): frames to `end.qpn` reach it. */
  addAppReceiver(end: QpEnd, overrides: QpOverrides): void {
    if (this.receiverByQpn.has(end.qpn)) throw new Error(`${this.ctx.name}: QP ${end.qpn} already receives`);
    const r = addReceiver(this.config, this.ctx.ports[PORT]!.out, this.timers, this.qpTimers, end, overrides);
    this.receivers.push(r);
    this.receiverByQpn.set(end.qpn, r);
  }

  /** Whether the memory-backed QP `qpn` that sends from here is in error (a work request posted to it now is flushed). */
  appQpInError(qpn: number): boolean {
    return this.senderByQpn.get(qpn)?.req.state === 'error';
  }

  /** Post a receive buffer on the memory-backed QP `qpn` (the one its peer sends to this host on). */
  postAppReceive(qpn: number, buffer: Uint8Array): void {
    const r = this.receiverByQpn.get(qpn);
    if (r === undefined || r.end.memory !== true) throw new Error(`no memory-backed QP ${qpn} receives at ${this.ctx.name}`);
    r.receives.push(buffer);
    r.resp.postReceive(1);
  }

  /** Completions go to the host; an atomic of the application's first puts the word it found in its local buffer, as the IB atomic's scatter entry does. */
  private complete(q: SenderQp, done: readonly Completion[]): void {
    traceCompletions(this.ctx, q.end.qpn, done);
    if (q.app === null) return this.host.onCompletions(q, done);
    for (const c of done) {
      const w = q.app.get(c.wrId);
      q.app.delete(c.wrId);
      if (w?.local != null && c.atomicOriginal !== undefined) w.local.set(u64Bytes(c.atomicOriginal));
      this.host.onAppCompletion(q.end.qpn, c);
    }
  }

  /** Frames a `dscpMisconfig` fault re-marked as they left (0 without one). */
  get dscpRemarked(): number {
    return this.tx.remarked;
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
      case 'dscp':
        return this.tx.setRemark(fault.priority === null ? null : { from: fault.dscp, to: Math.max(0, this.config.dscpMap.indexOf(fault.priority)) });
    }
  }

  /** Keep the QP's timer on the requester's deadline (RTO or RNR wait). */
  private armRequester(q: SenderQp): void {
    this.arm(q.rtoTimer, q.req.deadlinePs());
  }

  /** The paper NP sends a pending CNP at the end of its window. */
  private armNotificationPoint(timer: number, np: DcqcnNotificationPoint | null): void {
    this.arm(timer, np?.deadlinePs() ?? null);
  }

  private arm(timer: number, deadline: number | null): void {
    armTimer(this.ctx, timer, deadline);
  }

  // --- accounting and observation ----------------------------------------------------------

  /** The priorities this NIC pauses its ToR on. */
  get pfcPriorities(): readonly number[] {
    return this.config.settings.pfc.lossless;
  }

  get qpMetricsEnabled(): boolean {
    return this.config.settings.qpMetrics;
  }

  get lineRateBps(): number {
    return this.pacer.lineRateBps;
  }

  get senderQps(): readonly SenderQp[] {
    return this.senders;
  }

  get receiverQps(): readonly ReceiverQp[] {
    return this.receivers;
  }

  /** Goodput of the RDMA transport: payload this host's responders hold for good (`RcResponder` stats.bytesDelivered), and what its READs brought in. */
  get goodputBytes(): number {
    let bytes = this.stats.readBytesReceived;
    for (const r of this.receivers) bytes += r.resp.stats.bytesDelivered;
    return bytes;
  }
}
