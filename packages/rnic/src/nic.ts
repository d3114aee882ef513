/**
 * A host's RDMA NIC (DESIGN §5): RC queue pairs (requesters for the connections this host
 * opens, responders for those others open to it), DCQCN per QP (reaction point paces the
 * sender, notification point turns CE marks into CNPs), the receive buffer with its PFC, and
 * the workload that posts messages. One port; replies (ACK/NAK/CNP) go before data, data
 * QPs round robin, each paced at its DCQCN rate. Beside the NIC, the host's TCP-like stack
 * (issue 14; tcp-requester.ts, tcp.ts) sends on the same port: its connections take their
 * turns with the QPs, their segments and ACKs reach it a receive latency after the NIC's buffer
 * drained them, and a write enters a stream after the scheduling and send latency.
 */
import { FrameKind, NO_BYTES, Opcode, carriesReth, frameBytes, newFrame, rdmaFields, serializedBytes, u64Bytes, u64Of, type ByteAccounting, type DscpMap, type Frame, type RdmaFields } from '@rocelab/wire';
import { FixedHistogram, exponentialBounds, wireTimePs, type NodeContext, type NodeModel, type WireModel } from '@rocelab/sim';
import type { HostTraffic, MessagePost, Transport } from '@rocelab/workload';
import { NAK_INVALID_REQUEST, NAK_PSN_SEQUENCE_ERROR, NAK_REMOTE_ACCESS_ERROR, syndromeKind } from './aeth.js';
import { DcqcnNotificationPoint } from './dcqcn-np.js';
import { DcqcnReactionPoint } from './dcqcn-rp.js';
import { LATENCY_BUCKETS, LATENCY_BUCKETS_FACTOR, LATENCY_BUCKETS_START_S } from './defaults.js';
import { NicPfc, type NicPfcTimer } from './nic-pfc.js';
import type { NicSettings } from './nic-settings.js';
import { MemoryRegions, type AccessError } from './memory-region.js';
import { psnAdd } from './psn.js';
import { RcRequester, type AtomicOperands, type Completion, type WorkOpcode } from './rc-requester.js';
import type { SelectiveRepeatConfig } from './selective-repeat.js';
import { RcResponder, type ReadResponses, type ResponderResult } from './rc-responder.js';
import { payloadOf, readResponseOpcode } from './segmentation.js';
import { TcpReceiver } from './tcp.js';
import { TcpRequester, unwrapSeq } from './tcp-requester.js';

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
  /**
   * An application's QP on registered memory (issue 13): its frames carry addresses, rkeys and
   * the bytes themselves, and its work comes from `postApp`, not from the host's traffic.
   */
  memory?: boolean;
  /** The host's TCP-like stack carries it instead of an RC QP (absent: rdma). */
  transport?: Transport;
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
  /** The host's registered memory, which its memory-backed QPs read and write (an application's). */
  memory?: MemoryRegions;
  /**
   * Selective repeat with `bdpCap: auto`: a requester's cap on packets in flight, its
   * bandwidth-delay product (the runtime knows the path).
   */
  bdpCapOf?: (end: QpEnd) => number;
}

/**
 * Work an application posts on a memory-backed QP (the app runtime turns its verbs into these).
 * `local` is the registered buffer the operation uses: what a WRITE or SEND sends (read when each
 * packet leaves, as a NIC's DMA does), where a READ's bytes land, where an atomic puts the word
 * it found (null: nowhere).
 */
export interface AppWork {
  opcode: WorkOpcode;
  local: Uint8Array | null;
  sizeBytes: number;
  /** WRITE and READ: the remote address and its rkey. */
  remote?: { address: bigint; rkey: number };
  atomic?: AtomicOperands;
  immediate?: number;
}

/** A message received into a posted receive of a memory-backed QP: a SEND's bytes, or a WRITE with immediate's notice. */
export interface AppReceive {
  opcode: 'send' | 'writeImmediate';
  bytes: number;
  immediate: number | null;
  /** The receive buffer it consumed (the one posted first). */
  buffer: Uint8Array;
}

