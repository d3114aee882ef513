/**
 * The DCQCN reaction point of one QP: Rc, Rt, α and three protocol timers (α update, decrease
 * check, increase), one state machine for the three variants of PHYSICS §1.3–1.5.
 *
 * Timers are lazy (DESIGN §3): nothing ticks while nobody asks. `advance(now)` replays every
 * expiry that fell due, in time order, with the same arithmetic as ticking it; runs of expiries
 * that provably change nothing (α at its fixed point, a decrease check with no CNP, increases
 * once Rc and Rt cannot move) are skipped in one step, counting only what ticking would count.
 *
 * Order at equal times, as in the FIFO schedulers of ns-3 and OMNeT++ (ISEKAI): the timer armed
 * earlier fires first; timers armed at the same instant fire in the order the reference code arms
 * them: α, decrease, increase. So in hpcc-ns3 an increase due with a decrease check runs first
 * (it was armed 300 µs before, the check 4 µs before). A CNP or bytes reported at `now` come after
 * the expiries due at `now` (each call advances first); hpcc-ns3's extra 1 ns keeps its checks off
 * the α ticks.
 */
import { PS_PER_NS } from '@rocelab/sim';
import type { AckFeedback, CongestionControl } from './cc.js';
import { checkDcqcnParams, type DcqcnParams } from './dcqcn-params.js';
import { alphaFixed, alphaFloat, cutFixed, cutFloat, recoveryIdle, recoveryStep, type IncreaseTrigger, type RateRecovery, type RecoveryLimits } from './dcqcn-rate.js';

/** hpcc-ns3 arms its first decrease check 1 ns late "to make sure rate decrease is after alpha update" (rdma-hw.cc `cnp_received_mlx`). */
const HPCC_FIRST_CHECK_DELAY_PS = 1 * PS_PER_NS;

/** nextRateChangePs looks this many increase events ahead before answering conservatively. */
const PROJECTION_LIMIT = 64;

export type DcqcnTimer = 'alpha' | 'decrease' | 'increase';
/** Rank at equal due and armed times. */
const TIMERS: readonly DcqcnTimer[] = ['alpha', 'decrease', 'increase'];

interface Timer {
  duePs: number | null;
  armedPs: number;
}

export interface DcqcnRpStats {
  cnps: number;
  /** Rate decreases applied (paper: one per CNP; otherwise decrease checks with a CNP pending). */
  cuts: number;
  /** Increase events that moved Rc or Rt. */
  increases: number;
}

export class DcqcnReactionPoint implements CongestionControl {
  readonly kind = 'dcqcn' as const;
  readonly stats: DcqcnRpStats = { cnps: 0, cuts: 0, increases: 0 };
  protected readonly timers: Record<DcqcnTimer, Timer> = {
    alpha: { duePs: null, armedPs: 0 },
    decrease: { duePs: null, armedPs: 0 },
    increase: { duePs: null, armedPs: 0 },
  };
  private readonly p: DcqcnParams;
  /** bit/s per internal rate unit: 1, or 1e6 for the vendor's Mb/s. */
  private readonly unitBps: number;
  private readonly lim: RecoveryLimits;
  private readonly minRate: number;
  private rec: RateRecovery;
  /** A double, or 1/1024 units for vendor. */
  private alphaValue: number;
  private started = false;
  private alphaCnpArrived = false;
  private decreaseCnpArrived = false;
  private bytesCounted = 0;
  private byteThreshold: number;
  private nowPs = 0;
  /** Skip idle runs of expiries in one step; a test twin turns this off to fire every expiry. */
  protected readonly lazy: boolean = true;

