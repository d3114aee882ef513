/**
 * The requester (sending) side of one RC QP (PHYSICS §5.2, IB semantics). It segments posted
 * WRITEs and SENDs into PSN-ordered packets, completes them on cumulative ACKs and retransmits
 * by go-back-N or go-back-0. A READ is one request packet that takes as many PSNs as its
 * responses will: the responses are its acknowledgement, each one of everything before it, and
 * a missing one is asked for again from its PSN. An atomic (FETCH_AND_ADD, COMPARE_AND_SWAP) is
 * one request and one PSN, acknowledged by its Atomic ACK, which carries the word as it was.
 * A deterministic core (STYLE §2): the NIC decides when a packet may go (pacing, DCQCN), calls
 * `deadlinePs()`/`onTimer()` and hands in ACKs, NAKs and responses. There is no window: IB RC
 * has none, and the rate limiter paces the QP.
 *
 * PSNs are unwrapped inside: `seq` counts packets from `initialPsn` (seq 0), so comparisons are
 * plain integer ones; only the wire sees 24-bit PSNs.
 *
 * Around it: its configuration and its check (rc-requester-config.ts), the work requests,
 * packets and completions it speaks in (work-request.ts), and the packets cut from a work
 * request by position (segmentation.ts `requestPacket`).
 */
import { NAK_PSN_SEQUENCE_ERROR, rnrTimerPs, syndromeKind, syndromeValue } from './aeth.js';
import { PSN_MASK, psnAdd, psnDiff } from './psn.js';
import { packetCount, requestPacket } from './segmentation.js';
import { SelectiveRepeatSender } from './selective-repeat.js';
import { DEFAULT_MAX_RD_ATOMIC, RNR_RETRY_INFINITE, checkRequesterConfig, type RequesterConfig } from './rc-requester-config.js';
import { completion, isAtomic, isReadOrAtomic, remoteErrorStatus, type Completion, type CompletionStatus, type Message, type RequesterPacket, type WorkRequest } from './work-request.js';

// The requester's vocabulary, from the modules that define it, where importers have always found it.
export { DEFAULT_MAX_RD_ATOMIC, DEFAULT_RECOVERY, RNR_RETRY_INFINITE, type Recovery, type RequesterConfig } from './rc-requester-config.js';
export { isReadOrAtomic, type AtomicOperands, type Completion, type CompletionStatus, type RequesterPacket, type WorkOpcode, type WorkRequest } from './work-request.js';

/**
 * At most 2^23 − 1 PSNs outstanding: beyond that the responder could no longer tell a
 * retransmission from a packet ahead of it (PSN "after" is a half-space test, PHYSICS §5.2).
 */
const MAX_OUTSTANDING = 0x7fffff;

export type RequesterState = 'ready' | 'error';

export class RcRequester {
  readonly stats = {
    packetsSent: 0,
    retransmittedPackets: 0,
    rtoExpirations: 0,
    /** Valid NAKs by kind; `fatal` = remote errors and reserved syndromes. */
    naksReceived: { seq: 0, rnr: 0, fatal: 0 },
    /** Work requests completed with `success`, and their bytes. */
    completed: 0,
    completedBytes: 0,
    /** Work requests completed with an error status (including `flushed`). */
    failed: 0,
    /** READs and atomics asked for again from a missing response: a gap in the responses, or an ACK or NAK past them. */
    readRetries: 0,
  };
  private current: RequesterState = 'ready';
  /** Posted, uncompleted messages in PSN order; the head contains sndUna. */
  private readonly messages: Message[] = [];
  private una = 0;
  private nxt = 0;
  /** One past the highest seq ever sent. */
  private sentEnd = 0;
  /** One past the last posted seq. */
  private postEnd = 0;
  private retryLeft: number;
  private rnrLeft: number;
  private rtoDeadlinePs: number | null = null;
  private rnrUntilPs: number | null = null;
  /** When sndUna last moved forward (new data acknowledged); null = never. */
  private lastCreditPs: number | null = null;
  /** READs and atomics posted and not completed: none means no such bookkeeping on the hot path. */
  private rdAtomicPending = 0;
  /** sndUna when a gap in READ responses was last answered: one request again per gap. */
  private readGapAt = -1;
  private readonly maxRdAtomic: number;
  /** Payload bytes of the messages that left `messages` (completed or failed): the byte sequence before the head. */
  private retiredBytes = 0;
  /**
   * Selective repeat: which seq goes next, and when the QP times out, are the IRN sender's;
   * this class keeps the messages, the packets and the completions. Null under go-back.
   */
  private readonly sr: SelectiveRepeatSender | null;