/** What the NIC tells the application running on its host. Called from a timer event, never in the middle of a frame. */
export interface AppEvents {
  onCompletion(qpn: number, wrId: number, completion: Completion): void;
  onReceive(qpn: number, receive: AppReceive): void;
  /** After the completions and receives of this instant were handed in, or when the timer the app armed with `setAppTimer` fired. */
  run(nowPs: number): void;
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
  /** A TCP connection's message: `tcp` or `dctcp` (absent on RDMA). */
  transport?: 'tcp' | 'dctcp';
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

/** What a QP that sends paced data needs: the requester for its requests, the responder for READ responses. */
interface Paced {
  end: QpEnd;
  rp: DcqcnReactionPoint | null;
  nextSendPs: number;
  /** The last packet's start and wire bytes: a rate increase may let the next one go earlier. */
  lastSendPs: number;
  lastWireBytes: number;
  /** When to look again whether a rate increase shortened the running gap (cached: costly to find). */
  repaceAtPs: number;
  priority: number;
}

interface SenderQp extends Paced {
  index: number;
  req: RcRequester;
  /** Uncompleted work requests by id. */
  messages: Map<number, MessageResult>;
  /** A pingmesh probe connection. */
  probe: boolean;
  /** The flow id of the first message posted on it; null before any. */
  firstFlow: number | null;
  /** CNPs (or CNP-flagged ACKs) it received. */
  cnps: number;
  /** Memory-backed QPs: the application's work by WR id. */
  app: Map<number, AppWork> | null;
  /** The notification point for the READ responses coming back on it (made at the first CE mark). */
  np: DcqcnNotificationPoint | null;
}

/** A TCP connection this host opens: its stream, its messages and its timer. */
interface TcpQp extends Paced {
  index: number;
  req: TcpRequester;
  messages: Map<number, MessageResult>;
  probe: boolean;
  firstFlow: number | null;
  cnps: number;
  app: null;
  dctcp: boolean;
}

/** A TCP connection other hosts open to this one. */
interface TcpReceiverQp {
  end: QpEnd;
  rx: TcpReceiver;
}

/** A QP's or TCP connection's sending side, as metrics and traces read it. */
export type HostSender = SenderQp | TcpQp;

/** The responses a READ request asked for, sent one packet at a time at the responder's pace. */
interface ReadOut {
  read: ReadResponses;
  /** The next response's index, 0..count−1. */
  next: number;
  msn: number;
  /** Memory-backed QPs: the bytes read, as they were when the request was executed. */
  data: Uint8Array | null;
}

interface ReceiverQp extends Paced {
  /** Its timer: QP_TIMER_BASE + senders + index. */
  timer: number;
  resp: RcResponder;
  np: DcqcnNotificationPoint | null;
  /**
   * READ responses to send, and the ACKs, NAKs and Atomic ACKs that came after them: responses
   * leave a QP in PSN order, so a reply may not overtake a READ's responses. Null until its first READ.
   */
  out: Array<ReadOut | Frame> | null;
  /** Memory-backed QPs: where the WRITE being received goes (from its RETH), and the posted receive buffers, oldest first. */
  writeTarget: { bytes: Uint8Array; offset: number } | null;
  receives: Uint8Array[];
}

const isFrame = (item: ReadOut | Frame): item is Frame => 'kind' in item;

/** The pacing state of a sender that has sent nothing yet, on `priority`. */
function unpaced(priority: number): Omit<Paced, 'end' | 'rp'> {
  return { nextSendPs: 0, lastSendPs: 0, lastWireBytes: 0, repaceAtPs: Infinity, priority };
}

/** No memory registered: every access by rkey is refused. */
const NO_MEMORY = new MemoryRegions();

const PORT = 0;
const POST_TIMER = 0;
const WAKE_TIMER = 1;
const PFC_TIMERS: readonly NicPfcTimer[] = ['drain', 'refresh', 'minor', 'critical'];
const PFC_TIMER_BASE = 2;
const QP_TIMER_BASE = 8;

export class Nic implements NodeModel {
  private readonly senders: SenderQp[];
  private readonly tcpSenders: TcpQp[];
  private readonly allSenders: HostSender[];
  private readonly tcpByQpn = new Map<number, TcpQp>();
  private readonly tcpByKey = new Map<string, TcpQp>();
  private readonly tcpReceivers = new Map<number, TcpReceiverQp>();
  /** TCP segments and ACKs the NIC handed up, each processed by the stack at `atPs` (a fixed latency: FIFO is time order). */
  private readonly stackIn: Array<{ atPs: number; frame: Frame }> = [];
  private stackInHead = 0;
  private readonly tcpTimerBase: number;
  private readonly stackTimer: number;
  private readonly receivers: ReceiverQp[];
  private readonly senderByQpn = new Map<number, SenderQp>();
  private readonly receiverByQpn = new Map<number, ReceiverQp>();
  private readonly senderByKey = new Map<string, SenderQp>();
  private readonly replies: Frame[] = [];
  /** Receivers with READ responses or replies queued behind them, in the order they got them. */
  private readonly responding: ReceiverQp[] = [];
  private readonly memory: MemoryRegions;
  private app: AppEvents | null = null;
  private readonly appEvents: Array<() => void> = [];
  private readonly appTimer: number;
  private appTimerPs: number | null = null;
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
    /** READ response payload taken in order by this host's requesters: a READ's goodput. */
    readBytesReceived: 0,
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
    const isTcp = (end: QpEnd) => end.transport === 'tcp' || end.transport === 'dctcp';
    this.senders = (rebooted ? [] : config.requesters.filter((e) => !isTcp(e))).map((end, index) => ({
      index,
      end,
      req: new RcRequester({ mtu: port.out.mtu, recovery: s.recovery, ackTimeoutPs: s.ackTimeoutPs, retryCount: s.retryCount, rnrRetry: s.rnrRetry, initialPsn: 0, ...this.selectiveRepeatOf(end) }),
      rp: s.dcqcn.enabled ? new DcqcnReactionPoint(s.dcqcn.params, this.lineRateBps) : null,
      ...unpaced(config.dscpMap[end.dscp]!),
      messages: new Map(),
      probe: end.probe,
      firstFlow: null,
      cnps: 0,
      app: end.memory === true ? new Map<number, AppWork>() : null,
      np: null,
    }));
    this.receivers = (rebooted ? [] : config.responders.filter((e) => !isTcp(e))).map((end, index) => {
      const resp = new RcResponder({ initialPsn: 0, ackEvery: s.ackEvery, nakPolicy: s.nakPolicy, nakIntervalPs: s.nakIntervalPs, rnrTimerCode: s.rnrTimerCode, recovery: s.recovery, mtu: port.out.mtu, atomicReplyCache: s.atomicReplyCache });
      // An application posts its own receives; the built-in traffic has them posted for it.
      if (end.memory !== true) resp.postReceive(s.postedReceives);
      return {
        timer: QP_TIMER_BASE + this.senders.length + index,
        end,
        resp,
        np: this.notificationPoint(),
        rp: null,
        ...unpaced(config.dscpMap[end.dscp]!),
        out: null,
        writeTarget: null,
        receives: [],
      };
    });
    this.memory = config.memory ?? NO_MEMORY;
    // Timers: senders' RTOs, receivers' NPs, senders' NPs (READ responses), the app's, TCP connections', the stack's.
    this.appTimer = QP_TIMER_BASE + 2 * this.senders.length + this.receivers.length;
    this.tcpTimerBase = this.appTimer + 1;
    const tcp = s.tcp;
    this.tcpSenders = (rebooted ? [] : config.requesters.filter(isTcp)).map((end, index) => ({
      index,
      end,
      req: new TcpRequester(
        { mssBytes: tcp.mssBytes ?? port.out.mtu, initialCwndSegments: tcp.initialWindowSegments, initialRtoPs: tcp.initialRtoPs, minRtoPs: tcp.minRtoPs, maxRtoPs: tcp.maxRtoPs, dctcpGain: end.transport === 'dctcp' ? tcp.dctcpGain : null, receiveWindowBytes: tcp.receiveWindowBytes },
        tcp.schedulingPs + tcp.sendLatencyPs,
      ),
      rp: null,
      ...unpaced(config.dscpMap[end.dscp]!),
      messages: new Map(),
      probe: end.probe,
      firstFlow: null,
      cnps: 0,
      app: null,
      dctcp: end.transport === 'dctcp',
    }));
    this.stackTimer = this.tcpTimerBase + this.tcpSenders.length;
    for (const q of this.tcpSenders) {
      this.tcpByQpn.set(q.end.qpn, q);
      this.tcpByKey.set(q.end.key, q);
    }
    for (const end of rebooted ? [] : config.responders.filter(isTcp)) this.tcpReceivers.set(end.qpn, { end, rx: new TcpReceiver() });
    this.allSenders = [...this.senders, ...this.tcpSenders];
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