  constructor(params: DcqcnParams, lineRateBps: number) {
    const problems = checkDcqcnParams(params, lineRateBps);
    if (!(lineRateBps > 0) || problems.length > 0) {
      const what = problems.map((q) => `${q.field}: expected ${q.expected}, got ${String(q.actual)}`).join('; ');
      throw new RangeError(`DCQCN reaction point: line rate ${lineRateBps} bit/s; ${what}`);
    }
    this.p = params;
    this.unitBps = params.variant === 'vendor' ? 1e6 : 1;
    const unit = (bps: number): number => Math.floor(bps / this.unitBps);
    this.lim = { lineRate: unit(lineRateBps), ai: unit(params.aiRateBps), hai: unit(params.haiRateBps), f: params.fastRecoverySteps };
    this.minRate = unit(params.minRateBps);
    // Before the first CNP a QP runs at line rate and no timer runs (PHYSICS §1.3 state).
    this.rec = { rate: this.lim.lineRate, target: this.lim.lineRate, timeStage: 0, byteStage: 0, phase: 'fast-recovery' };
    this.alphaValue = this.vendor ? Math.round(params.initialAlpha * 1024) : params.initialAlpha;
    this.byteThreshold = params.byteCounterBytes ?? Infinity;
  }

  /** Bring every timer up to nowPs: replay the expiries that fell due, in time order. */
  advance(nowPs: number): void {
    if (!Number.isSafeInteger(nowPs) || nowPs < this.nowPs) {
      throw new RangeError(`DCQCN reaction point: time ${nowPs} ps is before ${this.nowPs} ps or not an integer`);
    }
    for (let name = this.dueBy(nowPs); name !== null; name = this.dueBy(nowPs)) {
      if (!(this.lazy && this.skipIdle(name, nowPs))) this.fire(name);
    }
    this.nowPs = nowPs;
  }

  rateBps(nowPs: number): number {
    this.advance(nowPs);
    return this.rec.rate * this.unitBps;
  }

  targetRateBps(nowPs: number): number {
    this.advance(nowPs);
    return this.rec.target * this.unitBps;
  }

  /** α as a ratio 0..1 (vendor: α/1024). */
  alpha(nowPs: number): number {
    this.advance(nowPs);
    return this.vendor ? this.alphaValue / 1024 : this.alphaValue;
  }

  onCnp(nowPs: number): void {
    this.advance(nowPs);
    this.stats.cnps++;
    if (this.p.variant === 'paper') this.paperCnp(nowPs);
    else this.flagCnp(nowPs);
  }

  /** DCQCN reads CNPs, not ACKs (a CNP-flagged ACK reaches `onCnp` first). */
  onAck(_nowPs: number, _fb: AckFeedback): void {}

  /** DCQCN paces; it has no window. */
  windowBytes(): number | null {
    return null;
  }

  /** Bytes of this QP that left the NIC: the byte counter (vendor, paper) fires an increase every B bytes. */
  onBytesSent(nowPs: number, bytes: number): void {
    if (!Number.isSafeInteger(bytes) || bytes < 0) throw new RangeError(`DCQCN reaction point: bytes sent must be an integer ≥ 0, got ${bytes}`);
    this.advance(nowPs);
    const b = this.p.byteCounterBytes;
    // Counting starts at the first CNP (ZHU holds its counter reset until then). ISEKAI counts
    // earlier, but those events only move stages while Rc = Rt = line rate, and the first cut
    // resets them (with rateOnFirstCnp 0, the vendor default).
    if (!this.started || b === null) return;
    this.bytesCounted += bytes;
    while (this.bytesCounted >= this.byteThreshold) {
      this.bytesCounted -= this.byteThreshold;
      // ZHU rpr_hyper_byte re-arms B/2, the other stages B. The excess over B carries over
      // (ISEKAI); ZHU drops it, at most one packet per period.
      this.byteThreshold = this.p.variant === 'paper' && this.rec.phase === 'hyper' ? Math.floor(b / 2) : b;
      this.increase('bytes');
    }
  }