  constructor(private readonly config: RequesterConfig) {
    checkRequesterConfig(config);
    this.retryLeft = config.retryCount;
    this.rnrLeft = config.rnrRetry;
    this.maxRdAtomic = config.maxRdAtomic ?? DEFAULT_MAX_RD_ATOMIC;
    this.sr = config.recovery === 'selectiveRepeat' ? new SelectiveRepeatSender(config.selectiveRepeat!) : null;
  }

  /** Selective repeat's own counters (recoveries, timeouts); null under go-back. */
  get selectiveRepeatStats(): SelectiveRepeatSender['stats'] | null {
    return this.sr?.stats ?? null;
  }

  get state(): RequesterState {
    return this.current;
  }

  get outstandingPackets(): number {
    return this.sr !== null ? this.sr.inFlight : this.nxt - this.una;
  }

  /**
   * sndUna and sndNxt as byte sequence numbers, the payload bytes before them (HPCC's QPs count
   * bytes: rdma-queue-pair.cc `snd_una`, `snd_nxt`). For congestion control that reads them
   * (issue 26); each walks the uncompleted messages up to that point.
   */
  get ackedSeqBytes(): number {
    return this.bytesAt(this.una);
  }

  get nextSeqBytes(): number {
    return this.bytesAt(this.nxt);
  }

  /** Bytes in flight, sndNxt − sndUna in bytes (rdma-queue-pair.cc `GetOnTheFly`). */
  get inFlightBytes(): number {
    return this.bytesAt(this.nxt) - this.bytesAt(this.una);
  }

  private bytesAt(seq: number): number {
    let bytes = this.retiredBytes;
    for (const m of this.messages) {
      if (seq >= m.firstSeq + m.count) {
        bytes += m.wr.sizeBytes;
        continue;
      }
      if (seq > m.firstSeq) bytes += Math.min(m.wr.sizeBytes, (seq - m.firstSeq) * this.config.mtu);
      break;
    }
    return bytes;
  }

  /** When the responder last acknowledged new data on this QP; null if it never has. */
  get lastProgressPs(): number | null {
    return this.lastCreditPs;
  }

  /** The work request holding sndUna (the oldest one not completed), or null. */
  get headWrId(): number | null {
    return this.messages[0]?.wr.id ?? null;
  }

  /**
   * Bytes of an uncompleted work request the responder holds for good: the packets before sndUna.
   * Go-back-0 keeps sndUna on message boundaries (a loss resends the whole message), so there a
   * message counts only once it completes. Completed or unknown requests: 0.
   */
  ackedBytes(wrId: number): number {
    const m = this.messages.find((x) => x.wr.id === wrId);
    if (m === undefined || this.una <= m.firstSeq) return 0;
    return Math.min(m.wr.sizeBytes, (this.una - m.firstSeq) * this.config.mtu);
  }

