/**
 * The closed list of reasons a frame leaves the fabric without being delivered (DESIGN §6).
 * It is the metrics `reason` label and the conservation audit's vocabulary: a loss with no
 * reason here is a bug, never a silent discard.
 */
export const DROP_REASONS = [
  'buffer',
  'headroom_full',
  'link_down',
  'loss',
  'corrupt',
  'ttl',
  'no_route',
  'flood_blocked',
  'misdelivered',
  'watchdog',
  'out_of_sequence',
  'causality',
  /** Held by, or arriving at, a node that a `kill` fault took down (engine.ts, node-life.ts). */
  'node_lost',
  /**
   * A request an RC responder refused (a bad rkey, an access out of bounds or not allowed, a SEND
   * longer than its receive) and everything that reaches its queue pair after, in the error state.
   */
  'qp_error',
  /** A packet a Tagger switch would have forwarded against up-down past its last lossless tag, with `beyond: drop` (issue 14). */
  'tagger',
  /** A frame larger than a port's MTU, which an `mtuMismatch` fault lowered (issue 24): the port neither sends nor takes it. */
  'mtu_exceeded',
] as const;

export type DropReason = (typeof DROP_REASONS)[number];

const INDEX = new Map<DropReason, number>(DROP_REASONS.map((reason, i) => [reason, i]));

export function dropReasonIndex(reason: DropReason): number {
  return INDEX.get(reason)!;
}

export function isDropReason(text: string): text is DropReason {
  return INDEX.has(text as DropReason);
}