  /**
   * Next instant at which the rate would change by itself (a decrease check with a CNP pending, or
   * an increase event that moves Rc), or null. Timers that cannot change the rate do not count.
   */
  nextRateChangePs(): number | null {
    if (!this.started) return null;
    const cutPs = this.decreaseCnpArrived ? this.timers.decrease.duePs : null;
    let duePs = this.timers.increase.duePs;
    let s = this.rec;
    for (let i = 0; duePs !== null && i < PROJECTION_LIMIT; i++) {
      if (cutPs !== null && duePs >= cutPs) return cutPs;
      if (recoveryIdle(this.p.variant, s, this.lim)) return cutPs;
      const next = recoveryStep(this.p.variant, s, this.lim, 'timer');
      if (next.rate !== s.rate) return duePs;
      duePs += this.increasePeriodPs(s);
      s = next;
    }
    return duePs ?? cutPs;
  }

  /** The earliest armed timer, even one that changes nothing (tests tick through these). */
  protected nextTimerPs(): number | null {
    const due = TIMERS.map((n) => this.timers[n].duePs).filter((d): d is number => d !== null);
    return due.length === 0 ? null : Math.min(...due);
  }

  private get vendor(): boolean {
    return this.p.variant === 'vendor';
  }

  /** The timer to fire next among those due by limitPs, by (due, armed, rank). */
  private dueBy(limitPs: number): DcqcnTimer | null {
    let best: DcqcnTimer | null = null;
    for (const name of TIMERS) {
      const t = this.timers[name];
      if (t.duePs === null || t.duePs > limitPs) continue;
      const b = best === null ? null : this.timers[best];
      if (b === null || t.duePs < b.duePs! || (t.duePs === b.duePs && t.armedPs < b.armedPs)) best = name;
    }
    return best;
  }

  /** Jump a timer whose expiries up to nowPs change nothing past nowPs, as ticking would re-arm it. */
  private skipIdle(name: DcqcnTimer, nowPs: number): boolean {
    const t = this.timers[name];
    let idle: boolean;
    switch (name) {
      case 'alpha':
        idle = !this.alphaCnpArrived && this.nextAlpha(false) === this.alphaValue;
        break;
      case 'decrease':
        idle = !this.decreaseCnpArrived;
        break;
      case 'increase':
        // Only a cut can wake recovery up again, and a cut needs a pending CNP.
        idle = !this.decreaseCnpArrived && recoveryIdle(this.p.variant, this.rec, this.lim);
        break;
    }
    if (!idle) return false;
    const period = this.periodPs(name);
    const ticks = Math.floor((nowPs - t.duePs!) / period) + 1;
    if (name === 'increase') this.rec = { ...this.rec, timeStage: this.rec.timeStage + ticks };
    const duePs = t.duePs! + ticks * period;
    this.arm(name, duePs - period, duePs);
    return true;
  }

  private fire(name: DcqcnTimer): void {
    const at = this.timers[name].duePs!;
    switch (name) {
      case 'alpha':
        this.alphaValue = this.nextAlpha(this.alphaCnpArrived);
        this.alphaCnpArrived = false;
        this.arm('alpha', at, at + this.periodPs('alpha'));
        return;
      case 'decrease':
        // Rescheduled first, then the check (rdma-hw.cc CheckRateDecreaseMlx; ISEKAI).
        this.arm('decrease', at, at + this.periodPs('decrease'));
        if (this.decreaseCnpArrived) this.cut(at);
        return;
      case 'increase':
        this.arm('increase', at, at + this.periodPs('increase'));
        this.increase('timer');
        return;
    }
  }

  private periodPs(name: DcqcnTimer): number {
    switch (name) {
      case 'alpha':
        return this.p.alphaPeriodPs;
      case 'decrease':
        return this.p.rateDecreasePeriodPs!;
      case 'increase':
        return this.increasePeriodPs(this.rec);
    }
  }

  /** ZHU rpr_hyper_time re-arms T/2 from the hyper stage; every other case T. */
  private increasePeriodPs(s: RateRecovery): number {
    const t = this.p.rateIncreaseTimerPs;
    return this.p.variant === 'paper' && s.phase === 'hyper' ? Math.floor(t / 2) : t;
  }

  private arm(name: DcqcnTimer, armedPs: number, duePs: number): void {
    this.timers[name] = { duePs, armedPs };
  }

