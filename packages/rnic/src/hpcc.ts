/**
 * HPCC's sender (Li et al., SIGCOMM 2019) as HPCC ns-3 runs it (CC_MODE 3): a pure state
 * machine fed the INT records each ACK carries back. Every rule is rdma-hw.cc's
 * `HandleAckHp` / `UpdateRateHp` / `FastReactHp` and rdma-queue-pair.cc's `hp` fields, `GetWin`
 * and `IsWinBound`, with its integer arithmetic where it has some (a new rate is truncated to a
 * whole bit/s, as `DataRate(double)` is).
 *
 * - A **full update** once per RTT: an ACK past the `snd_nxt` recorded at the last full update
 *   (`m_lastUpdateSeq`) updates the reference rate `Rc` (`hp.m_curRate`) and the stage counter;
 *   the ACKs in between **react fast** (`FAST_REACT`): they set the sending rate from Rc without
 *   moving Rc or the stage.
 * - Per hop, the utilisation `u = txRate/B + min(qlen, qlen_prev)·R_max/(B·W)` from the
 *   difference of this ACK's record and the last one kept for that hop; the largest (with its
 *   time difference τ) feeds `U ← (U·(T−τ) + u·τ)/T`, τ ≤ T, T the base RTT (`m_baseRtt`).
 * - `c = U/η`; if `c ≥ 1` or the stage reached `maxStage` (MI_THRESH), `R = Rc/c + W_AI`
 *   (multiplicative) and the stage restarts, else `R = Rc + W_AI` and the stage counts up;
 *   R within [minRate, line rate].
 * - `multiRate` (MULTI_RATE): U, Rc and the stage are kept per hop and the rate is the least of
 *   the hops'. `sampleFeedback` (SAMPLE_FEEDBACK): a fast reaction skips hops with an empty queue.
 *
 * The window (`HAS_WIN`) is the QP's `m_win`, the BDP the NIC is given; with `varWin` (VAR_WIN) it
 * scales with the current rate, `W·R/R_max`, at least 1 byte (rdma-queue-pair.cc `GetWin`). HPCC
 * reads `W` in its utilisation whether the window gates the sender or not.
 *
 * Differences: INT time stamps are the switches' ns (as HPCC's `Simulator::Now().GetTimeStep()`)
 * but rocelab's base RTT is in ps, so τ and T are compared in ps; a record whose time did not move
 * (τ = 0, which HPCC would divide by) is skipped as a hop with no news.
 */
import type { AckFeedback, CongestionControl, IntHop } from './cc.js';

export interface HpccParams {
  /** η, the target utilisation (U_TARGET; rdma-hw.cc `TargetUtil`). */
  eta: number;
  /** Additive steps before a multiplicative one (MI_THRESH; `MiThresh`). */
  maxStage: number;
  /** W_AI as a rate: the additive increase per update (RATE_AI; `RateAI`). */
  aiBps: number;
  /** React on every ACK between the per-RTT updates (FAST_REACT). */
  fastReact: boolean;
  /** Per-hop U, Rc and stage (MULTI_RATE). */
  multiRate: boolean;
  /** Fast reactions ignore hops with an empty queue (SAMPLE_FEEDBACK). */
  sampleFeedback: boolean;
  /** The lowest rate (MIN_RATE; `MinRate`). */
  minRateBps: number;
}

/** HPCC ns-3's mix/config.txt (U_TARGET 0.95, MI_THRESH 0, RATE_AI 50Mb/s, FAST_REACT 1, MULTI_RATE 0, SAMPLE_FEEDBACK 0, MIN_RATE 100Mb/s). */
export const HPCC_DEFAULTS: HpccParams = { eta: 0.95, maxStage: 0, aiBps: 50e6, fastReact: true, multiRate: false, sampleFeedback: false, minRateBps: 100e6 };

/** What HPCC needs of the QP's path (third.cc: `maxRtt` and `maxBdp` under GLOBAL_T 1). */
export interface HpccPath {
  /** T, the base RTT (`m_baseRtt`), ps. */
  baseRttPs: number;
  /** W, the window (`m_win`), bytes: the BDP. */
  windowBytes: number;
  /** The window gates sending (HAS_WIN); false: W only enters the utilisation. */
  windowLimits: boolean;
  /** The window scales with the rate (VAR_WIN). */
  varWin: boolean;
}

