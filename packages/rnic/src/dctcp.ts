/**
 * DCTCP over RoCE as HPCC's ns-3 simulator models it, CC_MODE 8 (PHYSICS §11): a rate, not a
 * window, cut by (1 − α/2) at most once per window of data and raised by a fixed step once per
 * window otherwise. The ECN echo is the CNP flag the receiver sets on the ACK of a CE-marked
 * packet. No timer: the rate changes only inside onAck, so nextRateChangePs is always null.
 *
 * Everything follows HPCC rdma-hw.cc HandleAckDctcp and the `dctcp` fields of rdma-queue-pair.h.
 */
import type { FieldProblem } from '@rocelab/sim';
import type { AckFeedback, CongestionControl } from './cc.js';

export interface DctcpParams {
  /** EWMA gain of α: α ← (1 − g)·α + g·F once per window (EWMA_GAIN). */
  g: number;
  /** Added to the rate once per window without a cut (DCTCP_RATE_AI). */
  aiRateBps: number;
  /** No cut goes below this (MIN_RATE). */
  minRateBps: number;
}

/** HPCC mix/config.txt: EWMA_GAIN 0.00390625, DCTCP_RATE_AI 1000Mb/s, MIN_RATE 100Mb/s. */
export const DCTCP_DEFAULTS: Readonly<DctcpParams> = Object.freeze({
  g: 0.00390625, // EWMA_GAIN (1/256)
  aiRateBps: 1000e6, // DCTCP_RATE_AI 1000Mb/s (also the DctcpRateAI attribute default)
  minRateBps: 100e6, // MIN_RATE 100Mb/s
});

/**
 * HPCC run.py `--cc dctcp`: g 0.0625, DCTCP_RATE_AI 615Mb/s ("calculated from RTT=13us and
 * MTU=1KB, because DCTCP add 1 MTU per RTT"), MIN_RATE 1000Mb/s. That preset also turns the
 * window on (HAS_WIN 1, VAR_WIN 1) and marks at K = 30·bw/10 KB with Pmax 1.0.
 */
export const DCTCP_RUN_PY: Readonly<DctcpParams> = Object.freeze({ g: 0.0625, aiRateBps: 615e6, minRateBps: 1e9 });

/** The topology's `nic: {dctcp: {…}}` keys and their units, for the NIC settings loader (DCQCN_KEYS' shape). */
export const DCTCP_KEYS: Readonly<Record<string, { param: keyof DctcpParams; unit: 'rate' | 'number' }>> = Object.freeze({
  g: { param: 'g', unit: 'number' },
  ai: { param: 'aiRateBps', unit: 'rate' },
  minRate: { param: 'minRateBps', unit: 'rate' },
});

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** Every out-of-range field of `p` (with `lineRateBps`, rates are also checked against the line); empty = accepted. */
export function checkDctcpParams(p: DctcpParams, lineRateBps?: number): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const check = (field: keyof DctcpParams, ok: boolean, expected: string): void => {
    if (!ok) problems.push({ field, expected, actual: p[field] });
  };
  const line = lineRateBps ?? Infinity;
  const upTo = lineRateBps === undefined ? '' : ' .. line rate';
  check('g', isNum(p.g) && p.g > 0 && p.g <= 1, 'a gain in (0, 1]');
  check('aiRateBps', isNum(p.aiRateBps) && p.aiRateBps >= 0 && p.aiRateBps <= line, `a rate 0 bit/s${upTo}`);
  check('minRateBps', isNum(p.minRateBps) && p.minRateBps >= 1 && p.minRateBps <= line, `1 bit/s${upTo}`);
  return problems;
}

/** The `dctcp` state of rdma-queue-pair.h, plus the rate the QP sends at (`m_rate`). */
export interface DctcpState {
  rateBps: number;
  /** ack_seq must pass this to close the α window; 0 = none opened yet (the sim's sentinel). */
  lastUpdateSeq: number;
  /** true = CWR: no further cut and no increase until ack_seq passes highSeq. */
  cwr: boolean;
  highSeq: number;
  alpha: number;
  /** ECN-echoing ACKs counted in the current α window. */
  ecnCount: number;
  /** Packets the current α window is taken to hold. */
  batchPackets: number;
}

/**
 * One ACK through HandleAckDctcp [code HPCC], in its order: count the echo; if ack_seq passed
 * lastUpdateSeq, close the α window (the first one only opens: its count is not reset); leave CWR
 * once ack_seq passes highSeq; cut on an echo outside CWR and enter CWR up to snd_nxt; then, at a
 * window boundary outside CWR, add aiRateBps. Products truncate to whole bit/s (DataRate(uint64)).
 */
