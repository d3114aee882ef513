/**
 * A TCP-like byte-stream transport (issue 14: does RDMA starve TCP?), as deterministic state
 * machines driven by an injected virtual clock, like the RC ones: the host decides when a
 * segment may go and hands in ACKs and timer expiries.
 *
 * The sender is NewReno (RFC 5681 slow start and congestion avoidance, RFC 6582 fast retransmit
 * and fast recovery with partial ACKs), with the RFC 6298 retransmission timer (SRTT, RTTVAR,
 * Karn's rule, exponential back-off, a minimum RTO) and, optionally, DCTCP (RFC 8257): the
 * fraction of ECN-marked bytes per window of data feeds α ← (1 − g)·α + g·F, and a window with
 * marks cuts cwnd once by α/2. Sequence numbers are plain byte offsets from 0 (no wrap: 2^53).
 * The receiver ACKs every segment (a delayed ACK is left out: datacenter stacks quick-ACK under
 * load) with the cumulative sequence and, for DCTCP, the CE mark of that segment echoed as ECE.
 */

export interface TcpConfig {
  /** Payload bytes per segment. */
  mssBytes: number;
  /** The initial window in segments (RFC 6928: 10). */
  initialCwndSegments: number;
  /** RTO before any RTT sample (RFC 6298 §2.1: 1 s). */
  initialRtoPs: number;
  /** The smallest RTO (RFC 6298 §2.4 says 1 s; Linux `TCP_RTO_MIN` is 200 ms). */
  minRtoPs: number;
  /** The largest RTO after back-off (Linux `TCP_RTO_MAX`, 120 s). */
  maxRtoPs: number;
  /** DCTCP's EWMA gain g, or null for NewReno without ECN (RFC 8257 §4.2 recommends 1/16). */
  dctcpGain: number | null;
  /**
   * The receiver's window: bytes beyond snd.una the sender may have out (absent: no limit). It
   * bounds what a sender in a long recovery can pile up behind a hole (Linux autotunes it up to
   * `tcp_rmem`'s maximum, 6 MiB).
   */
  receiveWindowBytes?: number;
}

/** RFC 5681 §3.2: the third duplicate ACK means a loss. */
const DUP_ACK_THRESHOLD = 3;

/** One segment to transmit. */
export interface TcpSegment {
  seq: number;
  lengthBytes: number;
  retransmission: boolean;
}

export class TcpSender {
  readonly stats = { segmentsSent: 0, retransmittedSegments: 0, fastRetransmits: 0, rtoExpirations: 0, cwndCuts: 0 };
  /** Congestion window and slow-start threshold, bytes. */
  cwnd: number;
  ssthresh = Infinity;
  private una = 0;
  private nxt = 0;
  /** One past the highest byte ever sent. */
  private max = 0;
  /** Bytes the application has written. */
  private written = 0;
  private dupAcks = 0;
  /** NewReno's `recover`: the highest byte sent when recovery began; null outside recovery. */
  private recover: number | null = null;
  /** The next segment to send again before new data (fast retransmit, a partial ACK). */
  private retransmitAt: number | null = null;
  private srttPs: number | null = null;
  private rttvarPs = 0;
  private rtoPs: number;
  private rtoDeadlinePs: number | null = null;
  /** The byte whose ACK times a round trip, and when it was sent; null when none is timed (Karn). */
  private timed: { end: number; sentPs: number } | null = null;
  /** DCTCP: α, and the bytes acknowledged and marked since the window that ends at `windowEnd` began. */
  alpha = 1;
  private windowEnd = 0;
  private ackedInWindow = 0;
  private markedInWindow = 0;
  /** DCTCP cuts at most once per window of data: the end of the window the last cut was in. */
  private cutUntil = -1;

  constructor(private readonly config: TcpConfig) {
    checkConfig(config);
    this.cwnd = config.initialCwndSegments * config.mssBytes;
    this.rtoPs = config.initialRtoPs;
  }

  get snd(): { una: number; nxt: number; written: number } {
    return { una: this.una, nxt: this.nxt, written: this.written };
  }

  /** Bytes sent and not acknowledged. */
  /** What may be out beyond snd.una: the congestion window, within the receiver's. */
  private get window(): number {
    return Math.min(this.cwnd, this.config.receiveWindowBytes ?? Infinity);
  }

  /** One past the highest byte ever sent: no ACK can go beyond it. */
  get highestSent(): number {
    return this.max;
  }

  get flightBytes(): number {
    return this.nxt - this.una;
  }

  get currentRtoPs(): number {
    return this.rtoPs;
  }

  /** The application writes `bytes` more to the stream. */
  write(bytes: number): void {
    if (!(Number.isSafeInteger(bytes) && bytes > 0)) throw new RangeError(`TCP sender: write of ${bytes} bytes (a positive integer)`);
    this.written += bytes;
  }

  hasSegment(): boolean {
    if (this.retransmitAt !== null) return true;
    return this.nxt < this.written && this.nxt - this.una < this.window;
  }