  /** Queue a message; it takes the next `packetCount` PSNs (a 0-byte message takes one). */
  post(wr: WorkRequest): void {
    if (this.current === 'error') throw new Error(`RC requester: WR ${wr.id} posted to a QP in error`);
    if (!(Number.isSafeInteger(wr.sizeBytes) && wr.sizeBytes >= 0)) throw new RangeError(`RC requester: WR ${wr.id} size must be an integer ≥ 0, got ${wr.sizeBytes}`);
    if (isReadOrAtomic(wr.opcode) && this.maxRdAtomic === 0) throw new Error(`RC requester: WR ${wr.id} is a ${wr.opcode} on a QP whose maxRdAtomic is 0`);
    if (wr.immediate !== undefined && (!(wr.opcode === 'write' || wr.opcode === 'send') || !(Number.isInteger(wr.immediate) && wr.immediate >= 0 && wr.immediate <= 0xffffffff))) {
      throw new RangeError(`RC requester: WR ${wr.id}: immediate data goes with a WRITE or SEND and is 32 bits, got ${wr.immediate} on a ${wr.opcode}`);
    }
    if (isAtomic(wr.opcode) && (wr.sizeBytes !== 8 || wr.atomic === undefined)) throw new RangeError(`RC requester: atomic WR ${wr.id} must be 8 bytes with its operands, got ${wr.sizeBytes} bytes${wr.atomic === undefined ? ' and no operands' : ''}`);
    // IRN recovers READs and atomics too, with more state at the responder; rocelab's carries WRITEs and SENDs.
    if (this.sr !== null && isReadOrAtomic(wr.opcode)) throw new Error(`RC requester: WR ${wr.id} is a ${wr.opcode}; selective repeat carries WRITEs and SENDs only`);
    const count = packetCount(wr.sizeBytes, this.config.mtu);
    this.messages.push({ wr, firstSeq: this.postEnd, count });
    this.postEnd += count;
    this.sr?.post(count);
    if (isReadOrAtomic(wr.opcode)) this.rdAtomicPending++;
  }

  hasPacket(nowPs: number): boolean {
    if (this.sr !== null) return this.current === 'ready' && (this.rnrUntilPs === null || nowPs >= this.rnrUntilPs) && this.sr.hasPacket();
    return (
      this.current === 'ready' &&
      this.nxt < this.postEnd &&
      (this.rnrUntilPs === null || nowPs >= this.rnrUntilPs) &&
      this.nxt - this.una < MAX_OUTSTANDING &&
      (this.rdAtomicPending === 0 || this.readMayGo())
    );
  }

  /** A READ or atomic at sndNxt waits while `maxRdAtomic` of them already wait for responses. */
  private readMayGo(): boolean {
    const next = this.indexOf(this.nxt);
    if (!isReadOrAtomic(this.messages[next]!.wr.opcode)) return true;
    let inFlight = 0;
    for (let i = 0; i < next; i++) if (isReadOrAtomic(this.messages[i]!.wr.opcode)) inFlight++;
    return inFlight < this.maxRdAtomic;
  }

  /** The packet at sndNxt, regenerated from the message table when it is a retransmission. */
  nextPacket(nowPs: number): RequesterPacket | null {
    if (!this.hasPacket(nowPs)) return null;
    this.rnrUntilPs = null;
    if (this.sr !== null) {
      const { psn: seq } = this.sr.nextPacket(nowPs)!;
      this.nxt = Math.max(this.nxt, seq + 1);
      return this.packetAt(seq, this.messages[this.indexOf(seq)]!);
    }
    const seq = this.nxt++;
    const m = this.messages[this.indexOf(seq)]!;
    // One request asks for the rest of the message; its responses take the PSNs up to its end.
    if (m.wr.opcode === 'read') this.nxt = m.firstSeq + m.count;
    if (this.rtoDeadlinePs === null && this.config.ackTimeoutPs !== null) this.rtoDeadlinePs = nowPs + this.config.ackTimeoutPs;
    return this.packetAt(seq, m);
  }

  /** The packet `seq` of message `m` (a retransmission when it was sent before). */
  private packetAt(seq: number, m: Message): RequesterPacket {
    const retransmission = seq < this.sentEnd;
    this.sentEnd = Math.max(this.sentEnd, this.nxt);
    this.stats.packetsSent++;
    if (retransmission) this.stats.retransmittedPackets++;
    return requestPacket(m.wr, seq - m.firstSeq, m.count, this.psnOf(seq), this.config.mtu, retransmission);
  }

