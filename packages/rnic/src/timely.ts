/**
 * TIMELY (Mittal et al., SIGCOMM 2015) as HPCC's ns-3 simulator runs it over RoCE, CC_MODE 7
 * (PHYSICS §10): a rate-based reaction point driven by the RTT of each ACK, with no timer of its
 * own. The rate changes only inside onAck, so nextRateChangePs is always null.
 *
 * Everything follows HPCC rdma-hw.cc HandleAckTimely / UpdateRateTimely and the `tmly` fields of
 * rdma-queue-pair.h. Where the simulator departs from the paper's Algorithm 1, the comment says so.
 */
import { PS_PER_US, type FieldProblem } from '@rocelab/sim';
import type { AckFeedback, CongestionControl } from './cc.js';

export interface TimelyParams {
  /** Below this RTT: additive increase whatever the gradient (TimelyTLow, 50,000 ns). */
  tLowPs: number;
  /** Above this RTT: rate × (1 − β·(1 − tHigh/rtt)) (TimelyTHigh, 500,000 ns). */
  tHighPs: number;
  /** Normalises the RTT gradient (TimelyMinRtt, 20,000 ns). */
  minRttPs: number;
  /** EWMA weight of the newest RTT difference (TimelyAlpha 0.875). */
  alpha: number;
  /** Multiplicative decrease factor (TimelyBeta 0.8). */
  beta: number;
  /** Additive step δ (RateAI). */
  aiRateBps: number;
  /** The step once haiRounds increases have followed one another (RateHAI; the paper's N·δ). */
  haiRateBps: number;
  /** Consecutive increases before the HAI step: `m_incStage < 5` in UpdateRateTimely (paper N = 5). */
  haiRounds: number;
  /** No decrease goes below this (MinRate). */
  minRateBps: number;
}

/**
 * The TIMELY attribute defaults of rdma-hw.cc (third.cc never sets them) with the rates of
 * HPCC mix/config.txt: RATE_AI 50Mb/s, RATE_HAI 100Mb/s, MIN_RATE 100Mb/s.
 */
export const TIMELY_DEFAULTS: Readonly<TimelyParams> = Object.freeze({
  tLowPs: 50 * PS_PER_US, // TimelyTLow 50000 (ns)
  tHighPs: 500 * PS_PER_US, // TimelyTHigh 500000 (ns)
  minRttPs: 20 * PS_PER_US, // TimelyMinRtt 20000 (ns)
  alpha: 0.875, // TimelyAlpha
  beta: 0.8, // TimelyBeta
  aiRateBps: 50e6, // mix/config.txt RATE_AI 50Mb/s
  haiRateBps: 100e6, // mix/config.txt RATE_HAI 100Mb/s
  haiRounds: 5, // UpdateRateTimely: m_incStage < 5
  minRateBps: 100e6, // mix/config.txt MIN_RATE 100Mb/s
});

/**
 * HPCC run.py `--cc timely` for a NIC of lineRateBps: RATE_AI 10·bw/10 and RATE_HAI 50·bw/10 Mb/s
 * (bw in Gb/s), i.e. line/1000 and line/200, and its template's MIN_RATE 1000Mb/s.
 */
export function timelyRunPyParams(lineRateBps: number): TimelyParams {
  return { ...TIMELY_DEFAULTS, aiRateBps: Math.round(lineRateBps / 1000), haiRateBps: Math.round(lineRateBps / 200), minRateBps: 1e9 };
}

