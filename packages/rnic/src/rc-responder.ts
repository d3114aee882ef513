/**
 * The responder (receiving) side of one RC QP (PHYSICS §5.2): accepts request packets in PSN
 * order, coalesces ACKs, NAKs sequence errors and answers RNR NAK to a SEND with no posted
 * receive. A READ request in order is executed: the result says which responses to send (one
 * PSN each, from the request's), and its PSNs are consumed. A duplicate READ request is executed
 * again from its PSN, as IB requires, while the responder still remembers the READ it belongs to
 * (the last `maxDestRdAtomic` ones). An atomic in order is applied to the memory regions and
 * answered with an Atomic ACK carrying the word as it was; the reply is cached (as many as
 * `maxDestRdAtomic`), and a duplicate is answered from the cache, never applied twice — the
 * requester sends an atomic again when its Atomic ACK was lost. A deterministic core (STYLE §2):
 * the NIC hands in each request packet and sends the reply or the responses it gets back, a
 * QP's in PSN order (an ACK for a later request goes after an earlier READ's last response).
 */
import { Opcode } from '@rocelab/wire';
import { NAK_INVALID_REQUEST, NAK_PSN_SEQUENCE_ERROR, NAK_REMOTE_ACCESS_ERROR, rnrNakSyndrome } from './aeth.js';
import type { AtomicKind, MemoryRegions } from './memory-region.js';
import { nextPsn, PSN_MASK, psnAdd, psnAfter, psnDiff } from './psn.js';
import { DEFAULT_MAX_RD_ATOMIC, DEFAULT_RECOVERY, type AtomicOperands, type Recovery } from './rc-requester.js';
import { packetCount } from './segmentation.js';

/** IB: one NAK per sequence error (PHYSICS §5.2; Linux rxe `RESPST_ERR_PSN_OUT_OF_SEQ`). hpcc's interval is in defaults.ts. */
export const DEFAULT_NAK_POLICY: NakPolicy = 'oncePerGap';

export type NakPolicy = 'oncePerGap' | 'hpcc';

/** A count of posted receives; one object per responder, or one shared by the responders of an SRQ. */
export interface ReceivePool {
  count: number;
}

export interface ResponderConfig {
  /** 24-bit PSN expected first. */
  initialPsn: number;
  /** Coalescing: ACK every n in-order packets (1 = every packet); always on AckReq and at a message's end. */
  ackEvery: number;
  /**
   * 'oncePerGap': one NAK per sequence error, re-ACK of duplicates (IB, PHYSICS §5.2).
   * 'hpcc': a NAK when now ≥ the NAK timer or ePSN differs from the last NAKed PSN, then the
   * timer moves to now + `nakIntervalPs`; duplicates get no reply (hpcc-ns3 `ReceiverCheckSeq`).
   */
  nakPolicy: NakPolicy;
  /** hpcc: the NAK timer interval (500 µs in hpcc-ns3). */
  nakIntervalPs: number;
  /** The IBTA RNR timer code an RNR NAK asks the requester to wait (e.g. 1 = 10 µs). */
  rnrTimerCode: number;
  /**
   * Must match the requester's; default goBackN. goBack0: a sequence error discards the partly
   * received message and expects its first packet again, so a message is delivered only from one
   * loss-free pass (Guo et al. 2016; hpcc-ns3 `L2_BACK_TO_ZERO` rolls the receiver back too,
   * PHYSICS §5.2). Without this a go-back-0 requester cannot livelock (PHYSICS §7a #7).
   */
  recovery?: Recovery;
  /** Payload bytes per packet: how many responses a READ takes. Needed only for READs. */
  mtu?: number;
  /**
   * Posted receives shared with other responders: a shared receive queue (issue 25, an SRQ of a
   * native program's QPs). A SEND on any of them takes one; absent: the responder's own count.
   */
  receivePool?: ReceivePool;
  /** 1..255: READs remembered for re-execution and atomic replies cached (IB `max_dest_rd_atomic`); default 16. */
  maxDestRdAtomic?: number;
  /**
   * Answer a duplicate atomic from the cache of replies (true, the default and what IB requires).
   * False applies it again: only to show what the cache prevents.
   */
  atomicReplyCache?: boolean;
}

