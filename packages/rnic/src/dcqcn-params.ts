/**
 * DCQCN knobs for the three variants rocelab ships (PHYSICS §1.2, §7; DESIGN §9), each default
 * with its source, and the range checks the topology loader reports field by field.
 *
 * Rates are bit/s and times picoseconds everywhere here; the `vendor` reaction point converts
 * to the firmware's units (Mb/s, α in 1/1024) itself, so its rates must be whole Mb/s.
 */
import { PS_PER_US, type FieldProblem } from '@rocelab/sim';

/** `vendor` = ConnectX-4+ firmware defaults, `paper` = SIGCOMM'15 as coded by its first author, `hpcc-ns3` = HPCC's ns-3 (PHYSICS §1.3–1.5). */
export type DcqcnVariant = 'vendor' | 'paper' | 'hpcc-ns3';

export const DCQCN_VARIANTS: readonly DcqcnVariant[] = ['vendor', 'paper', 'hpcc-ns3'];

export interface DcqcnParams {
  variant: DcqcnVariant;
  /** EWMA gain of α (paper, hpcc-ns3): α ← (1 − g)·α + g with a CNP in the period, else (1 − g)·α. */
  g: number;
  /** vendor `dce_tcp_g`: α ← ⌊gFixed·α/1024⌋ (+ 1024 − gFixed with a CNP, capped at 1023); null where α is a float. */
  gFixed: number | null;
  /** α when the first CNP arrives, as a ratio (vendor: `initial_alpha_value`/1024). */
  initialAlpha: number;
  /** α update period (vendor `dce_tcp_rtt`; ns-3 `AlphaResumInterval`; paper K). */
  alphaPeriodPs: number;
  /** Decrease check period (`rate_reduce_monitor_period`); null = cut on every CNP (paper). */
  rateDecreasePeriodPs: number | null;
  /** Increase timer T (`rpg_time_reset`; ns-3 `RPTimer`). */
  rateIncreaseTimerPs: number;
  /** Byte counter B (vendor `rpg_byte_reset` × 64 B); null = none (hpcc-ns3). */
  byteCounterBytes: number | null;
  /** F: increase events spent in fast recovery (`rpg_threshold`; ns-3 `FastRecoveryTimes`). */
  fastRecoverySteps: number;
  aiRateBps: number;
  haiRateBps: number;
  minRateBps: number;
  /** Rt ← Rc at every cut (`clamp_tgt_rate`). */
  clampTargetRate: boolean;
  /** Rt ← Rc at a cut if a timer increase happened since the last one (`clamp_tgt_rate_after_time_inc`; ns-3 does this always). */
  clampTargetAfterTimeIncrease: boolean;
  /** Rc = Rt = this fraction of line rate at the first CNP; 0 = leave the rate unchanged (DESIGN §9). */
  rateOnFirstCnp: number;
  /** vendor `rpg_gd`: a cut removes Rc·α >> rpgGd (α in 1/1024, so 11 ⇒ Rc·α/2). */
  rpgGd: number;
  /** vendor `rpg_min_dec_fac`: one cut removes at most (100 − this) % of Rc. */
  minDecFactorPercent: number;
  /** NP: at most one CNP per QP per this interval (vendor, paper); null = no CNP packets (hpcc-ns3). */
  cnpIntervalPs: number | null;
}

/** NVIDIA ConnectX-4+ firmware defaults: the `mlxconfig query` dump and ISEKAI's `RdmaCcDcqcnOptions` (PHYSICS §1.2). */
const VENDOR: Omit<DcqcnParams, 'variant'> = {
  g: (1024 - 1019) / 1024, // the gain dce_tcp_g 1019 amounts to; the RP runs on gFixed
  gFixed: 1019, // DCE_TCP_G
  initialAlpha: 1023 / 1024, // INITIAL_ALPHA_VALUE 1023
  alphaPeriodPs: 1 * PS_PER_US, // DCE_TCP_RTT 1
  rateDecreasePeriodPs: 4 * PS_PER_US, // RATE_REDUCE_MONITOR_PERIOD 4
  rateIncreaseTimerPs: 300 * PS_PER_US, // RPG_TIME_RESET 300
  byteCounterBytes: 32_767 * 64, // RPG_BYTE_RESET 32767, in 64 B units (ISEKAI)
  fastRecoverySteps: 1, // RPG_THRESHOLD 1
  aiRateBps: 5e6, // RPG_AI_RATE 5
  haiRateBps: 50e6, // RPG_HAI_RATE 50
  minRateBps: 1e6, // RPG_MIN_RATE 1
  clampTargetRate: false, // CLAMP_TGT_RATE 0
  clampTargetAfterTimeIncrease: true, // CLAMP_TGT_RATE_AFTER_TIME_INC 1
  rateOnFirstCnp: 0, // RATE_TO_SET_ON_FIRST_CNP 0, read as "unchanged" (DESIGN §9)
  rpgGd: 11, // RPG_GD 11
  minDecFactorPercent: 50, // RPG_MIN_DEC_FAC 50
  cnpIntervalPs: 4 * PS_PER_US, // MIN_TIME_BETWEEN_CNPS 4
};

