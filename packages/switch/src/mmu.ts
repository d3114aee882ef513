/**
 * The shared-buffer MMU: the one owner of byte accounting in a switch (STYLE §6).
 *
 * Every admitted packet is counted twice (PHYSICS §3.2): on its ingress (port, priority group)
 * — reserved bytes first, then the shared pool up to the dynamic threshold, then (lossless
 * only, after XOFF) the group's headroom — and on its egress (port, queue). The threshold is
 * Choudhury–Hahne's `α · free pool` in the exact form of HPCC ns-3 (PHYSICS §2.4):
 *
 *   threshold = ⌊α · (buffer − Σheadroom − Σreserve − sharedUsed)⌋
 *
 * Lossless groups pause upstream (XOFF) when they reach the threshold or touch headroom, and
 * resume (XON) when headroom is empty and shared use is an offset below the threshold; lossy
 * groups are dropped (`buffer`) at the threshold or when their egress queue exceeds its own
 * dynamic limit. A static mode replaces the dynamic threshold by fixed XOFF/XON points.
 *
 * The shared space may be split into pools (issue 14), each serving a set of priorities with its
 * own size and α: then a group's threshold and the lossy limits follow its own pool's free bytes,
 * and what one class holds never shrinks another's. One pool (the default) is the formula above.
 *
 * α may instead be one per ingress port (`alphaByPort`, from the port's link rate): HPCC ns-3's
 * `GetPfcThreshold(port)` is `(buffer − total_hdrm − total_rsrv − shared_used_bytes) >> pfc_a_shift[port]`
 * for the ingress port, third.cc `main` lowering the shift by one per doubling of the port's rate
 * above the NIC's. α = 2^−shift makes ⌊α · x⌋ that shift exactly.
 */
import { PFC_PRIORITIES } from '@rocelab/wire';

export interface StaticThresholds {
  /** Bytes of a group above its reserve at which it pauses upstream. */
  xoffBytes: number;
  /** Bytes of a group above its reserve at or below which it resumes. */
  xonBytes: number;
}

export interface MmuConfig {
  bufferBytes: number;
  alpha: number;
  /** Guaranteed bytes of each ingress (port, priority group). */
  reserveBytes: number;
  /** Headroom of each lossless group on each port (index = port). */
  headroomBytes: readonly number[];
  /** Which priorities are lossless (8 entries). */
  lossless: readonly boolean[];
  /** Bytes the pool's budget sets aside for reserves and headrooms (the profile decides how they add up). */
  totalReserveBytes: number;
  totalHeadroomBytes: number;
  /** Dynamic XON: resume when shared use + this offset ≤ threshold. */
  xonOffsetBytes: number;
  /** Fixed XOFF/XON instead of the dynamic threshold; null = dynamic. */
  staticThresholds: StaticThresholds | null;
  /** Egress lossy queue limit: this factor times the free pool (SONiC egress_lossy_profile). */
  egressLossyAlpha: number;
  /** The shared space split into pools by priority, with their bytes and α; null = one pool of it all, with `alpha`. */
  pools?: ReadonlyArray<{ priorities: readonly number[]; bytes: number; alpha: number }> | null;
  /**
   * Ports whose link runs credit flow control (issue 14): what arrives there is admitted against
   * the lanes' reservation the plan set aside — never dropped, never in the shared pool, never
   * pausing — because the peer sends only what that reservation granted. Absent: none.
   */
  creditPorts?: readonly boolean[];
  /**
   * α of each ingress port (index = port) for the groups arriving there, in place of `alpha`
   * (switch-mmu.cc `GetPfcThreshold(port)` with `pfc_a_shift[port]`). Absent: `alpha` everywhere.
   * Not with `pools` (a pool's α is per priority).
   */
  alphaByPort?: readonly number[];
}

export type Admission = 'admitted' | 'buffer' | 'headroom_full';

/** A group's PFC as a `pfcMisconfig` fault leaves it: lossless or not, and fixed XOFF/XON points. */
export interface GroupPfc {
  lossless?: boolean;
  xoffBytes?: number;
  xonBytes?: number;
}

export class Mmu {
  private readonly ingress: Float64Array;
  private readonly headroom: Float64Array;
  private readonly egress: Float64Array;
  /** Per pool: shared bytes in use, size, α; and each priority's pool. */
  private readonly shared: Float64Array;
  private readonly poolBytes: Float64Array;
  private readonly poolAlpha: Float64Array;
  private readonly poolOf = new Uint8Array(PFC_PRIORITIES);
  /** Per (port, group): lossless (1) or not, and fixed XOFF/XON (-1: the switch's rule). */
  private readonly lossless: Uint8Array;
  private readonly xoff: Float64Array;
  private readonly xon: Float64Array;

  /** Per port: 1 = credit flow control (`MmuConfig.creditPorts`); null when no port is. */
  private readonly credit: Uint8Array | null;
  /** Per ingress port: its α (`MmuConfig.alphaByPort`); null: the pool's. */
  private readonly portAlpha: Float64Array | null;