/** The responses a READ request asks for: `count` packets from `firstPsn`, `lengthBytes` in all. */
export interface ReadResponses {
  firstPsn: number;
  count: number;
  lengthBytes: number;
}

export type ResponderReply =
  | { kind: 'ack'; psn: number; msn: number }
  /** `sackPsn`: selective repeat's NAK also names the PSN that arrived out of order (IRN's SACK). */
  | { kind: 'nak'; psn: number; msn: number; syndrome: number; sackPsn?: number }
  | { kind: 'atomicAck'; psn: number; msn: number; original: bigint }
  | null;

export interface ResponderResult {
  /** `error`: refused (see `refuse`), or the QP was already in error: nothing was executed. */
  verdict: 'accepted' | 'outOfSequence' | 'duplicate' | 'rnr' | 'error';
  reply: ResponderReply;
  /** The packet completed a message (its last packet accepted in order): bytes of that message. */
  messageBytes: number | null;
  /**
   * Selective repeat: messages completed by this packet when it filled a hole and the packets
   * held behind it completed more than one (`messageBytes` is then the last one's).
   */
  messages?: number;
  /** A READ request executed (in order, or again as a duplicate): the responses to send. */
  read?: ReadResponses;
  /**
   * A message that consumed a receive completed (a SEND, or a WRITE with immediate): what the
   * receive completion reports — the message's bytes and its immediate data, if any.
   */
  receive?: { opcode: 'send' | 'writeImmediate'; bytes: number; immediate: number | null };
}

type Position = 'first' | 'middle' | 'last' | 'only';

const ERROR: ResponderResult = Object.freeze({ verdict: 'error', reply: null, messageBytes: null });

/**
 * Position in its message of each RC request opcode 0x00–0x0B (PHYSICS §5.1): SEND First,
 * Middle, Last, Last+Imm, Only, Only+Imm, then the same six for RDMA WRITE.
 */
const POSITIONS: readonly Position[] = ['first', 'middle', 'last', 'last', 'only', 'only', 'first', 'middle', 'last', 'last', 'only', 'only'];
const LAST_SEND_OPCODE = 0x05; // SEND Only with Immediate
/** The opcodes that carry immediate data: SEND Last/Only and WRITE Last/Only with Immediate. */
const WITH_IMMEDIATE: ReadonlySet<number> = new Set([Opcode.sendLastImmediate, Opcode.sendOnlyImmediate, Opcode.writeLastImmediate, Opcode.writeOnlyImmediate]);

export class RcResponder {
  readonly stats = {
    acksSent: 0,
    naksSent: { seq: 0, rnr: 0 },
    outOfSequence: 0,
    duplicates: 0,
    messagesCompleted: 0,
    /** Payload accepted in order, including partial messages a go-back-0 rollback later discarded. */
    bytesAccepted: 0,
    /** Payload of partial messages discarded by go-back-0 rollbacks. */
    bytesDiscarded: 0,
    /** READ requests executed in order, executed again as duplicates, and duplicates too old to execute. */
    reads: 0,
    readsReexecuted: 0,
    readsForgotten: 0,
    /** Atomics applied; duplicates answered from the cache; duplicates too old for it (dropped); remote access errors. */
    atomics: 0,
    atomicsFromCache: 0,
    atomicsForgotten: 0,
    accessErrors: 0,
    /**
     * Goodput: payload the application holds for good. Go-back-N never takes back a byte it
     * accepted in order, so those count at once; go-back-0 may discard a partial message, so
     * there a message counts when its last packet arrives.
     */
    bytesDelivered: 0,
  };
  private ePsn: number;
  private msn = 0;
  private failed = false;
  private nakSent = false;
  private readonly pool: ReceivePool;
  /** In-order packets accepted since the last ACK. */
  private sinceAck = 0;
  /** First PSN of the message being reassembled (= ePSN between messages) and its bytes so far. */
  private msgStartPsn: number;
  private msgBytes = 0;
  /** The message being reassembled is a SEND that took a receive (returned if it is discarded). */
  private msgHoldsReceive = false;
  private nakTimerPs = 0;
  private lastNakPsn: number | null = null;
  private readonly recovery: Recovery;
  /** The last READs executed in order, oldest first: a duplicate request inside one is executed again. */
  private readonly recentReads: ReadResponses[] = [];
  /** The last atomics' replies, oldest first: a duplicate is answered from here. */
  private readonly atomicReplies: Array<{ psn: number; original: bigint }> = [];
  /** Selective repeat: packets kept out of order, by PSN, until the hole before them fills. */
  private readonly held = new Map<number, { opcode: number; payloadBytes: number; ackReq: boolean; immediate: number }>();