/** The topology's `nic: {timely: {…}}` keys and their units, for the NIC settings loader (DCQCN_KEYS' shape). */
export const TIMELY_KEYS: Readonly<Record<string, { param: keyof TimelyParams; unit: 'duration' | 'rate' | 'number' | 'integer' }>> = Object.freeze({
  tLow: { param: 'tLowPs', unit: 'duration' },
  tHigh: { param: 'tHighPs', unit: 'duration' },
  minRtt: { param: 'minRttPs', unit: 'duration' },
  alpha: { param: 'alpha', unit: 'number' },
  beta: { param: 'beta', unit: 'number' },
  ai: { param: 'aiRateBps', unit: 'rate' },
  hai: { param: 'haiRateBps', unit: 'rate' },
  haiRounds: { param: 'haiRounds', unit: 'integer' },
  minRate: { param: 'minRateBps', unit: 'rate' },
});

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** Every out-of-range field of `p` (with `lineRateBps`, rates are also checked against the line); empty = accepted. */
export function checkTimelyParams(p: TimelyParams, lineRateBps?: number): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const check = (field: keyof TimelyParams, ok: boolean, expected: string): void => {
    if (!ok) problems.push({ field, expected, actual: p[field] });
  };
  const line = lineRateBps ?? Infinity;
  const upTo = lineRateBps === undefined ? '' : ' .. line rate';
  check('tLowPs', isInt(p.tLowPs) && p.tLowPs >= 0, 'a time ≥ 0 (integer picoseconds)');
  check('tHighPs', isInt(p.tHighPs) && p.tHighPs > 0 && (!isInt(p.tLowPs) || p.tHighPs >= p.tLowPs), 'a time > 0 and ≥ tLowPs (integer picoseconds)');
  check('minRttPs', isInt(p.minRttPs) && p.minRttPs > 0, 'a time > 0 (integer picoseconds)');
  check('alpha', isNum(p.alpha) && p.alpha > 0 && p.alpha <= 1, 'an EWMA weight in (0, 1]');
  check('beta', isNum(p.beta) && p.beta > 0 && p.beta <= 1, 'a decrease factor in (0, 1]');
  for (const field of ['aiRateBps', 'haiRateBps'] as const) {
    const v = p[field];
    check(field, isNum(v) && v >= 0 && v <= line, `a rate 0 bit/s${upTo}`);
  }
  check('haiRounds', isInt(p.haiRounds) && p.haiRounds >= 0, 'an integer ≥ 0 (0 = always the HAI step)');
  check('minRateBps', isNum(p.minRateBps) && p.minRateBps >= 1 && p.minRateBps <= line, `1 bit/s${upTo}`);
  return problems;
}

/** The `tmly` state of rdma-queue-pair.h, plus the rate the QP sends at (`m_rate`). */
export interface TimelyState {
  rateBps: number;
  /** ack_seq must pass this for a full update; 0 = no RTT seen yet (the sim's sentinel). */
  lastUpdateSeq: number;
  incStage: number;
  lastRttPs: number;
  /** EWMA of RTT differences, ps. */
  rttDiffPs: number;
}

export type TimelyDecision = 'first' | 'increase' | 'hai' | 'decrease-high' | 'decrease-gradient';

/**
 * One full update (UpdateRateTimely with us = false), for an ACK whose ack_seq passed
 * lastUpdateSeq. Returns the new state and which branch ran.
 *
 * Differences from the paper's Algorithm 1 [code HPCC]: (1) it runs once per RTT, on the first
 * ACK beyond the snd_nxt of the last update, not on every completion event; the paper's
 * prev_rtt is the RTT of that previous update. (2) The first RTT only records the sample. (3) The
 * HAI step is a separate rate RateHAI, not N·δ, and it counts every consecutive increase,
 * including those below tLow; any decrease resets the count. (4) Increases stop at line rate,
 * decreases at MinRate, and 1 − β·gradient is clamped at 0 first. (5) Products truncate to whole
 * bit/s (ns-3 DataRate(uint64)).
 */
export function timelyUpdate(s: TimelyState, rttPs: number, nextSendBytes: number, p: TimelyParams, lineRateBps: number): { state: TimelyState; decision: TimelyDecision } {
  let next = { ...s };
  let decision: TimelyDecision = 'first';
  if (s.lastUpdateSeq !== 0) {
    const newRttDiff = rttPs - s.lastRttPs;
    const rttDiff = (1 - p.alpha) * s.rttDiffPs + p.alpha * newRttDiff;
    const gradient = rttDiff / p.minRttPs;
    let factor: number | null = null; // null = increase
    if (rttPs < p.tLowPs) factor = null;
    else if (rttPs > p.tHighPs) {
      factor = 1 - p.beta * (1 - p.tHighPs / rttPs);
      decision = 'decrease-high';
    } else if (gradient <= 0) factor = null;
    else {
      factor = Math.max(0, 1 - p.beta * gradient);
      decision = 'decrease-gradient';
    }
    if (factor === null) {
      const hai = s.incStage >= p.haiRounds;
      decision = hai ? 'hai' : 'increase';
      const rate = Math.min(lineRateBps, s.rateBps + (hai ? p.haiRateBps : p.aiRateBps));
      next = { ...next, rateBps: rate, incStage: s.incStage + 1, rttDiffPs: rttDiff };
    } else {
      const rate = Math.max(p.minRateBps, Math.floor(s.rateBps * factor));
      next = { ...next, rateBps: rate, incStage: 0, rttDiffPs: rttDiff };
    }
  }
  if (nextSendBytes > s.lastUpdateSeq) next = { ...next, lastUpdateSeq: nextSendBytes, lastRttPs: rttPs };
  return { state: next, decision };
}

