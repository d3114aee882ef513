/**
 * Messages of the conservative window protocol (DESIGN §3), as the state machines see them.
 * The runtime maps them to the wire's `Grant` and `Report`.
 */

import type { LeaseGrant, TimedFault } from '@rocelab/wire';

/**
 * The grant, a fault as the grant carries it and a link's loss are wire messages: their shapes
 * live in @rocelab/wire, below this package, generic in what a fault carries.
 */
export type { LeaseGrant as Grant, LinkLoss as LinkLossNote, TimedFault } from '@rocelab/wire';

/** One end's count of a failed link direction: frames it emitted there, or frames it accepted from there. */
export interface LinkCounts {
  /** Link direction `from-node:port>to-node:port`. */
  link: string;
  side: 'sender' | 'receiver';
  frames: number;
}

export interface Report {
  member: string;
  lease: number;
  /** Earliest pending event among the member's nodes, null if none. */
  nextEventPs: number | null;
  /** Remote links that failed during the lease (link names). */
  linksFailed: string[];
  /** Counts of the failed links' directions, for the in-transit loss. */
  linkCounts: LinkCounts[];
}

/** End of window `window` (1-based) of a grant. */
export function windowEndPs(grant: LeaseGrant<TimedFault>, window: number): number {
  return Math.min(grant.startPs + window * grant.windowPs, grant.endPs);
}