  constructor(private readonly config: ResponderConfig) {
    checkConfig(config);
    this.pool = config.receivePool ?? { count: 0 };
    this.recovery = config.recovery ?? DEFAULT_RECOVERY;
    this.ePsn = config.initialPsn;
    this.msgStartPsn = config.initialPsn;
  }

  get expectedPsn(): number {
    return this.ePsn;
  }

  get postedReceives(): number {
    return this.pool.count;
  }

  /** 'error' after it refused a request: from then on it drops everything without a reply (rxe `qp->resp.goto_error`). */
  get state(): 'ready' | 'error' {
    return this.failed ? 'error' : 'ready';
  }

  /** The MSN an AETH sent now carries (READ responses take it from here). */
  get messageSequence(): number {
    return this.msn;
  }

  /** Payload bytes of the message being reassembled that are already accepted: where an in-order packet's bytes go. */
  get messageOffset(): number {
    return this.msgBytes;
  }

  /**
   * An in-order request the NIC could not execute against memory: a wrong rkey, an access out of
   * bounds or without the right (remote access error), a misaligned atomic or a SEND longer than
   * its receive (invalid request). It is NAKed with `syndrome` and the QP errors, as IB's class C
   * errors do (rxe `do_class_ac_error`); the requester's QP errors on the NAK.
   */
  refuse(psn: number, syndrome: number): ResponderResult {
    if (this.failed) return ERROR;
    this.failed = true;
    this.stats.accessErrors++;
    return { verdict: 'error', reply: { kind: 'nak', psn, msn: this.msn, syndrome }, messageBytes: null };
  }

  /** Post receives for SENDs (WRITEs need none). */
  postReceive(count = 1): void {
    if (!(Number.isSafeInteger(count) && count > 0)) throw new RangeError(`RC responder: receive count must be a positive integer, got ${count}`);
    this.pool.count += count;
  }

  /**
   * One request packet: SEND or WRITE (opcode 0x00–0x0B; `immediate` is the ImmDt of those with
   * immediate), or a READ request asking for `dmaLength` bytes.
   */
  onPacket(nowPs: number, psn: number, opcode: number, payloadBytes: number, ackReq: boolean, dmaLength = 0, immediate = 0): ResponderResult {
    if (this.failed) return ERROR;
    if (opcode === Opcode.readRequest) return this.onReadRequest(nowPs, psn, dmaLength);
    const position = POSITIONS[opcode];
    if (position === undefined) throw new RangeError(`RC responder: opcode 0x${opcode.toString(16)} is not a SEND or WRITE request`);
    if (this.recovery === 'selectiveRepeat') return this.selective(psn, opcode, payloadBytes, ackReq, immediate);
    if (psn === this.ePsn) return this.inOrder(psn, opcode <= LAST_SEND_OPCODE, position, payloadBytes, ackReq, WITH_IMMEDIATE.has(opcode) ? immediate : null);
    if (psnAfter(psn, this.ePsn)) return this.ahead(nowPs);
    return this.duplicate();
  }