/** HPCC ns-3's INT record wraps: time at 2^24 ns, transmitted bytes at 2^20 units of 128 bytes (int-header.h `GetTimeDelta`, `GetBytesDelta`). */
export const INT_TIME_WRAP_PS = 2 ** 24 * 1000;
export const INT_BYTES_WRAP = 2 ** 20 * 128;

interface HopState {
  u: number;
  incStage: number;
  rcBps: number;
}

export class HpccRp implements CongestionControl {
  readonly kind = 'hpcc' as const;
  readonly stats = { updates: 0, fastReactions: 0 };
  /** `m_rate`: what the sender paces at. */
  private rate: number;
  /** `hp.m_curRate`: Rc, moved only by full updates. */
  private curRate: number;
  private incStage = 0;
  /** `hp.m_lastUpdateSeq`, bytes (0: no feedback yet). */
  private lastUpdateSeq = 0;
  /** `hp.u`, 1 at start (rdma-queue-pair.cc constructor). */
  private u = 1;
  /** `hp.hop`: the last record kept per hop. */
  private readonly hops: IntHop[] = [];
  private readonly hopState: HopState[];

  constructor(
    private readonly p: HpccParams,
    private readonly lineRateBps: number,
    private readonly path: HpccPath,
  ) {
    const problems = checkHpcc(p, lineRateBps, path);
    if (problems.length > 0) throw new RangeError(`HPCC: ${problems.join('; ')}`);
    this.rate = lineRateBps;
    this.curRate = lineRateBps;
    this.hopState = Array.from({ length: 5 }, () => ({ u: 1, incStage: 0, rcBps: lineRateBps }));
  }

  rateBps(_nowPs: number): number {
    return this.rate;
  }

  /** Rc, the reference rate of the full updates. */
  get referenceRateBps(): number {
    return this.curRate;
  }

  get stage(): number {
    return this.incStage;
  }

  get utilisation(): number {
    return this.u;
  }

  /** The rate moves only on ACKs. */
  nextRateChangePs(): number | null {
    return null;
  }

  onBytesSent(_nowPs: number, _bytes: number): void {}

  /** HPCC ignores ECN (its switches mark none it reads). */
  onCnp(_nowPs: number): void {}

  /** rdma-queue-pair.cc `GetWin` (HAS_WIN, VAR_WIN); null without a window. */
  windowBytes(): number | null {
    if (!this.path.windowLimits) return null;
    if (!this.path.varWin) return this.path.windowBytes;
    return Math.max(1, Math.floor((this.path.windowBytes * this.rate) / this.lineRateBps));
  }

  /** rdma-hw.cc `HandleAckHp`. */
  onAck(_nowPs: number, fb: AckFeedback): void {
    if (fb.ackedBytes > this.lastUpdateSeq) this.update(fb, false);
    else if (this.p.fastReact) this.update(fb, true);
  }

