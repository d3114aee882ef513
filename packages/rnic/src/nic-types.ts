/**
 * What the NIC and its host share (nic.ts, and @rocelab/host above it): the connections, the
 * work an application posts and what it hears back, the results of the host's messages, and the
 * state of a queue pair as the NIC keeps it. A file of types and small helpers only, at the bottom
 * of the package, so that the NIC's modules import each other in one direction.
 */
import type { Frame } from '@rocelab/wire';
import type { Transport } from '@rocelab/workload';
import type { DcqcnNotificationPoint } from './dcqcn-np.js';
import type { CongestionControl } from './cc.js';
import type { AtomicOperands, Completion, RcRequester, WorkOpcode } from './rc-requester.js';
import type { ReceivePool, RcResponder, ReadResponses } from './rc-responder.js';

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
  /**
   * UDP ports of what this end sends (issue 26): the requester's are the flow's, the responder's
   * swapped, as HPCC ns-3's ACKs carry them (rdma-hw.cc ReceiveUdp). Absent: 49152 + QPN, 4791.
   */
  udpPorts?: { src: number; dst: number };
}

/** A connection the host's TCP stack carries, not the NIC's RC transport. */
export function isTcp(end: QpEnd): boolean {
  return end.transport === 'tcp' || end.transport === 'dctcp';
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

/** What the host's application hears. Called from a timer event, never in the middle of a frame (@rocelab/host's app scheduler). */
export interface AppEvents {
  onCompletion(qpn: number, wrId: number, completion: Completion): void;
  onReceive(qpn: number, receive: AppReceive): void;
  /** After the completions and receives of this instant were handed in, or when the timer the app armed fired. */
  run(nowPs: number): void;
  /**
   * A remote WRITE, atomic or READ response changed the host's registered memory (native programs
   * that spin on memory wait for this, issue 25). Absent: the NIC does not report it, and no event is made.
   */
  onMemory?(): void;
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
  /** `lost`: still pending when its host was killed (set by the runtime from the dead host's results). */
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

/**
 * A NIC fault or configuration change, in base units (the fault table in @rocelab/topology
 * resolves a file's or an API call's fault to these); null restores what the settings said.
 */
export type NicFault =
  | { kind: 'nicPauseStorm'; on: boolean }
  | { kind: 'drainRate'; drainBps: number | null }
  | { kind: 'pfc'; enabled: boolean | null }
  /**
   * `dscpMisconfig` on a host (issue 24): what the NIC sends with DSCP `dscp` (null: everything but
   * PFC) leaves marked for `priority` (the smallest DSCP its map sends there), while the NIC still
   * paces and pauses it as its own priority; `priority` null: marked as configured again.
   */
  | { kind: 'dscp'; dscp: number | null; priority: number | null };

/** What a sender of paced data keeps (a QP's requester, a responder with READ responses, a TCP connection). */
export interface Paced {
  end: QpEnd;
  /** Its congestion control (DCQCN's reaction point unless `cc:` says otherwise); null: none, line rate. */
  rp: CongestionControl | null;
  nextSendPs: number;
  /** The last packet's start and wire bytes: a rate increase may let the next one go earlier. */
  lastSendPs: number;
  lastWireBytes: number;
  /** When to look again whether a rate increase shortened the running gap (cached: costly to find). */
  repaceAtPs: number;
  priority: number;
}

/** The pacing state of a sender that has sent nothing yet, on `priority`. */
export function unpaced(priority: number): Omit<Paced, 'end' | 'rp'> {
  return { nextSendPs: 0, lastSendPs: 0, lastWireBytes: 0, repaceAtPs: Infinity, priority };
}

/** What a host's sender keeps of its messages: the host's traffic posts them, the NIC or the stack sends them. */
export interface MessageSender extends Paced {
  index: number;
  /** Uncompleted messages by work request id. */
  messages: Map<number, MessageResult>;
  /** A pingmesh probe connection. */
  probe: boolean;
  /** The flow id of the first message posted on it; null before any. */
  firstFlow: number | null;
  /** CNPs (or CNP-flagged ACKs) it received. */
  cnps: number;
}

/** A QP this host sends on: its RC requester and DCQCN reaction point. */
export interface SenderQp extends MessageSender {
  req: RcRequester;
  /** Its retransmission (or RNR wait) timer and its READ-response notification point's timer. */
  rtoTimer: number;
  readNpTimer: number;
  /** Memory-backed QPs: the application's work by WR id. */
  app: Map<number, AppWork> | null;
  /** The notification point for the READ responses coming back on it (made at the first CE mark). */
  np: DcqcnNotificationPoint | null;
}

/** The responses a READ request asked for, sent one packet at a time at the responder's pace. */
export interface ReadOut {
  read: ReadResponses;
  /** The next response's index, 0..count−1. */
  next: number;
  msn: number;
  /** Memory-backed QPs: the bytes read, as they were when the request was executed. */
  data: Uint8Array | null;
}

/** A QP other hosts send to: its RC responder, its DCQCN notification point, its READ responses. */
export interface ReceiverQp extends Paced {
  /** Its notification point's timer. */
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
  /** On a shared receive queue (a native program's SRQ): a SEND's first packet claims the queue's oldest buffer into `receives`. */
  srq?: SharedReceives;
}

/** A shared receive queue: its posted buffers, oldest first, and their count, shared by every QP on it. */
export interface SharedReceives {
  buffers: Uint8Array[];
  pool: ReceivePool;
}

/**
 * A sender of the host's own (a TCP connection) that takes its turns with the QPs on the NIC's
 * port: the NIC asks whether it has a frame and lets it go when pacing and pauses allow.
 */
export interface HostQueue {
  readonly priority: number;
  /** When pacing lets its next frame start. */
  readonly nextSendPs: number;
  /** It has a frame to send now (pacing aside). */
  ready(nowPs: number): boolean;
  /** Its next frame, built and paced by its owner. */
  take(nowPs: number): Frame;
}

/** What the NIC tells its host (@rocelab/host): completions, receives and the frames that are not RDMA's. */
export interface NicHost {
  /** Work requests of the host's traffic on `q` completed (or failed). */
  onCompletions(q: SenderQp, done: readonly Completion[]): void;
  /** A work request of the application's completed (its atomic's word already in its buffer). */
  onAppCompletion(qpn: number, completion: Completion): void;
  /** A message consumed a posted receive of the application's. */
  onAppReceive(qpn: number, receive: AppReceive): void;
  /** A frame for the host's own stack (TCP) reached host memory. */
  onStackFrame(nowPs: number, frame: Frame): void;
  /** A memory-backed QP's packet changed registered memory (see `AppEvents.onMemory`). */
  onAppMemory(): void;
}