export function dctcpAck(s: DctcpState, fb: Pick<AckFeedback, 'ackedBytes' | 'nextSendBytes' | 'ecnEcho'>, p: DctcpParams, lineRateBps: number, payloadBytes: number): { state: DctcpState; cut: boolean; increased: boolean } {
  const ack = fb.ackedBytes;
  const sndNxt = fb.nextSendBytes;
  const next = { ...s, ecnCount: s.ecnCount + (fb.ecnEcho ? 1 : 0) };
  let newBatch = false;
  if (ack > s.lastUpdateSeq) {
    newBatch = true;
    if (s.lastUpdateSeq === 0) {
      next.batchPackets = Math.floor(sndNxt / payloadBytes) + 1;
    } else {
      const frac = Math.min(1, next.ecnCount / next.batchPackets);
      next.alpha = (1 - p.g) * next.alpha + p.g * frac;
      next.ecnCount = 0;
      // rdma-hw.cc subtracts unsigned: snd_nxt < ack_seq (after a go-back-N rewind) would wrap to
      // a huge batch there. Never seen in practice; here it counts as nothing in flight.
      next.batchPackets = Math.floor(Math.max(0, sndNxt - ack) / payloadBytes) + 1;
    }
    next.lastUpdateSeq = sndNxt;
  }
  if (next.cwr && ack > next.highSeq) next.cwr = false;
  let cut = false;
  if (fb.ecnEcho && !next.cwr) {
    next.rateBps = Math.max(p.minRateBps, Math.floor(next.rateBps * (1 - next.alpha / 2)));
    next.cwr = true;
    next.highSeq = sndNxt;
    cut = true;
  }
  let increased = false;
  if (!next.cwr && newBatch) {
    next.rateBps = Math.min(lineRateBps, next.rateBps + p.aiRateBps);
    increased = true;
  }
  return { state: next, cut, increased };
}

export interface DctcpStats {
  acks: number;
  ecnEchoes: number;
  /** α windows closed (the first window, which only opens, not counted). */
  alphaUpdates: number;
  cuts: number;
  increases: number;
}

export class DctcpRp implements CongestionControl {
  readonly kind = 'dctcp' as const;
  readonly stats: DctcpStats = { acks: 0, ecnEchoes: 0, alphaUpdates: 0, cuts: 0, increases: 0 };
  private readonly p: DctcpParams;
  private readonly lineRateBps: number;
  private readonly payloadBytes: number;
  private s: DctcpState;
  private nowPs = 0;

  /** payloadBytes: data bytes per packet, the simulator's m_mtu (PACKET_PAYLOAD_SIZE), which sizes the α window in packets. */
  constructor(params: DctcpParams, lineRateBps: number, payloadBytes: number) {
    const problems = checkDctcpParams(params, lineRateBps);
    if (!Number.isSafeInteger(payloadBytes) || payloadBytes < 1) {
      problems.push({ field: 'payloadBytes', expected: 'an integer ≥ 1 (data bytes per packet)', actual: payloadBytes });
    }
    if (!(lineRateBps > 0) || problems.length > 0) {
      const what = problems.map((q) => `${q.field}: expected ${q.expected}, got ${String(q.actual)}`).join('; ');
      throw new RangeError(`DCTCP reaction point: line rate ${lineRateBps} bit/s; ${what}`);
    }
    this.p = { ...params };
    this.lineRateBps = lineRateBps;
    this.payloadBytes = payloadBytes;
    // AddQueuePair: m_rate = the NIC's rate; rdma-queue-pair.cc: α = 1, everything else 0.
    this.s = { rateBps: lineRateBps, lastUpdateSeq: 0, cwr: false, highSeq: 0, alpha: 1, ecnCount: 0, batchPackets: 0 };
  }

  rateBps(nowPs: number): number {
    this.tick(nowPs);
    return this.s.rateBps;
  }

  state(): Readonly<DctcpState> {
    return this.s;
  }

  nextRateChangePs(): number | null {
    return null;
  }

  onBytesSent(nowPs: number, bytes: number): void {
    if (!Number.isSafeInteger(bytes) || bytes < 0) throw new RangeError(`DCTCP reaction point: bytes sent must be an integer ≥ 0, got ${bytes}`);
    this.tick(nowPs);
  }

  /** CNP packets are ignored (ReceiveCnp changes no rate in CC_MODE 8): the echo comes on ACKs. */
  onCnp(nowPs: number): void {
    this.tick(nowPs);
  }

  onAck(nowPs: number, fb: AckFeedback): void {
    this.tick(nowPs);
    const before = this.s;
    const { state, cut, increased } = dctcpAck(before, fb, this.p, this.lineRateBps, this.payloadBytes);
    this.s = state;
    this.stats.acks++;
    if (fb.ecnEcho) this.stats.ecnEchoes++;
    if (before.lastUpdateSeq !== 0 && state.lastUpdateSeq !== before.lastUpdateSeq) this.stats.alphaUpdates++;
    if (cut) this.stats.cuts++;
    if (increased) this.stats.increases++;
  }

  /** No window of its own; run.py's preset pairs DCTCP with the NIC's `window:` setting. */
  windowBytes(): number | null {
    return null;
  }

  private tick(nowPs: number): void {
    if (!Number.isSafeInteger(nowPs) || nowPs < this.nowPs) {
      throw new RangeError(`DCTCP reaction point: time ${nowPs} ps is before ${this.nowPs} ps or not an integer`);
    }
    this.nowPs = nowPs;
  }
}