  /** A requester's selective-repeat parameters (none under go-back). */
  private selectiveRepeatOf(end: QpEnd): { selectiveRepeat?: SelectiveRepeatConfig } {
    const s = this.config.settings;
    if (s.recovery !== 'selectiveRepeat') return {};
    const { bdpCapPackets, rtoLowPs, rtoHighPs, lowRtoBelowPackets } = s.selectiveRepeat;
    const cap = bdpCapPackets ?? this.config.bdpCapOf?.(end);
    if (cap === undefined) throw new Error(`${this.ctx.name}: selective repeat with bdpCap auto needs the QP's path (bdpCapOf)`);
    return { selectiveRepeat: { bdpCapPackets: cap, rtoLowPs, rtoHighPs, lowRtoBelowPackets } };
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
    // Requesters, responders with READ responses and TCP connections take turns; without READs or TCP this is the senders alone.
    const n = this.senders.length;
    const withReads = n + this.responding.length;
    const total = withReads + this.tcpSenders.length;
    let wakePs = Infinity;
    for (let k = 0; k < total; k++) {
      const i = (this.rr + k) % total;
      if (i >= withReads) {
        const t = this.tcpSenders[i - withReads]!;
        if ((pausedMask & (1 << t.priority)) !== 0 || !t.req.hasSegment(nowPs)) continue;
        if (t.nextSendPs > nowPs) {
          wakePs = Math.min(wakePs, t.nextSendPs);
          continue;
        }
        this.rr = (i + 1) % total;
        return this.transmit(this.tcpSegment(nowPs, t));
      }
      if (i >= n) {
        const r = this.responding[i - n]!;
        if ((pausedMask & (1 << r.priority)) !== 0) continue;
        const head = r.out![0]!;
        if (isFrame(head)) {
          this.rr = (i + 1) % total;
          return this.transmit(this.shiftOut(r));
        }
        if (r.nextSendPs > nowPs && !this.repace(nowPs, r)) {
          wakePs = Math.min(wakePs, r.nextSendPs, r.repaceAtPs);
          continue;
        }
        this.rr = (i + 1) % total;
        return this.transmit(this.readResponseFrame(nowPs, r, head));
      }
      const q = this.senders[i]!;
      if ((pausedMask & (1 << q.priority)) !== 0 || !q.req.hasPacket(nowPs)) continue;
      if (q.nextSendPs > nowPs && !this.repace(nowPs, q)) {
        wakePs = Math.min(wakePs, q.nextSendPs, q.repaceAtPs);
        continue;
      }
      this.rr = (i + 1) % total;
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
  private repace(nowPs: number, q: Paced): boolean {
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
    if (q.app !== null) frame.rdma = requestFields(q.app.get(p.wrId)!, p.opcode, p.offsetBytes, p.payloadBytes, p.immediate);
    this.pace(nowPs, q, frame);
    this.armRequester(q);
    return frame;
  }

  /**
   * Pace the QP: the next packet may start once this one would have left at the QP's rate
   * (HPCC `UpdateNextAvail`; a new rate takes effect from the next gap).
   */
  private pace(nowPs: number, q: Paced, frame: Frame): void {
    const rate = Math.min(q.rp?.rateBps(nowPs) ?? this.lineRateBps, q.end.rateCapBps ?? Infinity);
    q.lastSendPs = nowPs;
    q.lastWireBytes = serializedBytes(frame, this.accounting);
    if (rate < this.lineRateBps) {
      q.nextSendPs = nowPs + wireTimePs(q.lastWireBytes, rate, this.config.wire);
      q.repaceAtPs = this.config.settings.repace && q.rp !== null ? (q.rp.nextRateChangePs() ?? Infinity) : Infinity;
    }
    q.rp?.onBytesSent(nowPs, frameBytes(frame, this.accounting));
  }

  /** The next segment of a TCP connection (ECN-capable under DCTCP only), paced by its rate cap if it has one. */
  private tcpSegment(nowPs: number, t: TcpQp): Frame {
    const seg = t.req.nextSegment(nowPs)!;
    if (seg.retransmission) {
      const m = t.req.headWrId === null ? undefined : t.messages.get(t.req.headWrId);
      if (m !== undefined) m.retransmittedPackets++;
    }
    const frame = this.addressed(FrameKind.tcpData, t.end);
    frame.ecn = t.dctcp ? 2 : 0;
    frame.tcpSeq = seg.seq % 2 ** 32;
    frame.payloadBytes = seg.lengthBytes;
    this.pace(nowPs, t, frame);
    this.armTcp(t);
    return frame;
  }

  /** The next response of the READ at the head of `r`'s queue: data on the reverse path, paced by the responder's own DCQCN. */
  private readResponseFrame(nowPs: number, r: ReceiverQp, out: ReadOut): Frame {
    const { read } = out;
    const index = out.next++;
    const mtu = this.ctx.ports[PORT]!.out.mtu;
    const frame = this.addressed(FrameKind.data, r.end);
    frame.ecn = 2;
    frame.opcode = readResponseOpcode(index, read.count);
    frame.psn = psnAdd(read.firstPsn, index);
    frame.msn = out.msn;
    frame.payloadBytes = read.lengthBytes === 0 ? 0 : payloadOf(index, read.lengthBytes, mtu);
    if (out.data !== null) frame.rdma = rdmaFields({ data: out.data.subarray(index * mtu, index * mtu + frame.payloadBytes) });
    if (out.next === read.count) this.shiftOut(r);
    this.pace(nowPs, r, frame);
    return frame;
  }

  /** Take the head of a responder's queue; a drained responder leaves the turns. */
  private shiftOut<T extends ReadOut | Frame>(r: ReceiverQp): T {
    const head = r.out!.shift()!;
    if (r.out!.length === 0) this.responding.splice(this.responding.indexOf(r), 1);
    return head as T;
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
        // The kernel's receive path: the stack sees it a fixed latency later.
        this.stackIn.push({ atPs: nowPs + this.config.settings.tcp.receiveLatencyPs, frame });
        if (this.ctx.timerDeadlinePs(this.stackTimer) === null) this.ctx.setTimer(this.stackTimer, nowPs + this.config.settings.tcp.receiveLatencyPs);
        return;
    }
    this.ctx.kick(PORT);
  }

  /** The stack processes what the receive latency has let through, and waits for the next. */
  private runStack(nowPs: number): void {
    const queue = this.stackIn;
    while (this.stackInHead < queue.length && queue[this.stackInHead]!.atPs <= nowPs) {
      const { frame } = queue[this.stackInHead++]!;
      if (frame.kind === FrameKind.tcpData) this.onTcpSegment(frame);
      else this.onTcpAck(nowPs, frame);
    }
    if (this.stackInHead === queue.length) {
      queue.length = 0;
      this.stackInHead = 0;
    } else {
      this.ctx.setTimer(this.stackTimer, queue[this.stackInHead]!.atPs);
    }
    this.ctx.kick(PORT);
  }

  /** A segment reaches its connection's receiver: taken (in order or held) or a duplicate; every segment is ACKed, its CE echoed. */
  private onTcpSegment(frame: Frame): void {
    const r = this.tcpReceivers.get(frame.destQp);
    if (r === undefined) return this.ctx.drop(frame, 'misdelivered', PORT);
    this.stats.receivedPayloadBytes += frame.payloadBytes;
    const seq = unwrapSeq(frame.tcpSeq, r.rx.expected);
    const duplicates = r.rx.stats.duplicates;
    const reply = r.rx.onSegment(seq, frame.payloadBytes, frame.ecn === 3);
    if (r.rx.stats.duplicates > duplicates) this.ctx.drop(frame, 'out_of_sequence', PORT);
    else this.ctx.deliver(frame);
    const ack = this.addressed(FrameKind.tcpAck, r.end);
    ack.tcpAck = reply.ack % 2 ** 32;
    ack.becn = reply.ece;
    this.replies.push(ack);
  }

  /** An ACK reaches the sending connection: the window moves, and the messages it covers complete. */
  private onTcpAck(nowPs: number, frame: Frame): void {
    const t = this.tcpByQpn.get(frame.destQp);
    if (t === undefined) return this.ctx.drop(frame, 'misdelivered', PORT);
    const ack = unwrapSeq(frame.tcpAck, t.req.sender.snd.una);
    // Nothing in the pod acknowledges bytes never sent; a frame that does is not this connection's.
    if (ack > t.req.sender.highestSent) return this.ctx.drop(frame, 'misdelivered', PORT);
    this.ctx.deliver(frame);
    if (frame.becn) t.cnps++;
    this.complete(t, t.req.onAck(nowPs, ack, frame.becn));
    this.armTcp(t);
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
    const result = r.end.memory === true ? this.onMemoryRequest(nowPs, r, frame) : r.resp.onPacket(nowPs, frame.psn, frame.opcode, frame.payloadBytes, frame.ackReq, frame.dmaLength);
    switch (result.verdict) {
      case 'accepted':
        this.ctx.deliver(frame);
        if (result.messageBytes !== null) this.stats.messagesReceived += result.messages ?? 1;
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
    if (result.read !== undefined) this.queueRead(r, result.read, frame);
    const reply = result.reply;
    if (reply === null) return;
    // hpcc-ns3: no CNP packets; the ACK of a CE-marked packet carries the CNP flag (PHYSICS §1.6).
    const cnpFlag = ce && this.config.settings.dcqcn.enabled && this.config.settings.dcqcn.variant === 'hpcc-ns3';
    const ack = this.addressed(FrameKind.ack, r.end);
    ack.opcode = reply.kind === 'atomicAck' ? Opcode.atomicAcknowledge : Opcode.acknowledge;
    ack.psn = reply.psn;
    ack.msn = reply.msn;
    ack.syndrome = reply.kind === 'nak' ? reply.syndrome : 0;
    if (reply.kind === 'nak' && reply.sackPsn !== undefined) ack.sackPsn = reply.sackPsn;
    ack.becn = cnpFlag;
    if (reply.kind === 'atomicAck') ack.rdma = rdmaFields({ original: u64Bytes(reply.original) });
    // A reply may not overtake the READ responses queued before it on its QP.
    if (r.out !== null && r.out.length > 0) r.out.push(ack);
    else this.replies.push(ack);
  }

  /**
   * A request on a memory-backed QP: the in-order one is checked against the host's memory
   * first (rkey, bounds, access, a receive large enough), and refused with its NAK if it fails;
   * what is accepted then moves its bytes.
   */
  private onMemoryRequest(nowPs: number, r: ReceiverQp, frame: Frame): ResponderResult {
    const { resp } = r;
    const fields = frame.rdma;
    const op = frame.opcode;
    if (op === Opcode.fetchAdd || op === Opcode.compareSwap) {
      const atomic = { address: BigInt(fields?.va ?? 0), rkey: fields?.rkey ?? 0, operand: u64Of(fields?.operand ?? NO_BYTES), swap: u64Of(fields?.swap ?? NO_BYTES) };
      return resp.onAtomic(nowPs, frame.psn, op === Opcode.fetchAdd ? 'fetchAdd' : 'compareSwap', atomic, this.memory);
    }
    const inOrder = resp.state === 'ready' && frame.psn === resp.expectedPsn;
    const offset = resp.messageOffset;
    const send = op <= Opcode.sendOnlyImmediate;
    if (inOrder) {
      const refusal = this.memoryRefusal(r, frame, offset, send);
      if (refusal !== null) return resp.refuse(frame.psn, refusal);
    }
    const result = resp.onPacket(nowPs, frame.psn, op, frame.payloadBytes, frame.ackReq, frame.dmaLength, fields?.immediate ?? 0);
    const data = fields?.data ?? NO_BYTES;
    if (result.verdict === 'accepted' && data.length > 0) {
      if (send) r.receives[0]!.set(data, offset);
      else r.writeTarget!.bytes.set(data, r.writeTarget!.offset + offset);
    }
    if (result.receive !== undefined) {
      const buffer = r.receives.shift()!;
      const { opcode, bytes, immediate } = result.receive;
      this.toApp(() => this.app?.onReceive(r.end.qpn, { opcode, bytes, immediate, buffer }));
    }
    return result;
  }

  /** Why the in-order request `frame` cannot be executed against memory (a NAK syndrome), or null. */
  private memoryRefusal(r: ReceiverQp, frame: Frame, offset: number, send: boolean): number | null {
    const op = frame.opcode;
    if (send) {
      // Its receive is the oldest posted one; none is RNR, which the responder answers itself.
      const buffer = r.receives[0];
      return buffer !== undefined && offset + frame.payloadBytes > buffer.length ? NAK_INVALID_REQUEST : null;
    }
    if (!carriesReth(op)) return null;
    const fields = frame.rdma;
    const read = op === Opcode.readRequest;
    const where = this.memory.locate(BigInt(fields?.va ?? 0), frame.dmaLength, fields?.rkey ?? 0, read ? 'remoteRead' : 'remoteWrite');
    if (typeof where === 'string') return accessSyndrome(where);
    if (!read) r.writeTarget = where;
    return null;
  }

  /** Queue the responses a READ request asks for (executed in order, or again for a duplicate). */
  private queueRead(r: ReceiverQp, read: ReadResponses, request: Frame): void {
    let data: Uint8Array | null = null;
    if (r.end.memory === true) {
      const bytes = this.memory.read(BigInt(request.rdma?.va ?? 0), read.lengthBytes, request.rdma?.rkey ?? 0);
      // A duplicate is executed again without a check: the first execution passed it, and a region is never deregistered.
      data = typeof bytes === 'string' ? new Uint8Array(read.lengthBytes) : bytes.slice();
    }
    if (r.out === null) {
      r.out = [];
      r.rp = this.config.settings.dcqcn.enabled ? new DcqcnReactionPoint(this.config.settings.dcqcn.params, this.lineRateBps) : null;
    }
    if (r.out.length === 0) this.responding.push(r);
    r.out.push({ read, next: 0, msn: r.resp.messageSequence, data });
  }

  /** A READ response reached the requester: it acknowledges what came before it, and its bytes land in the READ's buffer. */
  private onReadResponse(nowPs: number, frame: Frame): void {
    const q = this.senderByQpn.get(frame.destQp);
    if (q === undefined) return this.ctx.drop(frame, 'misdelivered', PORT);
    this.stats.receivedPayloadBytes += frame.payloadBytes;
    if (frame.ecn === 3 && this.config.settings.dcqcn.enabled && this.config.settings.dcqcn.variant !== 'hpcc-ns3') {
      q.np ??= this.notificationPoint();
      if (q.np!.onCe(nowPs)) this.queueCnp(q.end);
      this.armNotificationPoint(QP_TIMER_BASE + this.senders.length + this.receivers.length + q.index, q.np!);
    }
    const target = q.req.responseTarget(frame.psn);
    if (target === null) {
      this.ctx.drop(frame, 'out_of_sequence', PORT);
    } else {
      this.ctx.deliver(frame);
      this.stats.readBytesReceived += frame.payloadBytes;
      const data = frame.rdma?.data;
      if (data !== undefined && data.length > 0) q.app?.get(target.wrId)?.local?.set(data, target.offsetBytes);
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
    this.armRequester(q);
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
    const cnp = this.addressed(FrameKind.cnp, end);
    cnp.dscp = this.config.settings.cnpDscp;
    cnp.opcode = Opcode.cnp;
    cnp.becn = true;
    this.replies.push(cnp);
  }

  private notificationPoint(): DcqcnNotificationPoint | null {
    const s = this.config.settings;
    return s.dcqcn.enabled && s.dcqcn.variant !== 'hpcc-ns3' ? new DcqcnNotificationPoint(s.dcqcn.variant, s.cnpIntervalPs) : null;
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
    if (timer === this.appTimer) return this.runApp(nowPs);
    if (timer === this.stackTimer) return this.runStack(nowPs);
    if (timer >= this.tcpTimerBase) {
      const t = this.tcpSenders[timer - this.tcpTimerBase]!;
      this.complete(t, t.req.onTimer(nowPs));
      this.armTcp(t);
      return this.ctx.kick(PORT);
    }
    const n = this.senders.length;
    const m = this.receivers.length;
    const i = timer - QP_TIMER_BASE;
    if (i < n) {
      const q = this.senders[i]!;
      this.complete(q, q.req.onTimer(nowPs));
      this.armRequester(q);
    } else if (i < n + m) {
      const r = this.receivers[i - n]!;
      if (r.np?.onTimer(nowPs)) this.queueCnp(r.end);
      this.armNotificationPoint(r.timer, r.np);
    } else {
      const q = this.senders[i - n - m]!;
      if (q.np?.onTimer(nowPs)) this.queueCnp(q.end);
      this.armNotificationPoint(timer, q.np);
    }
    this.ctx.kick(PORT);
  }

  // --- the application on this host (memory-backed QPs) ------------------------------------

  /** The application running on this host: it hears of completions, receives and its timer through `events`. */
  attachApp(events: AppEvents): void {
    this.app = events;
  }

  /** Arm the application's timer (null: disarm). */
  setAppTimer(atPs: number | null): void {
    this.appTimerPs = atPs;
    if (this.appEvents.length === 0) this.arm(this.appTimer, atPs);
  }

  /**
   * Post an application's work request on the memory-backed QP `qpn`; returns its WR id. Its
   * completion comes through `AppEvents.onCompletion`. Throws (with the requester's message)
   * for a QP in error or a malformed request: the app runtime reports it as the app's error.
   */
  postApp(qpn: number, work: AppWork): number {
    const q = this.senderByQpn.get(qpn);
    if (q === undefined || q.app === null) throw new Error(`no memory-backed QP ${qpn} sends from ${this.ctx.name}`);
    const id = this.wrId++;
    q.req.post({ id, opcode: work.opcode, sizeBytes: work.sizeBytes, postedPs: this.ctx.nowPs, ...(work.atomic === undefined ? {} : { atomic: work.atomic }), ...(work.immediate === undefined ? {} : { immediate: work.immediate }) });
    q.app.set(id, work);
    this.ctx.kick(PORT);
    return id;
  }

  /** Post a receive buffer on the memory-backed QP `qpn` (the one its peer sends to this host on). */
  postAppReceive(qpn: number, buffer: Uint8Array): void {
    const r = this.receiverByQpn.get(qpn);
    if (r === undefined || r.end.memory !== true) throw new Error(`no memory-backed QP ${qpn} receives at ${this.ctx.name}`);
    r.receives.push(buffer);
    r.resp.postReceive(1);
  }

  /**
   * Hand something to the application after the event that caused it, never in the middle of
   * one: the app may post work, and the NIC's state must be whole when it does.
   */
  private toApp(event: () => void): void {
    if (this.app === null) return;
    if (this.appEvents.length === 0) this.ctx.setTimer(this.appTimer, this.ctx.nowPs);
    this.appEvents.push(event);
  }

  private runApp(nowPs: number): void {
    const events = this.appEvents.splice(0);
    for (const event of events) event();
    if (this.appTimerPs !== null && this.appTimerPs <= nowPs) this.appTimerPs = null;
    this.app?.run(nowPs);
    // Events the app's own work raised meanwhile, or its next wake-up.
    if (this.appEvents.length > 0) this.ctx.setTimer(this.appTimer, nowPs);
    else this.arm(this.appTimer, this.appTimerPs);
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
      const q: HostSender | undefined = this.senderByKey.get(post.connection) ?? this.tcpByKey.get(post.connection);
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
      if ('dctcp' in q) result.transport = q.dctcp ? 'dctcp' : 'tcp';
      q.messages.set(id, result);
      q.firstFlow ??= post.flow;
      if (post.probe) this.probes.sent++;
      else this.messageLog.push(result);
      const wr = { id, opcode: post.opcode, sizeBytes: post.sizeBytes, postedPs: nowPs };
      if ('dctcp' in q) {
        q.req.post(wr);
        this.armTcp(q);
      } else {
        q.req.post(wr);
      }
      this.nextPost = this.config.traffic.next();
    }
    if (this.nextPost !== null) this.ctx.setTimer(POST_TIMER, this.nextPost.atPs);
    this.ctx.kick(PORT);
  }

  private complete(q: HostSender, done: readonly Completion[]): void {
    if (q.app !== null) return this.completeApp(q as SenderQp, q.app, done);
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

  private completeApp(q: SenderQp, work: Map<number, AppWork>, done: readonly Completion[]): void {
    for (const c of done) {
      const w = work.get(c.wrId);
      work.delete(c.wrId);
      // An atomic puts the word it found in its local buffer, as the IB atomic's scatter entry does.
      if (w?.local != null && c.atomicOriginal !== undefined) w.local.set(u64Bytes(c.atomicOriginal));
      if (c.status === 'success') this.completion.observe((c.completedPs - c.postedPs) / 1e12);
      this.toApp(() => this.app?.onCompletion(q.end.qpn, c.wrId, c));
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

  /** Keep a TCP connection's timer on its RTO or its next write. */
  private armTcp(t: TcpQp): void {
    this.arm(this.tcpTimerBase + t.index, t.req.deadlinePs());
  }

  /** Keep the QP's timer on the requester's deadline (RTO or RNR wait). */
  private armRequester(q: SenderQp): void {
    this.arm(QP_TIMER_BASE + q.index, q.req.deadlinePs());
  }

  /** The paper NP sends a pending CNP at the end of its window. */
  private armNotificationPoint(timer: number, np: DcqcnNotificationPoint | null): void {
    this.arm(timer, np?.deadlinePs() ?? null);
  }

  private arm(timer: number, deadline: number | null): void {
    if (deadline === this.ctx.timerDeadlinePs(timer)) return;
    if (deadline === null) this.ctx.cancelTimer(timer);
    else this.ctx.setTimer(timer, Math.max(deadline, this.ctx.nowPs));
  }

  // --- accounting and observation ----------------------------------------------------------

  /** Frames in the receive buffer, and TCP frames the stack has not processed yet. */
  heldFrames(): number {
    return this.pfc.heldFrames + this.stackIn.length - this.stackInHead;
  }

  heldFramesByPort(): readonly number[] {
    return [this.heldFrames()];
  }

  /** The priorities this NIC pauses its ToR on. */
  get pfcPriorities(): readonly number[] {
    return this.config.settings.pfc.lossless;
  }

  get qpMetricsEnabled(): boolean {
    return this.config.settings.qpMetrics;
  }

  /** Every sending side: the RC requesters, then the TCP connections. */
  get senderQps(): readonly HostSender[] {
    return this.allSenders;
  }

  get receiverQps(): readonly ReceiverQp[] {
    return this.receivers;
  }

  /** Goodput: payload this host's responders hold for good (`RcResponder` stats.bytesDelivered), and what its READs brought in. */
  get goodputBytes(): number {
    let bytes = this.stats.readBytesReceived;
    for (const r of this.receivers) bytes += r.resp.stats.bytesDelivered;
    for (const r of this.tcpReceivers.values()) bytes += r.rx.stats.deliveredBytes;
    return bytes;
  }

  /** The TCP stack's counters, summed over its connections (both ends). */
  get tcpStats(): { segmentsSent: number; retransmittedSegments: number; fastRetransmits: number; rtoExpirations: number; cwndCuts: number; outOfOrder: number; duplicates: number } {
    const out = { segmentsSent: 0, retransmittedSegments: 0, fastRetransmits: 0, rtoExpirations: 0, cwndCuts: 0, outOfOrder: 0, duplicates: 0 };
    for (const t of this.tcpSenders) {
      const s = t.req.sender.stats;
      out.segmentsSent += s.segmentsSent;
      out.retransmittedSegments += s.retransmittedSegments;
      out.fastRetransmits += s.fastRetransmits;
      out.rtoExpirations += s.rtoExpirations;
      out.cwndCuts += s.cwndCuts;
    }
    for (const r of this.tcpReceivers.values()) {
      out.outOfOrder += r.rx.stats.outOfOrder;
      out.duplicates += r.rx.stats.duplicates;
    }
    return out;
  }

  /** Whether this host has TCP connections (its metrics then include the stack's). */
  get hasTcp(): boolean {
    return this.tcpSenders.length > 0 || this.tcpReceivers.size > 0;
  }

  /** Every message this host posted (probes apart) and its probes, progress brought up to date. */
  results(): { sent: MessageResult[]; probes: ProbeResults } {
    for (const q of this.allSenders) {
      for (const [wrId, m] of q.messages) {
        m.deliveredBytes = q.req.ackedBytes(wrId);
        const progress = q.req.lastProgressPs;
        m.lastProgressPs = progress !== null && progress > m.postedPs ? progress : null;
      }
    }
    let pending = 0;
    for (const q of this.allSenders) if (q.probe) pending += q.messages.size;
    return { sent: this.messageLog, probes: { ...this.probes, pending } };
  }
}

/**
 * The RDMA fields a memory-backed QP's request packet carries: a WRITE's or SEND's bytes (copied
 * as the packet leaves: the application may change its buffer afterwards), the RETH of a WRITE's
 * first packet and of a READ request (its address advanced to the first byte it asks for), an
 * atomic's AtomicETH, and the immediate data of a last packet.
 */
function requestFields(work: AppWork, opcode: number, offsetBytes: number, payloadBytes: number, immediate: number | undefined): RdmaFields {
  const fields = rdmaFields({ immediate: immediate ?? 0 });
  if (work.atomic !== undefined) {
    fields.va = Number(work.atomic.address);
    fields.rkey = work.atomic.rkey;
    fields.operand = u64Bytes(work.atomic.operand);
    fields.swap = u64Bytes(work.atomic.swap);
    return fields;
  }
  if (carriesReth(opcode)) {
    fields.va = Number(work.remote?.address ?? 0n) + (opcode === Opcode.readRequest ? offsetBytes : 0);
    fields.rkey = work.remote?.rkey ?? 0;
  }
  if (payloadBytes > 0 && work.local !== null) fields.data = work.local.slice(offsetBytes, offsetBytes + payloadBytes);
  return fields;
}

/** The NAK a refused memory access gets (Linux rxe: a misaligned atomic is an invalid request, the rest remote access errors). */
function accessSyndrome(error: AccessError): number {
  return error === 'misaligned' ? NAK_INVALID_REQUEST : NAK_REMOTE_ACCESS_ERROR;
}

/** RoCEv2 sets the UDP source port per QP for ECMP entropy (PHYSICS §5.1). */
export function udpSourcePort(qpn: number): number {
  return 49152 + (qpn % 16384);
}