  /**
   * Cumulative ACK of everything up to `psn`. A PSN never sent or already acknowledged is stale.
   * An ACK past a READ whose responses have not all come says they were lost (the responder
   * executed it, or it would not have gone on): the READ is asked for again from the first
   * missing response (IB's implied NAK; Linux rxe `check_psn`: a response past a pending READ
   * is `COMPST_ERROR_RETRY`).
   */
  onAck(nowPs: number, psn: number): Completion[] {
    const seq = this.toSeq(psn);
    if (seq === null) return [];
    if (this.sr !== null) return this.onSelectiveAck(nowPs, seq + 1, null);
    const end = this.readCap(seq + 1);
    const done = this.credit(nowPs, end);
    if (end < seq + 1) this.retryRead();
    this.restartRto(nowPs);
    return done;
  }

  /**
   * A READ response (FIRST, MIDDLE, LAST or ONLY) for `psn`: it acknowledges everything before
   * it and itself. One after a gap means a response was lost: the READ is asked for again from
   * the first missing PSN, once per gap (the rest of the old responses still arrive, in order,
   * and are dropped). A response where no READ is waiting errors the QP.
   */
  onReadResponse(nowPs: number, psn: number): Completion[] {
    return this.onResponse(nowPs, psn, 'read', undefined);
  }

  /**
   * An Atomic ACK for `psn` with the word as it was: like a READ response, for an atomic. A lost
   * one is recovered by sending the atomic again; the responder answers a duplicate from its
   * cache of replies rather than applying it twice.
   */
  onAtomicAck(nowPs: number, psn: number, original: bigint): Completion[] {
    return this.onResponse(nowPs, psn, 'atomic', original);
  }

  /**
   * Where the READ response `psn` would land if it were handed to `onReadResponse` now: its work
   * request and the byte of the message it starts at; null when it would be dropped (stale,
   * after a gap, or not for a READ). The NIC asks before it hands the response in.
   */
  responseTarget(psn: number): { wrId: number; offsetBytes: number } | null {
    const seq = this.toSeq(psn);
    if (seq === null || seq > this.readCap(seq)) return null;
    const m = this.messages[this.indexOf(seq)]!;
    return m.wr.opcode === 'read' ? { wrId: m.wr.id, offsetBytes: (seq - m.firstSeq) * this.config.mtu } : null;
  }

  private onResponse(nowPs: number, psn: number, kind: 'read' | 'atomic', original: bigint | undefined): Completion[] {
    const seq = this.toSeq(psn);
    if (seq === null) return [];
    const m = this.messages[this.indexOf(seq)]!;
    if (kind === 'read' ? m.wr.opcode !== 'read' : !isAtomic(m.wr.opcode)) return this.fail(nowPs, 'remoteOperationalError');
    // The response due next is the first missing one of the oldest READ (what comes before it is acknowledged by it).
    if (seq > this.readCap(seq)) {
      if (this.readGapAt === this.una) return [];
      this.readGapAt = this.una;
      this.retryRead();
      this.restartRto(nowPs);
      return [];
    }
    if (original !== undefined) m.original = original;
    // A READ's bytes are taken as they come, whatever the recovery: its responses are asked for again from the missing one.
    const done = this.credit(nowPs, seq + 1, true);
    this.restartRto(nowPs);
    return done;
  }