  constructor(
    private readonly config: MmuConfig,
    readonly ports: number,
  ) {
    const slots = ports * PFC_PRIORITIES;
    if (config.alphaByPort !== undefined && config.pools != null) throw new RangeError('MMU: an α per ingress port and buffer pools do not combine');
    if (config.alphaByPort !== undefined && config.alphaByPort.length !== ports) throw new RangeError(`MMU: ${config.alphaByPort.length} per-port α for ${ports} ports`);
    this.portAlpha = config.alphaByPort === undefined ? null : Float64Array.from(config.alphaByPort);
    this.credit = config.creditPorts?.some((c) => c) === true ? Uint8Array.from(config.creditPorts, (c) => (c ? 1 : 0)) : null;
    this.ingress = new Float64Array(slots);
    this.headroom = new Float64Array(slots);
    this.egress = new Float64Array(slots);
    this.lossless = new Uint8Array(slots);
    this.xoff = new Float64Array(slots).fill(-1);
    this.xon = new Float64Array(slots).fill(-1);
    for (let port = 0; port < ports; port++) for (let pg = 0; pg < PFC_PRIORITIES; pg++) this.lossless[port * PFC_PRIORITIES + pg] = config.lossless[pg] ? 1 : 0;
    const space = config.bufferBytes - config.totalHeadroomBytes - config.totalReserveBytes;
    if (space <= 0) throw new RangeError(`MMU: reserves and headrooms (${config.totalReserveBytes + config.totalHeadroomBytes} B) leave no shared pool in ${config.bufferBytes} B`);
    const pools = config.pools ?? [{ priorities: Array.from({ length: PFC_PRIORITIES }, (_, p) => p), bytes: space, alpha: config.alpha }];
    this.shared = new Float64Array(pools.length);
    this.poolBytes = Float64Array.from(pools, (p) => p.bytes);
    this.poolAlpha = Float64Array.from(pools, (p) => p.alpha);
    const covered = new Set<number>();
    pools.forEach((pool, k) => {
      for (const p of pool.priorities) {
        if (covered.has(p)) throw new RangeError(`MMU: priority ${p} is in two pools`);
        covered.add(p);
        this.poolOf[p] = k;
      }
    });
    if (covered.size !== PFC_PRIORITIES) throw new RangeError(`MMU: pools must cover every priority 0..7, they cover ${[...covered].sort().join(', ')}`);
  }

  /**
   * The dynamic threshold now of priority `pg`'s pool: how far one of its groups may grow into it;
   * with an α per ingress port, of a group arriving on `port` (-1: the pool's α).
   */
  threshold(pg = 0, port = -1): number {
    const k = this.poolOf[pg]!;
    const alpha = port >= 0 && this.portAlpha !== null ? this.portAlpha[port]! : this.poolAlpha[k]!;
    return Math.floor(alpha * (this.poolBytes[k]! - this.shared[k]!));
  }

  /** Shared bytes of a group: what it holds beyond its reserve (headroom aside). */
  sharedOf(port: number, pg: number): number {
    return Math.max(0, this.ingress[port * PFC_PRIORITIES + pg]! - this.config.reserveBytes);
  }

  /**
   * Decide for a packet of `bytes` arriving on (`inPort`, `pg`) bound for (`outPort`, `queue`),
   * and account it when admitted.
   */
  admit(inPort: number, pg: number, outPort: number, queue: number, bytes: number): Admission {
    const i = inPort * PFC_PRIORITIES + pg;
    if (this.credit !== null && this.credit[inPort] === 1) {
      this.ingress[i] = this.ingress[i]! + bytes;
      this.egress[outPort * PFC_PRIORITIES + queue] = this.egress[outPort * PFC_PRIORITIES + queue]! + bytes;
      return 'admitted';
    }
    const c = this.config;
    const k = this.poolOf[pg]!;
    const shared = this.shared[k]!;
    const poolBytes = this.poolBytes[k]!;
    const ingress = this.ingress[i]!;
    const limit = this.limitOf(i, pg, inPort);
    const wouldShare = ingress + bytes - c.reserveBytes;
    if (this.lossless[i] === 1) {
      // HPCC `CheckIngressAdmission`: drop only if neither the headroom nor the shared pool has room.
      if (bytes + this.headroom[i]! > c.headroomBytes[inPort]! && bytes + this.sharedOf(inPort, pg) > limit) return 'headroom_full';
      if (ingress + bytes > c.reserveBytes && (wouldShare > limit || shared + Math.min(bytes, wouldShare) > poolBytes)) {
        this.headroom[i] = this.headroom[i]! + bytes;
        this.egress[outPort * PFC_PRIORITIES + queue] = this.egress[outPort * PFC_PRIORITIES + queue]! + bytes;
        return 'admitted';
      }
    } else {
      if (ingress + bytes > c.reserveBytes && (wouldShare > limit || shared + Math.min(bytes, wouldShare) > poolBytes)) return 'buffer';
      const e = outPort * PFC_PRIORITIES + queue;
      if (this.egress[e]! + bytes > c.egressLossyAlpha * (poolBytes - shared) + c.reserveBytes) return 'buffer';
    }
    this.ingress[i] = ingress + bytes;
    if (wouldShare > 0) this.shared[k] = shared + Math.min(bytes, wouldShare);
    this.egress[outPort * PFC_PRIORITIES + queue] = this.egress[outPort * PFC_PRIORITIES + queue]! + bytes;
    return 'admitted';
  }