  private inOrder(psn: number, send: boolean, position: Position, payloadBytes: number, ackReq: boolean, immediate: number | null): ResponderResult {
    const first = position === 'first' || position === 'only';
    const last = position === 'last' || position === 'only';
    // A SEND takes its receive with its first packet; a WRITE with immediate with its last, the one that carries the immediate.
    const writeWithImmediate = !send && immediate !== null;
    if ((send && first) || writeWithImmediate) {
      if (this.pool.count === 0) {
        this.stats.naksSent.rnr++;
        return { verdict: 'rnr', reply: { kind: 'nak', psn, msn: this.msn, syndrome: rnrNakSyndrome(this.config.rnrTimerCode) }, messageBytes: null };
      }
      this.pool.count--;
      this.msgHoldsReceive = true;
    }
    this.ePsn = nextPsn(psn);
    this.nakSent = false;
    this.msgBytes += payloadBytes;
    this.stats.bytesAccepted += payloadBytes;
    if (this.recovery !== 'goBack0') this.stats.bytesDelivered += payloadBytes;
    this.sinceAck++;
    let messageBytes: number | null = null;
    let receive: ResponderResult['receive'];
    if (last) {
      this.msn = (this.msn + 1) & PSN_MASK; // the MSN is 24 bits wide in the AETH
      this.stats.messagesCompleted++;
      messageBytes = this.msgBytes;
      if (this.recovery === 'goBack0') this.stats.bytesDelivered += messageBytes;
      if (this.msgHoldsReceive) receive = { opcode: send ? 'send' : 'writeImmediate', bytes: messageBytes, immediate };
      this.msgBytes = 0;
      this.msgHoldsReceive = false;
      this.msgStartPsn = this.ePsn;
    }
    const reply = ackReq || last || this.sinceAck >= this.config.ackEvery ? this.ack(psn) : null;
    return receive === undefined ? { verdict: 'accepted', reply, messageBytes } : { verdict: 'accepted', reply, messageBytes, receive };
  }

  /**
   * Selective repeat (IRN): a packet ahead of ePSN is kept (its data placed) and answered with a
   * NAK carrying ePSN and its own PSN; the packet that fills the hole is taken in order with the
   * ones kept behind it, and the ACK that follows covers them all. Duplicates are re-ACKed.
   */
  private selective(psn: number, opcode: number, payloadBytes: number, ackReq: boolean, immediate: number): ResponderResult {
    if (psnAfter(psn, this.ePsn)) {
      if (this.held.has(psn)) return this.duplicate();
      this.held.set(psn, { opcode, payloadBytes, ackReq, immediate });
      this.stats.outOfSequence++;
      this.stats.naksSent.seq++;
      return { verdict: 'accepted', reply: { kind: 'nak', psn: this.ePsn, msn: this.msn, syndrome: NAK_PSN_SEQUENCE_ERROR, sackPsn: psn }, messageBytes: null };
    }
    if (psn !== this.ePsn) return this.duplicate();
    const result = this.takeInOrder(psn, opcode, payloadBytes, ackReq, immediate);
    if (result.verdict !== 'accepted' || this.held.size === 0) return result;
    let messages = result.messageBytes === null ? 0 : 1;
    let messageBytes = result.messageBytes;
    let receive = result.receive;
    for (let next = this.held.get(this.ePsn); next !== undefined; next = this.held.get(this.ePsn)) {
      const at = this.ePsn;
      const drained = this.takeInOrder(at, next.opcode, next.payloadBytes, next.ackReq, next.immediate);
      if (drained.verdict !== 'accepted') break; // no receive for a kept SEND: it waits, and its retransmission is answered RNR
      this.held.delete(at);
      if (drained.messageBytes !== null) {
        messages++;
        messageBytes = drained.messageBytes;
      }
      receive = drained.receive ?? receive;
    }
    const reply = this.ack(psnAdd(this.ePsn, -1));
    const out: ResponderResult = { verdict: 'accepted', reply, messageBytes, messages };
    if (receive !== undefined) out.receive = receive;
    return out;
  }