export interface TimelyStats {
  /** ACKs that ran a full update (including the first, which only records the RTT). */
  updates: number;
  increases: number;
  haiIncreases: number;
  decreases: number;
  /** ACKs inside the current RTT: FastReactTimely, which does nothing. */
  fastReacts: number;
  /** ACKs without an echoed send timestamp: ignored (the NIC should echo one on every ACK). */
  untimedAcks: number;
}

export class TimelyRp implements CongestionControl {
  readonly kind = 'timely' as const;
  readonly stats: TimelyStats = { updates: 0, increases: 0, haiIncreases: 0, decreases: 0, fastReacts: 0, untimedAcks: 0 };
  private readonly p: TimelyParams;
  private readonly lineRateBps: number;
  private s: TimelyState;
  private nowPs = 0;

  constructor(params: TimelyParams, lineRateBps: number) {
    const problems = checkTimelyParams(params, lineRateBps);
    if (!(lineRateBps > 0) || problems.length > 0) {
      const what = problems.map((q) => `${q.field}: expected ${q.expected}, got ${String(q.actual)}`).join('; ');
      throw new RangeError(`TIMELY reaction point: line rate ${lineRateBps} bit/s; ${what}`);
    }
    this.p = { ...params };
    this.lineRateBps = lineRateBps;
    // AddQueuePair: m_rate = tmly.m_curRate = the NIC's rate; rdma-queue-pair.cc zeroes the rest.
    this.s = { rateBps: lineRateBps, lastUpdateSeq: 0, incStage: 0, lastRttPs: 0, rttDiffPs: 0 };
  }

  rateBps(nowPs: number): number {
    this.tick(nowPs);
    return this.s.rateBps;
  }

  /** The EWMA of RTT differences (ps) and the last full-update RTT, for tests and telemetry. */
  state(): Readonly<TimelyState> {
    return this.s;
  }

  nextRateChangePs(): number | null {
    return null;
  }

  onBytesSent(nowPs: number, bytes: number): void {
    if (!Number.isSafeInteger(bytes) || bytes < 0) throw new RangeError(`TIMELY reaction point: bytes sent must be an integer ≥ 0, got ${bytes}`);
    this.tick(nowPs);
  }

  /** CNP packets carry nothing for TIMELY (ReceiveCnp changes no rate in CC_MODE 7). */
  onCnp(nowPs: number): void {
    this.tick(nowPs);
  }

  /** HandleAckTimely: a full update once ack_seq passes the snd_nxt of the last one, else nothing. */
  onAck(nowPs: number, fb: AckFeedback): void {
    this.tick(nowPs);
    if (fb.sentTsPs === null) {
      this.stats.untimedAcks++;
      return;
    }
    const rttPs = nowPs - fb.sentTsPs;
    if (!Number.isSafeInteger(rttPs) || rttPs < 0) {
      throw new RangeError(`TIMELY reaction point: echoed send time ${fb.sentTsPs} ps must be an integer ≤ now (${nowPs} ps)`);
    }
    if (!(fb.ackedBytes > this.s.lastUpdateSeq)) {
      this.stats.fastReacts++; // FastReactTimely is empty
      return;
    }
    const { state, decision } = timelyUpdate(this.s, rttPs, fb.nextSendBytes, this.p, this.lineRateBps);
    this.s = state;
    this.stats.updates++;
    if (decision === 'increase') this.stats.increases++;
    else if (decision === 'hai') this.stats.haiIncreases++;
    else if (decision !== 'first') this.stats.decreases++;
  }

  /** No window: HAS_WIN is 0 in run.py's timely preset; a window is the NIC's `window:` setting. */
  windowBytes(): number | null {
    return null;
  }

  private tick(nowPs: number): void {
    if (!Number.isSafeInteger(nowPs) || nowPs < this.nowPs) {
      throw new RangeError(`TIMELY reaction point: time ${nowPs} ps is before ${this.nowPs} ps or not an integer`);
    }
    this.nowPs = nowPs;
  }
}
