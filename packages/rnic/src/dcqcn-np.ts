/**
 * The DCQCN notification point of one QP (PHYSICS §1.6): turns CE-marked data packets into
 * CNPs, at most one per interval.
 * - vendor: the first CE after a quiet interval sends a CNP now; CEs within `min_time_between_cnps`
 *   (4 µs) of it are coalesced into it and nothing is left pending (MLXCFG; the exact coalescing
 *   is [unverified], this is the reading of "at most one CNP per QP per interval").
 * - paper: HTSIM `DCQCNSink`: a CE with no CNP in the last N µs sends one now; later CEs in the
 *   window are remembered and one CNP goes at the window's end, which starts a new window.
 * - hpcc-ns3: never a CNP packet; the NIC sets the CNP flag on the per-packet ACK instead.
 * A CE at exactly the end of the window counts as outside it (HTSIM: `now − last ≥ interval`).
 */
import type { DcqcnVariant } from './dcqcn-params.js';

export interface DcqcnNpStats {
  ceMarked: number;
  cnpsSent: number;
}

export class DcqcnNotificationPoint {
  readonly stats: DcqcnNpStats = { ceMarked: 0, cnpsSent: 0 };
  private lastCnpPs: number | null = null;
  /** paper: a CE arrived inside the current window. */
  private pending = false;

  constructor(
    readonly variant: DcqcnVariant,
    readonly intervalPs: number,
  ) {
    if (!Number.isSafeInteger(intervalPs) || intervalPs < 0) {
      throw new RangeError(`DCQCN notification point: interval must be an integer ≥ 0 ps, got ${intervalPs}`);
    }
  }

  /** A CE-marked data packet of this QP arrived: true = send a CNP now. */
  onCe(nowPs: number): boolean {
    this.stats.ceMarked++;
    switch (this.variant) {
      case 'hpcc-ns3':
        return false;
      case 'vendor':
        return this.windowOver(nowPs) && this.send(nowPs);
      case 'paper':
        if (this.windowOver(nowPs)) return this.send(nowPs);
        this.pending = true;
        return false;
    }
  }

  /** paper: a CNP is pending for the end of the window: its time, else null. */
  deadlinePs(): number | null {
    return this.pending && this.lastCnpPs !== null ? this.lastCnpPs + this.intervalPs : null;
  }

  /** The window ended: true = send the pending CNP now. */
  onTimer(nowPs: number): boolean {
    const due = this.deadlinePs();
    return due !== null && nowPs >= due && this.send(nowPs);
  }

  private windowOver(nowPs: number): boolean {
    return this.lastCnpPs === null || nowPs - this.lastCnpPs >= this.intervalPs;
  }

  private send(nowPs: number): true {
    this.lastCnpPs = nowPs;
    this.pending = false;
    this.stats.cnpsSent++;
    return true;
  }
}
