/**
 * The DCQCN equations, pure (STYLE §5): α updates, cuts and increase events. The reaction point
 * (dcqcn-rp.ts) owns state and timers and calls these; tests check them against PHYSICS §7a.
 *
 * Units follow the reference code, so results match it to the bit:
 * - `paper`, `hpcc-ns3`: α is a double; rates are whole bit/s, truncated after every product and
 *   halved one operand at a time, because ns-3's `DataRate` holds a uint64 (HPCC `data-rate.cc`:
 *   `DataRate(bps * c)`, `DataRate(bps / c)`). ZHU's ns-3 keeps its rates in `DataRate` too (its
 *   data-rate.cc was not in reach; assumed the same as HPCC's, which descends from it); HTSIM's
 *   `linkspeed_bps` is a uint64. PHYSICS §7 says "floats"; truncation changes nothing at §7a's 3 decimals.
 * - `vendor`: α in 1/1024 (1023 ≈ 1) and rates in whole Mb/s, integer arithmetic (ISEKAI).
 */
import type { DcqcnVariant } from './dcqcn-params.js';

/** paper, hpcc-ns3: α ← (1 − g)·α + g after a period with a CNP, else (1 − g)·α (rdma-hw.cc `UpdateAlphaMlx`). */
export function alphaFloat(alpha: number, g: number, cnpSeen: boolean): number {
  return cnpSeen ? (1 - g) * alpha + g : (1 - g) * alpha;
}

/** vendor: α ← ⌊g·α/1024⌋ + 1024 − g capped at 1023 after a period with a CNP, else ⌊g·α/1024⌋ (ISEKAI `HandleAlphaUpdateTimer`). */
export function alphaFixed(alpha: number, gFixed: number, cnpSeen: boolean): number {
  const decayed = Math.floor((gFixed * alpha) / 1024);
  return cnpSeen ? Math.min(1023, decayed + 1024 - gFixed) : decayed;
}

/** paper, hpcc-ns3: Rc ← max(min, Rc·(1 − α/2)), the product truncated to whole bit/s. */
export function cutFloat(rateBps: number, alpha: number, minRateBps: number): number {
  return Math.max(minRateBps, Math.trunc(rateBps * (1 - alpha / 2)));
}

/** vendor: Rc ← max(min, Rc − min(⌊Rc·α / 2^rpgGd⌋, ⌊Rc·(100 − minDec)/100⌋)), all in Mb/s (ISEKAI `HandleRateDecreaseTimer`). */
export function cutFixed(rateMbps: number, alpha: number, rpgGd: number, minDecFactorPercent: number, minRateMbps: number): number {
  const byAlpha = Math.floor((rateMbps * alpha) / 2 ** rpgGd);
  const cap = Math.floor((rateMbps * (100 - minDecFactorPercent)) / 100);
  return Math.max(minRateMbps, rateMbps - Math.min(byAlpha, cap));
}

/** Fast recovery, additive increase, hyper increase; the paper variant also uses it as ZHU's `m_rpStage` (1, 2, 3). */
export type IncreaseKind = 'fast-recovery' | 'additive' | 'hyper';

/** What an increase event reads and writes, in the variant's rate unit (bit/s, or Mb/s for vendor). */
export interface RateRecovery {
  rate: number;
  target: number;
  /** Timer events since the last cut (ns-3 `rpTimeStage`). */
  timeStage: number;
  /** Byte-counter events since the last cut (always 0 in hpcc-ns3). */
  byteStage: number;
  /** paper: the stage the next event starts from; the other variants leave it as it is. */
  phase: IncreaseKind;
}

export interface RecoveryLimits {
  lineRate: number;
  ai: number;
  hai: number;
  /** F (`rpg_threshold`, `FastRecoveryTimes`). */
  f: number;
}

export type IncreaseTrigger = 'timer' | 'bytes';