  /** The next segment: a pending retransmission first, else new data within cwnd. */
  nextSegment(nowPs: number): TcpSegment | null {
    if (!this.hasSegment()) return null;
    let seg: TcpSegment;
    if (this.retransmitAt !== null) {
      const seq = this.retransmitAt;
      this.retransmitAt = null;
      seg = { seq, lengthBytes: Math.min(this.config.mssBytes, this.max - seq), retransmission: true };
      this.stats.retransmittedSegments++;
      // Karn: a retransmitted range is never timed.
      if (this.timed !== null && this.timed.end > seq) this.timed = null;
    } else {
      const seq = this.nxt;
      const lengthBytes = Math.min(this.config.mssBytes, this.written - seq, this.window - (this.nxt - this.una));
      seg = { seq, lengthBytes, retransmission: seq < this.max };
      this.nxt = seq + lengthBytes;
      this.max = Math.max(this.max, this.nxt);
      if (seg.retransmission) this.stats.retransmittedSegments++;
      else if (this.timed === null) this.timed = { end: this.nxt, sentPs: nowPs };
    }
    this.stats.segmentsSent++;
    if (this.rtoDeadlinePs === null) this.rtoDeadlinePs = nowPs + this.rtoPs;
    return seg;
  }

  /**
   * A cumulative ACK of every byte before `ack`; `ece`: the segment it answers was CE-marked
   * (DCTCP's echo). Returns the bytes newly acknowledged.
   */
  onAck(nowPs: number, ack: number, ece: boolean): number {
    if (ack > this.max) throw new RangeError(`TCP sender: ACK of byte ${ack}, beyond the highest sent (${this.max})`);
    if (ack < this.una) return 0; // stale
    const acked = ack - this.una;
    const cut = this.config.dctcpGain !== null && this.dctcp(ack, acked, ece);
    if (acked === 0) {
      if (this.flightBytes > 0) this.onDupAck();
      return 0;
    }
    this.sampleRtt(nowPs, ack);
    this.una = ack;
    this.nxt = Math.max(this.nxt, ack);
    this.dupAcks = 0;
    if (this.recover !== null) {
      if (ack >= this.recover) {
        // Full ACK: leave recovery (RFC 6582 §3.2 step 3, option 1: no burst out of a deflated window).
        this.cwnd = Math.min(this.ssthresh, Math.max(this.flightBytes, this.config.mssBytes) + this.config.mssBytes);
        this.recover = null;
      } else {
        // Partial ACK: the next hole was lost too; resend it and deflate by what was acknowledged.
        this.retransmitAt = ack;
        this.cwnd = Math.max(this.cwnd - acked + this.config.mssBytes, this.config.mssBytes);
      }
    } else if (cut || ack <= this.cutUntil) {
      // Cut for congestion: no growth until the window it was cut in is acknowledged (Linux's CWR state).
    } else if (this.cwnd < this.ssthresh) {
      this.cwnd += Math.min(acked, this.config.mssBytes); // slow start (RFC 5681 eq. 2)
    } else {
      this.cwnd += Math.max(1, Math.floor((this.config.mssBytes * this.config.mssBytes) / this.cwnd)); // congestion avoidance (eq. 3)
    }
    this.rtoDeadlinePs = this.flightBytes > 0 || this.retransmitAt !== null ? nowPs + this.rtoPs : null;
    return acked;
  }

  /** When to call `onTimer` (the RTO), or null. */
  deadlinePs(): number | null {
    return this.rtoDeadlinePs;
  }

  /** The RTO expired: one MSS of window, resend from snd.una, back off (RFC 5681 §3.1, RFC 6298 §5.5). */
  onTimer(nowPs: number): void {
    if (this.rtoDeadlinePs === null || nowPs < this.rtoDeadlinePs) return;
    this.stats.rtoExpirations++;
    this.ssthresh = Math.max(Math.floor(this.flightBytes / 2), 2 * this.config.mssBytes);
    this.cwnd = this.config.mssBytes;
    this.nxt = this.una;
    this.recover = null;
    this.retransmitAt = null;
    this.dupAcks = 0;
    this.timed = null;
    this.rtoPs = Math.min(this.rtoPs * 2, this.config.maxRtoPs);
    this.rtoDeadlinePs = nowPs + this.rtoPs;
  }

  private onDupAck(): void {
    this.dupAcks++;
    if (this.recover !== null) {
      this.cwnd += this.config.mssBytes; // each further duplicate: a segment has left the network
      return;
    }
    if (this.dupAcks !== DUP_ACK_THRESHOLD) return;
    this.stats.fastRetransmits++;
    this.ssthresh = Math.max(Math.floor(this.flightBytes / 2), 2 * this.config.mssBytes);
    this.cwnd = this.ssthresh + DUP_ACK_THRESHOLD * this.config.mssBytes;
    this.recover = this.max;
    this.retransmitAt = this.una;
  }

