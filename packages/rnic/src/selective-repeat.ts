/**
 * Lossy RDMA with selective repeat, after IRN (Mittal et al., "Revisiting Network Support for
 * RDMA", SIGCOMM 2018; issue 14): the receiver keeps what arrives out of order and answers it with
 * a NACK carrying the cumulative ePSN and the PSN it got (a SACK); the sender resends only the
 * holes below the highest PSN SACKed, each once per recovery, and never has more than a BDP of
 * packets in flight (IRN's BDP-FC), so it needs no PFC. Two timeouts, as IRN's: a short one while
 * few packets are in flight (a tail loss has no later packet to be SACKed), the long one otherwise.
 *
 * Packet-level state machines on unwrapped PSNs (seq 0, 1, …), driven by the NIC like the RC ones.
 */

export interface SelectiveRepeatConfig {
  /** Packets in flight at most: IRN's BDP cap (⌈BDP / MTU⌉). */
  bdpCapPackets: number;
  /** RTO_low, used while at most `lowRtoBelowPackets` packets are in flight (IRN: 100 µs, N = 3). */
  rtoLowPs: number;
  lowRtoBelowPackets: number;
  /** RTO_high, otherwise (IRN: a conservative upper bound, e.g. 320 µs at 40 Gb/s). */
  rtoHighPs: number;
}

/** A receiver's answer: `nack` carries the PSN that arrived out of order. */
export type SelectiveAck = { kind: 'ack'; cumulative: number } | { kind: 'nack'; cumulative: number; sacked: number };

export class SelectiveRepeatSender {
  readonly stats = { packetsSent: 0, retransmissions: 0, recoveries: 0, timeouts: 0 };
  private una = 0;
  private nxt = 0;
  private posted = 0;
  /** PSNs above `una` the receiver holds (SACKed). */
  private readonly sacked = new Set<number>();
  /** The highest PSN SACKed this recovery, and the highest sent when it began; null outside recovery. */
  private highestSacked = -1;
  private recoveryEnd: number | null = null;
  /** Holes already resent in this recovery: each is resent once (then only a timeout resends it). */
  private readonly resent = new Set<number>();
  /** The next hole to resend is searched from here. */
  private scanFrom = 0;
  private deadlinePsValue: number | null = null;

  constructor(private readonly config: SelectiveRepeatConfig) {
    if (!(Number.isSafeInteger(config.bdpCapPackets) && config.bdpCapPackets > 0)) throw new RangeError(`selective repeat: bdpCapPackets must be a positive integer, got ${config.bdpCapPackets}`);
  }

  get cumulative(): number {
    return this.una;
  }

  get inFlight(): number {
    return this.nxt - this.una;
  }

  /** `packets` more to send. */
  post(packets: number): void {
    this.posted += packets;
  }

  /** Whether `nextPacket` would give a packet now (a hole to resend, or room under the BDP cap). */
  hasPacket(): boolean {
    return this.nextHole() !== null || (this.nxt < this.posted && this.nxt - this.una < this.config.bdpCapPackets);
  }

  /** The next PSN to send: a hole to resend first, else a new packet the BDP cap allows; null if none. */
  nextPacket(nowPs: number): { psn: number; retransmission: boolean } | null {
    const hole = this.nextHole();
    let psn: number;
    if (hole !== null) {
      psn = hole;
      this.resent.add(hole);
      this.stats.retransmissions++;
    } else if (this.nxt < this.posted && this.nxt - this.una < this.config.bdpCapPackets) {
      psn = this.nxt++;
    } else {
      return null;
    }
    this.stats.packetsSent++;
    this.arm(nowPs);
    return { psn, retransmission: hole !== null };
  }

  /** A cumulative ACK (everything before `cumulative` is held) or a NACK with its SACK. */
  onReply(nowPs: number, reply: SelectiveAck): void {
    if (reply.cumulative > this.una) {
      this.una = reply.cumulative;
      for (const psn of this.sacked) if (psn < this.una) this.sacked.delete(psn);
      if (this.recoveryEnd !== null && this.una >= this.recoveryEnd) this.endRecovery();
    }
    if (reply.kind === 'nack' && reply.sacked >= this.una) {
      this.sacked.add(reply.sacked);
      if (this.recoveryEnd === null) {
        this.recoveryEnd = this.nxt;
        this.stats.recoveries++;
      }
      this.highestSacked = Math.max(this.highestSacked, reply.sacked);
    }
    this.scanFrom = Math.max(this.scanFrom, this.una);
    this.arm(nowPs);
  }

  deadlinePs(): number | null {
    return this.deadlinePsValue;
  }

  /** A timeout resends from the first unacknowledged packet; what the receiver SACKed is not sent again. */
  onTimer(nowPs: number): void {
    if (this.deadlinePsValue === null || nowPs < this.deadlinePsValue) return;
    this.stats.timeouts++;
    this.resent.clear();
    this.recoveryEnd ??= this.nxt;
    // Everything not SACKed below nxt counts as lost now.
    this.highestSacked = this.nxt;
    this.scanFrom = this.una;
    this.deadlinePsValue = null;
    this.arm(nowPs);
  }

  /** The lowest PSN below the highest SACKed one that is neither acknowledged, SACKed nor resent this recovery. */
  private nextHole(): number | null {
    if (this.recoveryEnd === null) return null;
    for (let psn = this.scanFrom; psn < this.highestSacked && psn < this.nxt; psn++) {
      if (this.sacked.has(psn) || this.resent.has(psn)) continue;
      this.scanFrom = psn;
      return psn;
    }
    return null;
  }

  private endRecovery(): void {
    this.recoveryEnd = null;
    this.highestSacked = -1;
    this.resent.clear();
  }

  private arm(nowPs: number): void {
    if (this.nxt === this.una) {
      this.deadlinePsValue = null;
      return;
    }
    const rto = this.inFlight <= this.config.lowRtoBelowPackets ? this.config.rtoLowPs : this.config.rtoHighPs;
    this.deadlinePsValue = nowPs + rto;
  }
}

/** The receiving side: out-of-order packets are kept (their data placed), each answered. */
export class SelectiveRepeatReceiver {
  readonly stats = { accepted: 0, outOfOrder: 0, duplicates: 0 };
  private ePsn = 0;
  private readonly held = new Set<number>();

  get expected(): number {
    return this.ePsn;
  }

  onPacket(psn: number): SelectiveAck {
    if (psn < this.ePsn || this.held.has(psn)) {
      this.stats.duplicates++;
      return { kind: 'ack', cumulative: this.ePsn };
    }
    if (psn > this.ePsn) {
      this.stats.outOfOrder++;
      this.held.add(psn);
      return { kind: 'nack', cumulative: this.ePsn, sacked: psn };
    }
    this.stats.accepted++;
    this.ePsn++;
    while (this.held.delete(this.ePsn)) {
      this.stats.accepted++;
      this.ePsn++;
    }
    return { kind: 'ack', cumulative: this.ePsn };
  }
}