/** One raise of Rt by `inc` and Rc halfway to it, as each variant's code does it: [rate, target]. */
export function raiseRates(variant: DcqcnVariant, rate: number, target: number, inc: number, lineRate: number): [number, number] {
  switch (variant) {
    case 'hpcc-ns3': {
      // rdma-hw.cc: Rt capped at the NIC rate; `rate/2 + targetRate/2`, each half truncated.
      const t = Math.min(lineRate, target + inc);
      return [Math.floor(rate / 2) + Math.floor(t / 2), t];
    }
    case 'vendor': {
      // ISEKAI IncreaseRate: Rt capped at max_rate; (rate + target)/2 in integer Mb/s.
      const t = Math.min(lineRate, target + inc);
      return [Math.floor((rate + t) / 2), t];
    }
    case 'paper': {
      // At line rate nothing moves (HTSIM increaseRate: "already at line rate!"). Otherwise ZHU
      // AdjustRates: Rt += inc uncapped, Rc = Rc/2 + Rt/2 capped at line rate.
      if (rate >= lineRate) return [rate, target];
      const t = target + inc;
      return [Math.min(lineRate, Math.floor(rate / 2) + Math.floor(t / 2)), t];
    }
  }
}

/** One increase event (PHYSICS §1.3 step 4, §1.4, §1.5); returns the new state. */
export function recoveryStep(variant: DcqcnVariant, s: RateRecovery, lim: RecoveryLimits, trigger: IncreaseTrigger): RateRecovery {
  const apply = (kind: IncreaseKind, inc: number, next: RateRecovery): RateRecovery => {
    const [rate, target] = raiseRates(variant, next.rate, next.target, inc, lim.lineRate);
    return { ...next, rate, target, phase: variant === 'paper' ? kind : next.phase };
  };
  const incOf = (kind: IncreaseKind): number => (kind === 'fast-recovery' ? 0 : kind === 'additive' ? lim.ai : lim.hai);
  switch (variant) {
    case 'hpcc-ns3': {
      // RateIncEventMlx picks by the stage before the event, then rpTimeStage++.
      const kind: IncreaseKind = s.timeStage < lim.f ? 'fast-recovery' : s.timeStage === lim.f ? 'additive' : 'hyper';
      return apply(kind, incOf(kind), { ...s, timeStage: s.timeStage + 1 });
    }
    case 'vendor': {
      // ISEKAI IncreaseRate, then the counter of the trigger ++.
      const lo = Math.min(s.timeStage, s.byteStage);
      const hi = Math.max(s.timeStage, s.byteStage);
      const kind: IncreaseKind = lo > lim.f ? 'hyper' : hi >= lim.f ? 'additive' : 'fast-recovery';
      const counted = trigger === 'timer' ? { ...s, timeStage: s.timeStage + 1 } : { ...s, byteStage: s.byteStage + 1 };
      return apply(kind, incOf(kind), counted);
    }
    case 'paper':
      return paperStep(s, lim, trigger, apply);
  }
}

/** ZHU `rpr_{fast,active,hyper}_{time,byte}`: count first, then act by the stage the event starts in. */
function paperStep(s: RateRecovery, lim: RecoveryLimits, trigger: IncreaseTrigger, apply: (kind: IncreaseKind, inc: number, next: RateRecovery) => RateRecovery): RateRecovery {
  const next = trigger === 'timer' ? { ...s, timeStage: s.timeStage + 1 } : { ...s, byteStage: s.byteStage + 1 };
  const counter = trigger === 'timer' ? next.timeStage : next.byteStage;
  const hyper = (): RateRecovery => apply('hyper', lim.hai * (Math.min(next.byteStage, next.timeStage) - lim.f + 1), next);
  // rpr_active_select: additive unless both counters reached F.
  const select = (): RateRecovery => (next.byteStage < lim.f || next.timeStage < lim.f ? apply('additive', lim.ai, next) : hyper());
  switch (s.phase) {
    case 'fast-recovery':
      return counter < lim.f ? apply('fast-recovery', 0, next) : select();
    case 'additive':
      // rpr_active_byte raises additively without re-selecting; rpr_active_time re-selects.
      return trigger === 'bytes' ? apply('additive', lim.ai, next) : select();
    case 'hyper':
      return hyper();
  }
}

/**
 * True when no later timer event can change Rc or Rt and each would repeat the same schedule
 * (paper: a stage that keeps its period), so the reaction point may skip them, counting only stages.
 */
export function recoveryIdle(variant: DcqcnVariant, s: RateRecovery, lim: RecoveryLimits): boolean {
  const still = [0, lim.ai, lim.hai].every((inc) => {
    const [rate, target] = raiseRates(variant, s.rate, s.target, inc, lim.lineRate);
    return rate === s.rate && target === s.target;
  });
  if (variant !== 'paper') return still;
  return still && (s.phase === 'hyper' || (s.phase === 'additive' && s.byteStage < lim.f));
}