  private takeInOrder(psn: number, opcode: number, payloadBytes: number, ackReq: boolean, immediate: number): ResponderResult {
    return this.inOrder(psn, opcode <= LAST_SEND_OPCODE, POSITIONS[opcode]!, payloadBytes, ackReq, WITH_IMMEDIATE.has(opcode) ? immediate : null);
  }

  private onReadRequest(nowPs: number, psn: number, lengthBytes: number): ResponderResult {
    const mtu = this.config.mtu;
    if (mtu === undefined) throw new Error('RC responder: a READ request on a QP configured without an MTU');
    const read = { firstPsn: psn, count: packetCount(lengthBytes, mtu), lengthBytes };
    if (psn === this.ePsn) {
      this.executed(psnAdd(psn, read.count));
      this.stats.reads++;
      this.remember(this.recentReads, read);
      return { verdict: 'accepted', reply: null, messageBytes: null, read };
    }
    if (psnAfter(psn, this.ePsn)) return this.ahead(nowPs);
    this.stats.duplicates++;
    // A retried READ asks from its first missing response on: inside a READ we remember, it runs again.
    if (!this.recentReads.some((r) => psnDiff(psn, r.firstPsn) < r.count)) {
      this.stats.readsForgotten++;
      return { verdict: 'duplicate', reply: null, messageBytes: null };
    }
    this.stats.readsReexecuted++;
    return { verdict: 'duplicate', reply: null, messageBytes: null, read };
  }

  /**
   * An atomic request (FETCH_AND_ADD or COMPARE_AND_SWAP) on `memory`. A misaligned address is an
   * invalid request, a wrong rkey, a word outside the region or a region without atomic access a
   * remote access error (Linux rxe `RESPST_ERR_MISALIGNED_ATOMIC`, `RESPST_ERR_RKEY_VIOLATION`):
   * either NAK errors the requester's QP.
   */
  onAtomic(nowPs: number, psn: number, kind: AtomicKind, op: AtomicOperands, memory: MemoryRegions): ResponderResult {
    if (this.failed) return ERROR;
    if (psnAfter(psn, this.ePsn)) return this.ahead(nowPs);
    if (psn !== this.ePsn) {
      this.stats.duplicates++;
      const cached = this.config.atomicReplyCache === false ? undefined : this.atomicReplies.find((r) => r.psn === psn);
      if (cached !== undefined) {
        this.stats.atomicsFromCache++;
        return { verdict: 'duplicate', reply: { kind: 'atomicAck', psn, msn: this.msn, original: cached.original }, messageBytes: null };
      }
      if (this.config.atomicReplyCache !== false) {
        this.stats.atomicsForgotten++;
        return { verdict: 'duplicate', reply: null, messageBytes: null };
      }
    }
    const original = memory.atomic(kind, op.address, op.rkey, op.operand, op.swap);
    if (typeof original === 'string') return this.refuse(psn, original === 'misaligned' ? NAK_INVALID_REQUEST : NAK_REMOTE_ACCESS_ERROR);
    if (psn !== this.ePsn) return { verdict: 'duplicate', reply: { kind: 'atomicAck', psn, msn: this.msn, original }, messageBytes: null };
    this.executed(nextPsn(psn));
    this.stats.atomics++;
    this.remember(this.atomicReplies, { psn, original });
    return { verdict: 'accepted', reply: { kind: 'atomicAck', psn, msn: this.msn, original }, messageBytes: null };
  }

  /**
   * A READ or atomic executed in order: its PSNs are consumed and it counts as a message. Its
   * responses acknowledge everything before them, so a coalesced ACK still owed is not.
   */
  private executed(nextEPsn: number): void {
    this.ePsn = nextEPsn;
    this.nakSent = false;
    this.sinceAck = 0;
    this.msn = (this.msn + 1) & PSN_MASK;
    this.msgStartPsn = this.ePsn;
  }

  /** Keep the last `maxDestRdAtomic` READs or atomic replies, the oldest dropped first. */
  private remember<T>(list: T[], item: T): void {
    list.push(item);
    if (list.length > (this.config.maxDestRdAtomic ?? DEFAULT_MAX_RD_ATOMIC)) list.shift();
  }