  private nextAlpha(cnpSeen: boolean): number {
    return this.vendor ? alphaFixed(this.alphaValue, this.p.gFixed!, cnpSeen) : alphaFloat(this.alphaValue, this.p.g, cnpSeen);
  }

  /** hpcc-ns3 and vendor: a CNP only raises flags; the timers act on them. */
  private flagCnp(nowPs: number): void {
    this.alphaCnpArrived = true;
    this.decreaseCnpArrived = true;
    if (this.started) return;
    this.start();
    this.alphaCnpArrived = false;
    this.arm('alpha', nowPs, nowPs + this.p.alphaPeriodPs);
    if (this.vendor) {
      // ISEKAI HandleRxPacket: no cut from the first CNP; all three timers start now.
      this.decreaseCnpArrived = false;
      this.arm('decrease', nowPs, nowPs + this.p.rateDecreasePeriodPs!);
      this.arm('increase', nowPs, nowPs + this.p.rateIncreaseTimerPs);
    } else {
      // rdma-hw.cc: the first check cuts (the flag stays set); the increase timer waits for a cut.
      this.arm('decrease', nowPs, nowPs + this.p.rateDecreasePeriodPs! + HPCC_FIRST_CHECK_DELAY_PS);
    }
  }

  /** paper (ZHU rpr_cnm_received): clamp, reset stages, α first, then the cut; both timers restart. */
  private paperCnp(nowPs: number): void {
    if (!this.started) this.start();
    this.clampAndReset();
    this.alphaValue = alphaFloat(this.alphaValue, this.p.g, true);
    this.rec = { ...this.rec, rate: cutFloat(this.rec.rate, this.alphaValue, this.minRate), phase: 'fast-recovery' };
    this.stats.cuts++;
    this.arm('alpha', nowPs, nowPs + this.p.alphaPeriodPs);
    this.arm('increase', nowPs, nowPs + this.p.rateIncreaseTimerPs);
  }

  /** First CNP: α to its initial value and the optional jump of `rateOnFirstCnp` (0 = unchanged). */
  private start(): void {
    this.started = true;
    this.alphaValue = this.vendor ? Math.round(this.p.initialAlpha * 1024) : this.p.initialAlpha;
    this.bytesCounted = 0;
    if (this.p.rateOnFirstCnp > 0) {
      const rate = Math.trunc(this.p.rateOnFirstCnp * this.lim.lineRate);
      this.rec = { ...this.rec, rate, target: rate };
    }
  }

  /** A decrease check with a CNP pending (hpcc-ns3, vendor). */
  private cut(atPs: number): void {
    this.clampAndReset();
    const { rate } = this.rec;
    const cutRate = this.vendor ? cutFixed(rate, this.alphaValue, this.p.rpgGd, this.p.minDecFactorPercent, this.minRate) : cutFloat(rate, this.alphaValue, this.minRate);
    this.rec = { ...this.rec, rate: cutRate };
    this.decreaseCnpArrived = false;
    this.stats.cuts++;
    this.arm('increase', atPs, atPs + this.p.rateIncreaseTimerPs);
  }

  /** Rt ← Rc per the clamp flags (same rule in ISEKAI, ZHU and, with its flag fixed, rdma-hw.cc); stages and byte counter restart. */
  private clampAndReset(): void {
    const { timeStage, byteStage } = this.rec;
    const clamp = this.p.clampTargetRate || byteStage > 0 || (this.p.clampTargetAfterTimeIncrease && timeStage > 0);
    const target = clamp ? this.rec.rate : this.rec.target;
    this.rec = { ...this.rec, target, timeStage: 0, byteStage: 0 };
    this.bytesCounted = 0;
    this.byteThreshold = this.p.byteCounterBytes ?? Infinity;
  }

  private increase(trigger: IncreaseTrigger): void {
    const before = this.rec;
    this.rec = recoveryStep(this.p.variant, before, this.lim, trigger);
    if (this.rec.rate !== before.rate || this.rec.target !== before.target) this.stats.increases++;
  }
}