  /** RFC 6298 §2: the first sample sets SRTT and RTTVAR; later ones smooth them (α = 1/8, β = 1/4). */
  private sampleRtt(nowPs: number, ack: number): void {
    if (this.timed === null || ack < this.timed.end) return;
    const r = nowPs - this.timed.sentPs;
    this.timed = null;
    if (this.srttPs === null) {
      this.srttPs = r;
      this.rttvarPs = r / 2;
    } else {
      this.rttvarPs = 0.75 * this.rttvarPs + 0.25 * Math.abs(this.srttPs - r);
      this.srttPs = 0.875 * this.srttPs + 0.125 * r;
    }
    this.rtoPs = Math.min(Math.max(Math.round(this.srttPs + 4 * this.rttvarPs), this.config.minRtoPs), this.config.maxRtoPs);
  }

  /**
   * RFC 8257 §3.3: count acknowledged and marked bytes; once everything up to the window's end
   * is acknowledged (Linux `dctcp_update_alpha`: snd.una ≥ next_seq) update α; on the first mark
   * of a window cut cwnd by α/2 (once per window; ssthresh follows). True when it cut.
   */
  private dctcp(ack: number, acked: number, ece: boolean): boolean {
    let cut = false;
    const g = this.config.dctcpGain!;
    this.ackedInWindow += acked;
    if (ece) this.markedInWindow += acked;
    if (ece && ack > this.cutUntil) {
      this.cwnd = Math.max(Math.floor(this.cwnd * (1 - this.alpha / 2)), this.config.mssBytes);
      this.ssthresh = this.cwnd;
      this.cutUntil = this.nxt;
      this.stats.cwndCuts++;
      cut = true;
    }
    if (ack >= this.windowEnd && this.ackedInWindow > 0) {
      this.alpha = (1 - g) * this.alpha + (g * this.markedInWindow) / this.ackedInWindow;
      this.ackedInWindow = 0;
      this.markedInWindow = 0;
      this.windowEnd = this.nxt;
    }
    return cut;
  }
}

/** The receiving side: in-order delivery, out-of-order segments held, an ACK per segment. */
export class TcpReceiver {
  readonly stats = { segments: 0, outOfOrder: 0, duplicates: 0, deliveredBytes: 0 };
  private nxt = 0;
  /** Held out-of-order ranges [start, end), sorted, disjoint. */
  private readonly held: Array<[number, number]> = [];

  get expected(): number {
    return this.nxt;
  }

  /** A segment arrived (`ce`: it was CE-marked): the ACK to send. */
  onSegment(seq: number, lengthBytes: number, ce: boolean): { ack: number; ece: boolean } {
    this.stats.segments++;
    const end = seq + lengthBytes;
    if (end <= this.nxt) {
      this.stats.duplicates++;
    } else if (seq > this.nxt) {
      this.stats.outOfOrder++;
      this.hold(seq, end);
    } else {
      this.stats.deliveredBytes += end - this.nxt;
      this.nxt = end;
      while (this.held.length > 0 && this.held[0]![0] <= this.nxt) {
        const [, heldEnd] = this.held.shift()!;
        if (heldEnd > this.nxt) {
          this.stats.deliveredBytes += heldEnd - this.nxt;
          this.nxt = heldEnd;
        }
      }
    }
    return { ack: this.nxt, ece: ce };
  }

  private hold(start: number, end: number): void {
    let i = 0;
    while (i < this.held.length && this.held[i]![1] < start) i++;
    while (i < this.held.length && this.held[i]![0] <= end) {
      start = Math.min(start, this.held[i]![0]);
      end = Math.max(end, this.held[i]![1]);
      this.held.splice(i, 1);
    }
    this.held.splice(i, 0, [start, end]);
  }
}

function checkConfig(c: TcpConfig): void {
  const bad: string[] = [];
  const positive = (v: number) => Number.isSafeInteger(v) && v > 0;
  if (!positive(c.mssBytes)) bad.push(`mssBytes must be a positive integer, got ${c.mssBytes}`);
  if (!positive(c.initialCwndSegments)) bad.push(`initialCwndSegments must be a positive integer, got ${c.initialCwndSegments}`);
  if (!positive(c.initialRtoPs)) bad.push(`initialRtoPs must be a positive integer, got ${c.initialRtoPs}`);
  if (!positive(c.minRtoPs)) bad.push(`minRtoPs must be a positive integer, got ${c.minRtoPs}`);
  if (!(positive(c.maxRtoPs) && c.maxRtoPs >= c.minRtoPs)) bad.push(`maxRtoPs must be an integer ≥ minRtoPs, got ${c.maxRtoPs}`);
  if (c.dctcpGain !== null && !(c.dctcpGain > 0 && c.dctcpGain <= 1)) bad.push(`dctcpGain must be in (0, 1] or null, got ${c.dctcpGain}`);
  if (bad.length > 0) throw new RangeError(`TCP config: ${bad.join('; ')}`);
}