  /** A gap: drop the packet; maybe NAK the expected PSN. */
  private ahead(nowPs: number): ResponderResult {
    this.stats.outOfSequence++;
    if (!this.nakDue(nowPs)) return { verdict: 'outOfSequence', reply: null, messageBytes: null };
    if (this.recovery === 'goBack0') this.discardPartialMessage();
    this.lastNakPsn = this.ePsn;
    this.stats.naksSent.seq++;
    return { verdict: 'outOfSequence', reply: { kind: 'nak', psn: this.ePsn, msn: this.msn, syndrome: NAK_PSN_SEQUENCE_ERROR }, messageBytes: null };
  }

  private nakDue(nowPs: number): boolean {
    switch (this.config.nakPolicy) {
      case 'oncePerGap':
        if (this.nakSent) return false;
        this.nakSent = true;
        return true;
      case 'hpcc':
        if (nowPs < this.nakTimerPs && this.lastNakPsn === this.ePsn) return false;
        this.nakTimerPs = nowPs + this.config.nakIntervalPs;
        return true;
    }
  }

  /** Duplicate: drop; IB re-ACKs ePSN − 1 so a requester that lost the ACK recovers. */
  private duplicate(): ResponderResult {
    this.stats.duplicates++;
    const reply = this.config.nakPolicy === 'oncePerGap' ? this.ack(psnAdd(this.ePsn, -1)) : null;
    return { verdict: 'duplicate', reply, messageBytes: null };
  }

  private ack(psn: number): ResponderReply {
    this.stats.acksSent++;
    this.sinceAck = 0;
    return { kind: 'ack', psn, msn: this.msn };
  }

  /** go-back-0: forget the partly received message and expect its first packet again. */
  private discardPartialMessage(): void {
    this.stats.bytesDiscarded += this.msgBytes;
    this.msgBytes = 0;
    if (this.msgHoldsReceive) this.pool.count++;
    this.msgHoldsReceive = false;
    this.ePsn = this.msgStartPsn;
  }
}

function checkConfig(c: ResponderConfig): void {
  const bad: string[] = [];
  if (!(Number.isInteger(c.initialPsn) && c.initialPsn >= 0 && c.initialPsn <= PSN_MASK)) bad.push(`initialPsn must be 0..0xFFFFFF, got ${c.initialPsn}`);
  if (!(Number.isSafeInteger(c.ackEvery) && c.ackEvery > 0)) bad.push(`ackEvery must be a positive integer, got ${c.ackEvery}`);
  if (c.nakPolicy !== 'oncePerGap' && c.nakPolicy !== 'hpcc') bad.push(`nakPolicy must be oncePerGap or hpcc, got ${String(c.nakPolicy)}`);
  if (!(Number.isSafeInteger(c.nakIntervalPs) && c.nakIntervalPs >= 0)) bad.push(`nakIntervalPs must be an integer ≥ 0, got ${c.nakIntervalPs}`);
  if (!(Number.isInteger(c.rnrTimerCode) && c.rnrTimerCode >= 0 && c.rnrTimerCode <= 31)) bad.push(`rnrTimerCode must be 0..31, got ${c.rnrTimerCode}`);
  if (c.recovery !== undefined && c.recovery !== 'goBackN' && c.recovery !== 'goBack0' && c.recovery !== 'selectiveRepeat') bad.push(`recovery must be goBackN, goBack0 or selectiveRepeat, got ${String(c.recovery)}`);
  if (c.mtu !== undefined && !(Number.isSafeInteger(c.mtu) && c.mtu > 0)) bad.push(`mtu must be a positive integer, got ${c.mtu}`);
  if (c.maxDestRdAtomic !== undefined && !(Number.isInteger(c.maxDestRdAtomic) && c.maxDestRdAtomic >= 1 && c.maxDestRdAtomic <= 255)) bad.push(`maxDestRdAtomic must be 1..255, got ${c.maxDestRdAtomic}`);
  if (bad.length > 0) throw new RangeError(`RC responder config: ${bad.join('; ')}`);
}