  /** A packet left the switch (or was discarded after admission): headroom first, then ingress. */
  release(inPort: number, pg: number, outPort: number, queue: number, bytes: number): void {
    const i = inPort * PFC_PRIORITIES + pg;
    if (this.credit !== null && this.credit[inPort] === 1) {
      this.ingress[i] = this.ingress[i]! - bytes;
      if (this.ingress[i] < 0) throw new Error(`MMU: credit ingress (${inPort}, ${pg}) released more than it held`);
      const e = outPort * PFC_PRIORITIES + queue;
      this.egress[e] = this.egress[e]! - bytes;
      if (this.egress[e] < 0) throw new Error(`MMU: egress (${outPort}, ${queue}) released more than it held`);
      return;
    }
    const fromHeadroom = Math.min(this.headroom[i]!, bytes);
    this.headroom[i] = this.headroom[i]! - fromHeadroom;
    const rest = bytes - fromHeadroom;
    if (rest > 0) {
      const before = this.sharedOf(inPort, pg);
      this.ingress[i] = this.ingress[i]! - rest;
      if (this.ingress[i] < 0) throw new Error(`MMU: ingress (${inPort}, ${pg}) released more than it held`);
      const k = this.poolOf[pg]!;
      this.shared[k] = this.shared[k]! - (before - this.sharedOf(inPort, pg));
    }
    const e = outPort * PFC_PRIORITIES + queue;
    this.egress[e] = this.egress[e]! - bytes;
    if (this.egress[e] < 0) throw new Error(`MMU: egress (${outPort}, ${queue}) released more than it held`);
  }

  /** XOFF: the group reached its threshold or spilled into headroom (HPCC `CheckShouldPause`). */
  shouldPause(port: number, pg: number): boolean {
    const i = port * PFC_PRIORITIES + pg;
    if (this.lossless[i] !== 1 || (this.credit !== null && this.credit[port] === 1)) return false;
    return this.headroom[i]! > 0 || this.sharedOf(port, pg) >= this.limitOf(i, pg, port);
  }

  /** XON: headroom empty and shared use an offset below the threshold (HPCC `CheckShouldResume`). */
  shouldResume(port: number, pg: number): boolean {
    if (this.headroom[port * PFC_PRIORITIES + pg]! > 0) return false;
    const shared = this.sharedOf(port, pg);
    const i = port * PFC_PRIORITIES + pg;
    if (this.xon[i]! >= 0) return shared <= this.xon[i]!;
    const s = this.config.staticThresholds;
    if (s !== null) return shared <= s.xonBytes;
    return shared === 0 || shared + this.config.xonOffsetBytes <= this.threshold(pg, port);
  }

  ingressBytes(port: number, pg: number): number {
    return this.ingress[port * PFC_PRIORITIES + pg]!;
  }

  headroomBytes(port: number, pg: number): number {
    return this.headroom[port * PFC_PRIORITIES + pg]!;
  }

  egressBytes(port: number, queue: number): number {
    return this.egress[port * PFC_PRIORITIES + queue]!;
  }

  /** Shared bytes in use, over every pool. */
  sharedUsedBytes(): number {
    let used = 0;
    for (let k = 0; k < this.shared.length; k++) used += this.shared[k]!;
    return used;
  }

  /** Bytes held anywhere (reserve, shared and headroom), for audits. */
  heldBytes(): number {
    let total = 0;
    for (let i = 0; i < this.ingress.length; i++) total += this.ingress[i]! + this.headroom[i]!;
    return total;
  }

  /** How far a group of priority `pg` (arriving on `port`; -1: any) may grow into its pool before it pauses: the dynamic threshold, or the static XOFF. */
  groupLimit(pg = 0, port = -1): number {
    const s = this.config.staticThresholds;
    return s === null ? this.threshold(pg, port) : s.xoffBytes;
  }

  /** A group's own limit: its fixed XOFF when a fault set one, else the switch's. */
  private limitOf(slot: number, pg: number, port: number): number {
    const x = this.xoff[slot]!;
    return x >= 0 ? x : this.groupLimit(pg, port);
  }

  isLossless(port: number, pg: number): boolean {
    return this.lossless[port * PFC_PRIORITIES + pg] === 1;
  }

  /** Change a group's PFC (`pfcMisconfig`), or restore what the settings said (null). */
  setGroupPfc(port: number, pg: number, change: GroupPfc | null): void {
    const i = port * PFC_PRIORITIES + pg;
    const configured = this.config.lossless[pg] ? 1 : 0;
    this.lossless[i] = change?.lossless === undefined ? configured : change.lossless ? 1 : 0;
    this.xoff[i] = change?.xoffBytes ?? -1;
    this.xon[i] = change?.xonBytes ?? -1;
  }
}