/** SIGCOMM'15 as coded by ZHU `qbb-net-device.cc` and HTSIM `dcqcn.cpp`, with [2nd] sources for the paper (PHYSICS §1.2, §1.5). */
const PAPER: Omit<DcqcnParams, 'variant'> = {
  g: 1 / 256, // ZHU DCTCP_GAIN, HTSIM _g; [2nd]
  gFixed: null,
  initialAlpha: 1, // HTSIM _alpha (ZHU's constructor 0.5 is never used by its configs)
  alphaPeriodPs: 55 * PS_PER_US, // ZHU ALPHA_RESUME_INTERVAL 55, HTSIM; [2nd]
  rateDecreasePeriodPs: null, // cut on every CNP (ZHU rpr_cnm_received, HTSIM processCNP)
  rateIncreaseTimerPs: 55 * PS_PER_US, // HTSIM _cc_update_period; [2nd] (ZHU's sample config: 60)
  byteCounterBytes: 10_000_000, // HTSIM _B; [2nd] 10 MB
  fastRecoverySteps: 5, // ZHU, HTSIM _F; [2nd]
  aiRateBps: 40e6, // ZHU RATE_AI 40Mb/s; [2nd]
  haiRateBps: 200e6, // ZHU RATE_HAI 200Mb/s (paper value [unverified])
  minRateBps: 100e6, // ZHU MinRate attribute, HTSIM
  clampTargetRate: true, // ZHU CLAMP_TARGET_RATE 1; HTSIM sets Rt ← Rc on every CNP
  clampTargetAfterTimeIncrease: false, // moot while clampTargetRate is set
  rateOnFirstCnp: 0, // no special case for the first CNP (ZHU, HTSIM)
  rpgGd: 11, // vendor-only; the vendor value keeps the object complete
  minDecFactorPercent: 50, // vendor-only, as above
  cnpIntervalPs: 50 * PS_PER_US, // HTSIM _cnp_interval, ZHU CNP_INTERVAL 50
};

/**
 * HPCC `run.py --cc dcqcn` (mode 1) with `rdma-hw.cc` semantics (PHYSICS §1.2, §1.3). AI and HAI
 * scale with the link: 5·bw/25 and 50·bw/25 Mb/s (bw in Gb/s), i.e. line/5000 and line/500.
 * run.py is Python 2 and floors to whole Mb/s; that agrees at every multiple of 5 Gb/s.
 */
function hpccNs3(lineRateBps: number): Omit<DcqcnParams, 'variant'> {
  return {
    g: 1 / 256, // EWMA_GAIN 0.00390625
    gFixed: null,
    initialAlpha: 1, // cnp_received_mlx: alpha = 1 on the first CNP
    alphaPeriodPs: 1 * PS_PER_US, // ALPHA_RESUME_INTERVAL 1
    rateDecreasePeriodPs: 4 * PS_PER_US, // RATE_DECREASE_INTERVAL 4
    rateIncreaseTimerPs: 300 * PS_PER_US, // RP_TIMER 300
    byteCounterBytes: null, // not implemented in rdma-hw.cc
    fastRecoverySteps: 1, // FAST_RECOVERY_TIMES 1
    aiRateBps: Math.round(lineRateBps / 5_000), // RATE_AI 5·bw/25 Mb/s
    haiRateBps: Math.round(lineRateBps / 500), // RATE_HAI 50·bw/25 Mb/s
    minRateBps: 1e9, // MIN_RATE 1000Mb/s
    clampTargetRate: false, // CLAMP_TARGET_RATE 0
    clampTargetAfterTimeIncrease: true, // CheckRateDecreaseMlx clamps when rpTimeStage != 0
    rateOnFirstCnp: 1, // RateOnFirstCnp 1.0 (unchanged)
    rpgGd: 11, // vendor-only
    minDecFactorPercent: 50, // vendor-only
    cnpIntervalPs: null, // no CNP packets: the ACK of a CE packet carries the CNP flag (PHYSICS §1.6)
  };
}

/** The PHYSICS §7 profile of `variant` for a NIC of `lineRateBps`. */
export function dcqcnDefaults(variant: DcqcnVariant, lineRateBps: number): DcqcnParams {
  switch (variant) {
    case 'vendor':
      return { variant, ...VENDOR };
    case 'paper':
      return { variant, ...PAPER };
    case 'hpcc-ns3':
      return { variant, ...hpccNs3(lineRateBps) };
  }
}