  /** rdma-hw.cc `UpdateRateHp`. */
  private update(fb: AckFeedback, fast: boolean): void {
    const nextSeq = fb.nextSendBytes;
    if (this.lastUpdateSeq === 0) {
      // The first RTT: keep the records.
      this.lastUpdateSeq = nextSeq;
      fb.hops.forEach((h, i) => (this.hops[i] = h));
      return;
    }
    if (fast) this.stats.fastReactions++;
    else this.stats.updates++;
    const T = this.path.baseRttPs;
    let U = 0;
    let dt = 0;
    const updated: boolean[] = [];
    let updatedAny = false;
    for (let i = 0; i < fb.hops.length; i++) {
      const h = fb.hops[i]!;
      if (this.p.sampleFeedback && h.qlenBytes === 0 && fast) continue;
      const prev = this.hops[i] ?? h;
      let tau = wrapDelta(h.tsPs, prev.tsPs, INT_TIME_WRAP_PS);
      if (tau === 0) continue;
      updated[i] = updatedAny = true;
      const txRate = (wrapDelta(h.txBytes, prev.txBytes, INT_BYTES_WRAP) * 8) / (tau * 1e-12);
      const u = txRate / h.lineRateBps + (Math.min(h.qlenBytes, prev.qlenBytes) * this.lineRateBps) / h.lineRateBps / this.path.windowBytes;
      if (!this.p.multiRate) {
        if (u > U) {
          U = u;
          dt = tau;
        }
      } else {
        if (tau > T) tau = T;
        const s = this.hopState[i]!;
        s.u = (s.u * (T - tau) + u * tau) / T;
      }
      this.hops[i] = h;
    }
    let newRate = this.lineRateBps;
    let newStage = this.incStage;
    const perHop: Array<{ rate: number; stage: number } | undefined> = [];
    if (!this.p.multiRate) {
      if (updatedAny) {
        if (dt > T) dt = T;
        this.u = (this.u * (T - dt) + U * dt) / T;
        const c = this.u / this.p.eta;
        if (c >= 1 || this.incStage >= this.p.maxStage) {
          newRate = Math.trunc(this.curRate / c) + this.p.aiBps;
          newStage = 0;
        } else {
          newRate = this.curRate + this.p.aiBps;
          newStage = this.incStage + 1;
        }
        newRate = this.bound(newRate);
      }
    } else {
      for (let i = 0; i < fb.hops.length; i++) {
        const s = this.hopState[i]!;
        if (updated[i] === true) {
          const c = s.u / this.p.eta;
          const multiplicative = c >= 1 || s.incStage >= this.p.maxStage;
          const r = this.bound(multiplicative ? Math.trunc(s.rcBps / c) + this.p.aiBps : s.rcBps + this.p.aiBps);
          perHop[i] = { rate: r, stage: multiplicative ? 0 : s.incStage + 1 };
          newRate = Math.min(newRate, r);
        } else {
          newRate = Math.min(newRate, s.rcBps);
        }
      }
    }
    if (updatedAny) this.rate = newRate;
    if (fast) return;
    if (updatedAny) {
      this.curRate = newRate;
      // Under MULTI_RATE HPCC assigns a stage it never computed; the per-hop stages are the ones used.
      if (!this.p.multiRate) this.incStage = newStage;
    }
    perHop.forEach((h, i) => {
      if (h !== undefined) Object.assign(this.hopState[i]!, { rcBps: h.rate, incStage: h.stage });
    });
    if (nextSeq > this.lastUpdateSeq) this.lastUpdateSeq = nextSeq;
  }

  private bound(rate: number): number {
    return Math.min(Math.max(rate, this.p.minRateBps), this.lineRateBps);
  }
}

/** int-header.h `GetTimeDelta` / `GetBytesDelta`: a counter that wrapped since `before`. */
function wrapDelta(now: number, before: number, wrap: number): number {
  return now >= before ? now - before : now + wrap - before;
}

/** Problems with HPCC's parameters, each `field: expected …, got …`. */
export function checkHpcc(p: HpccParams, lineRateBps: number, path: HpccPath): string[] {
  const out: string[] = [];
  const bad = (field: string, expected: string, got: unknown) => out.push(`${field}: expected ${expected}, got ${String(got)}`);
  if (!(p.eta > 0 && p.eta <= 1)) bad('eta', 'a target utilisation 0 < η ≤ 1', p.eta);
  if (!(Number.isInteger(p.maxStage) && p.maxStage >= 0)) bad('maxStage', 'an integer ≥ 0', p.maxStage);
  if (!(p.aiBps > 0 && p.aiBps <= lineRateBps)) bad('wai', `a rate > 0 and ≤ the line rate (${lineRateBps} bit/s)`, p.aiBps);
  if (!(p.minRateBps > 0 && p.minRateBps <= lineRateBps)) bad('minRate', `a rate > 0 and ≤ the line rate (${lineRateBps} bit/s)`, p.minRateBps);
  if (!(path.baseRttPs > 0)) bad('baseRtt', 'a base RTT > 0', path.baseRttPs);
  if (!(path.windowBytes >= 1)) bad('window.bytes', 'a window ≥ 1 byte', path.windowBytes);
  return out;
}
