/**
 * RED-like ECN marking at egress dequeue (PHYSICS §1.7): the marking probability is a pure
 * function of the egress queue's bytes after the departing packet left (HPCC `ShouldSendCN`,
 * ZHU `BroadcomNode::ShouldSendCN`), and the decision draws from the port's seeded stream only
 * when the outcome is uncertain. `markingQueues` says which egress queues take part at all
 * (switch on/off, per queue); the caller skips the others and sets CE; the MMU counts the marks
 * (STYLE §6).
 */
import type { Rng } from '@rocelab/sim';
import type { FieldProblem } from './problem.js';
import { Ecn } from '@rocelab/wire';

export interface EcnConfig {
  /** At or below this many queued bytes nothing is marked. */
  kminBytes: number;
  /** Above this many queued bytes every eligible packet is marked. */
  kmaxBytes: number;
  /** Marking probability reached at exactly Kmax, in [0, 1]. */
  pmax: number;
  /** Mark not-ECT packets too (hpcc-ns3 parity: marks at dequeue without an ECT check). */
  markNonEct: boolean;
}

/** Where marking applies: on or off for the whole switch, and which egress queues (0..7) may mark. */
export interface EcnScope {
  enabled: boolean;
  priorities: readonly number[];
}

/**
 * Bit q set = egress queue q may mark. 0 when marking is off: no decision is made, so nothing
 * is marked and the `ecn` stream is never drawn from.
 */
export function markingQueues(scope: EcnScope): number {
  return scope.enabled ? scope.priorities.reduce((mask, q) => mask | (1 << q), 0) : 0;
}

/** Problems in an ECN config (see problem.ts). */
export type ConfigProblem = FieldProblem;

/** Every problem of an ECN config (all of them, so a user fixes the file in one pass). */
export function checkEcnConfig(c: EcnConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  if (!(Number.isFinite(c.kminBytes) && c.kminBytes >= 0)) {
    problems.push({ field: 'kminBytes', expected: 'a number of bytes ≥ 0', actual: c.kminBytes });
  }
  if (!(Number.isFinite(c.kmaxBytes) && c.kmaxBytes > c.kminBytes)) {
    problems.push({ field: 'kmaxBytes', expected: `a number of bytes > kminBytes (${c.kminBytes})`, actual: c.kmaxBytes });
  }
  if (!(c.pmax >= 0 && c.pmax <= 1)) problems.push({ field: 'pmax', expected: 'a probability in [0, 1]', actual: c.pmax });
  if (typeof c.markNonEct !== 'boolean') problems.push({ field: 'markNonEct', expected: 'true or false', actual: c.markNonEct });
  return problems;
}

/**
 * Marking probability for an egress queue of `queueBytes` (after the departing packet left):
 * 0 up to Kmin, Pmax·(q − Kmin)/(Kmax − Kmin) in (Kmin, Kmax], 1 above Kmax.
 */
export function markProbability(queueBytes: number, c: EcnConfig): number {
  if (queueBytes <= c.kminBytes) return 0;
  if (queueBytes > c.kmaxBytes) return 1;
  // The ratio first, so q = Kmax yields exactly Pmax and the midpoint exactly Pmax/2.
  return c.pmax * ((queueBytes - c.kminBytes) / (c.kmaxBytes - c.kminBytes));
}

/**
 * Whether one departing packet with ECN codepoint `ecn` must be marked CE. Draws exactly one
 * `nextFloat` from `rng` when (and only when) 0 < p < 1, so the stream advances only on real
 * coin flips. Not-ECT packets are never marked (and draw nothing) unless `markNonEct`; a packet
 * already CE goes through the same decision, so upstream marks do not shift the stream.
 */
export function shouldMark(ecn: number, queueBytes: number, c: EcnConfig, rng: Rng): boolean {
  if (ecn === Ecn.notEct && !c.markNonEct) return false;
  const p = markProbability(queueBytes, c);
  return p >= 1 || (p > 0 && rng.bernoulli(p));
}