  /**
   * A NAK for `psn` (the responder's ePSN). Everything before it is acknowledged, then:
   * sequence error → resend from `psn` (go-back-N) or its message's first PSN (go-back-0);
   * RNR → the same after the coded RNR wait; any other code → the QP errors.
   * Sequence errors do not consume the retry counter: only RTOs do (PHYSICS §5.2 `retryCnt−−`
   * on RTO expiry). Linux rxe charges them too (`COMPST_ERROR_RETRY`); not charging them is
   * what makes a go-back-0 QP livelock forever instead of erroring (PHYSICS §5.4, §7a #7).
   */
  onNak(nowPs: number, psn: number, syndrome: number, sackPsn = 0): Completion[] {
    const kind = syndromeKind(syndrome);
    if (kind === 'ack') return this.onAck(nowPs, psn);
    const seq = this.toSeq(psn);
    if (seq === null) return [];
    switch (kind) {
      case 'nak':
        if (syndrome === NAK_PSN_SEQUENCE_ERROR) return this.sr !== null ? this.onSelectiveAck(nowPs, seq, this.toSeq(sackPsn)) : this.goBack(nowPs, seq);
        this.stats.naksReceived.fatal++;
        return this.fail(nowPs, remoteErrorStatus(syndrome));
      case 'rnrNak':
        return this.onRnrNak(nowPs, seq, syndromeValue(syndrome));
      case 'reserved':
        this.stats.naksReceived.fatal++;
        return this.fail(nowPs, 'remoteOperationalError'); // rxe errors the QP too; status as for an unknown NAK code
    }
  }

  /** When to call `onTimer`: the earlier of the RTO deadline and the end of an RNR wait. */
  deadlinePs(): number | null {
    const rto = this.sr !== null ? (this.current === 'ready' ? this.sr.deadlinePs() : null) : this.rtoDeadlinePs;
    if (rto === null) return this.rnrUntilPs;
    if (this.rnrUntilPs === null) return rto;
    return Math.min(rto, this.rnrUntilPs);
  }

  /**
   * Selective repeat: a cumulative ACK up to `end` (the responder holds every seq before it),
   * and with a NAK the seq it got out of order. Completions come from the cumulative part only:
   * a message completes when all of it is in order at the responder.
   */
  private onSelectiveAck(nowPs: number, end: number, sacked: number | null): Completion[] {
    const sr = this.sr!;
    if (sacked === null) {
      sr.onReply(nowPs, { kind: 'ack', cumulative: end });
    } else {
      this.stats.naksReceived.seq++;
      sr.onReply(nowPs, { kind: 'nack', cumulative: end, sacked });
    }
    return this.credit(nowPs, sr.cumulative);
  }

  /**
   * An RTO expiry rewinds to sndUna (under go-back-0 sndUna is always a message start, so that
   * is also "the start of sndUna's message"); the timer restarts with the first retransmission,
   * so a QP the pacer holds back is not charged for time it could not send.
   */
  onTimer(nowPs: number): Completion[] {
    if (this.current === 'error') return [];
    if (this.rnrUntilPs !== null && nowPs >= this.rnrUntilPs) this.rnrUntilPs = null;
    if (this.sr !== null) {
      const deadline = this.sr.deadlinePs();
      if (deadline === null || nowPs < deadline) return [];
      this.stats.rtoExpirations++;
      if (this.retryLeft === 0) return this.fail(nowPs, 'retryExceeded');
      this.retryLeft--;
      this.sr.onTimer(nowPs);
      return [];
    }
    if (this.rtoDeadlinePs === null || nowPs < this.rtoDeadlinePs) return [];
    this.rtoDeadlinePs = null;
    this.stats.rtoExpirations++;
    if (this.retryLeft === 0) return this.fail(nowPs, 'retryExceeded');
    this.retryLeft--;
    this.nxt = this.una;
    this.readGapAt = -1;
    return [];
  }

  private goBack(nowPs: number, seq: number): Completion[] {
    this.stats.naksReceived.seq++;
    const end = this.readCap(seq);
    const done = this.credit(nowPs, end);
    this.nxt = this.restartPoint(end);
    this.restartRto(nowPs);
    return done;
  }

  private onRnrNak(nowPs: number, seq: number, timerCode: number): Completion[] {
    this.stats.naksReceived.rnr++;
    const end = this.readCap(seq);
    const done = this.credit(nowPs, end);
    this.nxt = this.restartPoint(end);
    this.restartRto(nowPs);
    if (this.rnrLeft === 0) return [...done, ...this.fail(nowPs, 'rnrRetryExceeded')];
    if (this.config.rnrRetry !== RNR_RETRY_INFINITE) this.rnrLeft--;
    this.rnrUntilPs = nowPs + rnrTimerPs(timerCode);
    return done;
  }