/** A bad value: the field, what would be accepted, what was found (the loader adds the path). */
export type DcqcnParamProblem = FieldProblem;

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const MBPS = 1e6;

/**
 * Every out-of-range field of `p`. With `lineRateBps`, rates are also checked against the line.
 * An empty list means the reaction point accepts `p`.
 */
export function checkDcqcnParams(p: DcqcnParams, lineRateBps?: number): DcqcnParamProblem[] {
  const problems: DcqcnParamProblem[] = [];
  const check = (field: keyof DcqcnParams, ok: boolean, expected: string): void => {
    if (!ok) problems.push({ field, expected, actual: p[field] });
  };
  const vendor = p.variant === 'vendor';
  const line = lineRateBps ?? Infinity;
  const upTo = lineRateBps === undefined ? '' : ' .. line rate';
  const wholeMbps = (v: number): boolean => !vendor || Number.isInteger(v / MBPS);
  const mbpsNote = vendor ? ', in whole Mb/s (the firmware unit)' : '';
  const duration = (v: unknown): boolean => isInt(v) && v > 0;

  check('variant', DCQCN_VARIANTS.includes(p.variant), `one of ${DCQCN_VARIANTS.join(', ')}`);
  check('g', isNum(p.g) && p.g > 0 && p.g < 1, 'a gain in (0, 1)');
  if (vendor) check('gFixed', isInt(p.gFixed) && p.gFixed >= 1 && p.gFixed <= 1023, 'the α weight in 1/1024 (dce_tcp_g), an integer 1 .. 1023');
  const alphaOk = isNum(p.initialAlpha) && p.initialAlpha >= 0 && p.initialAlpha <= 1;
  if (vendor) check('initialAlpha', alphaOk && Number.isInteger(p.initialAlpha * 1024) && p.initialAlpha * 1024 <= 1023, 'a ratio 0 .. 1023/1024 in steps of 1/1024');
  else check('initialAlpha', alphaOk, 'a ratio 0 .. 1');
  check('alphaPeriodPs', duration(p.alphaPeriodPs), 'a period > 0 (integer picoseconds)');
  if (p.variant === 'paper') check('rateDecreasePeriodPs', p.rateDecreasePeriodPs === null, 'null: the paper variant cuts on every CNP');
  else check('rateDecreasePeriodPs', duration(p.rateDecreasePeriodPs), 'a period > 0 (integer picoseconds)');
  check('rateIncreaseTimerPs', duration(p.rateIncreaseTimerPs), 'a period > 0 (integer picoseconds)');
  if (p.variant === 'hpcc-ns3') check('byteCounterBytes', p.byteCounterBytes === null, 'null: hpcc-ns3 has no byte counter');
  else check('byteCounterBytes', p.byteCounterBytes === null || (isInt(p.byteCounterBytes) && p.byteCounterBytes >= 1), 'a byte count ≥ 1, or null for none');
  check('fastRecoverySteps', isInt(p.fastRecoverySteps) && p.fastRecoverySteps >= 0, 'an integer ≥ 0');
  for (const field of ['aiRateBps', 'haiRateBps'] as const) {
    const v = p[field];
    check(field, isNum(v) && v >= 0 && v <= line && wholeMbps(v), `a rate 0 bit/s${upTo}${mbpsNote}`);
  }
  const min = p.minRateBps;
  check('minRateBps', isNum(min) && min >= (vendor ? MBPS : 1) && min <= line && wholeMbps(min), `${vendor ? '1 Mb/s' : '1 bit/s'}${upTo}${mbpsNote}`);
  check('clampTargetRate', typeof p.clampTargetRate === 'boolean', 'true or false');
  check('clampTargetAfterTimeIncrease', typeof p.clampTargetAfterTimeIncrease === 'boolean', 'true or false');
  check('rateOnFirstCnp', isNum(p.rateOnFirstCnp) && p.rateOnFirstCnp >= 0 && p.rateOnFirstCnp <= 1, 'a fraction of line rate 0 .. 1 (0 = unchanged)');
  check('rpgGd', isInt(p.rpgGd) && p.rpgGd >= 0 && p.rpgGd <= 31, 'a shift 0 .. 31 (11 ⇒ Rc·α/2)');
  check('minDecFactorPercent', isInt(p.minDecFactorPercent) && p.minDecFactorPercent >= 0 && p.minDecFactorPercent <= 100, 'a percentage 0 .. 100');
  if (p.variant === 'hpcc-ns3') check('cnpIntervalPs', p.cnpIntervalPs === null, 'null: hpcc-ns3 sends no CNP packets');
  else check('cnpIntervalPs', isInt(p.cnpIntervalPs) && p.cnpIntervalPs >= 0, 'an interval ≥ 0 (integer picoseconds)');
  return problems;
}