  /**
   * The responder holds every PSN before `end`. New data resets both retry counters (rxe
   * `reset_retry_counters`). Go-back-0 credits whole messages only: it resends a message from its
   * first packet anyway, so sndUna stays on a message boundary.
   */
  private credit(nowPs: number, end: number, exact = false): Completion[] {
    if (end <= this.una) return [];
    this.retryLeft = this.config.retryCount;
    this.rnrLeft = this.config.rnrRetry;
    const una = this.config.recovery === 'goBack0' && !exact ? this.restartPoint(end) : end;
    if (una > this.una) this.lastCreditPs = nowPs;
    this.una = una;
    this.nxt = Math.max(this.nxt, this.una);
    let n = 0;
    while (n < this.messages.length && this.messages[n]!.firstSeq + this.messages[n]!.count <= this.una) n++;
    this.stats.completed += n;
    const done = this.messages.splice(0, n);
    for (const m of done) {
      this.retiredBytes += m.wr.sizeBytes;
      this.stats.completedBytes += m.wr.sizeBytes;
      if (isReadOrAtomic(m.wr.opcode)) this.rdAtomicPending--;
    }
    return done.map((m) => completion(m, nowPs, 'success'));
  }

  /**
   * Where a go-back resumes for a loss at `seq`. A READ resumes at the loss under go-back-0 too:
   * its request names the first byte it wants, and the bytes before it are already here.
   */
  private restartPoint(seq: number): number {
    if (this.config.recovery === 'goBackN' || seq >= this.postEnd) return seq;
    const m = this.messages[this.indexOf(seq)]!;
    return m.wr.opcode === 'read' ? seq : m.firstSeq;
  }

  /**
   * How far an ACK or NAK may acknowledge: not past a READ or atomic that still waits for its
   * responses (they are its only acknowledgement), so up to its first missing response.
   */
  private readCap(end: number): number {
    if (this.rdAtomicPending === 0) return end;
    for (const m of this.messages) {
      if (m.firstSeq >= end) break;
      if (isReadOrAtomic(m.wr.opcode)) return Math.max(this.una, m.firstSeq);
    }
    return end;
  }

  /** Ask for the READ at sndUna again from its first missing response. */
  private retryRead(): void {
    this.stats.readRetries++;
    this.nxt = this.una;
  }

  private restartRto(nowPs: number): void {
    const timeout = this.config.ackTimeoutPs;
    this.rtoDeadlinePs = timeout !== null && this.nxt > this.una ? nowPs + timeout : null;
  }

  /** The QP errors: the head WR gets `status`, every other posted WR is flushed. */
  private fail(nowPs: number, status: CompletionStatus): Completion[] {
    this.current = 'error';
    this.rtoDeadlinePs = null;
    this.rnrUntilPs = null;
    const failed = this.messages.splice(0).map((m, i) => completion(m, nowPs, i === 0 ? status : 'flushed'));
    this.rdAtomicPending = 0;
    this.stats.failed += failed.length;
    return failed;
  }

  /** A response PSN as a seq, or null when stale: outside [sndUna, highest sent]. */
  private toSeq(psn: number): number | null {
    if (this.current === 'error') return null;
    const d = psnDiff(psn, this.psnOf(this.una));
    return d < this.sentEnd - this.una ? this.una + d : null;
  }

  private psnOf(seq: number): number {
    return psnAdd(this.config.initialPsn, seq % (PSN_MASK + 1));
  }

  /** Index of the message holding `seq` (binary search; messages are contiguous in seq). */
  private indexOf(seq: number): number {
    let lo = 0;
    let hi = this.messages.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.messages[mid]!.firstSeq <= seq) lo = mid;
      else hi = mid - 1;
    }
    const m = this.messages[lo];
    if (m === undefined || seq < m.firstSeq || seq >= m.firstSeq + m.count) throw new Error(`RC requester: no message holds seq ${seq}`);
    return lo;
  }
}
