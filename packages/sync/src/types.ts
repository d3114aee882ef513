/**
 * Messages of the conservative window protocol (DESIGN §3), as the state machines see them.
 * The runtime maps them to the wire's `Grant` and `Report`.
 */

/** A fault travels with the grant of the lease that contains its time. */
export interface TimedFault {
  id: number;
  atPs: number;
}

export interface LinkLossNote {
  /** Link direction `from-node:port>to-node:port`. */
  link: string;
  frames: number;
}

export interface Grant<F extends TimedFault = TimedFault> {
  lease: number;
  startPs: number;
  windowPs: number;
  /** Number of windows; 0 for the closing lease that only collects final reports. */
  windows: number;
  /** End of the last window (≤ start + windows · windowPs; cut at the run's end). */
  endPs: number;
  final: boolean;
  faults: F[];
  /** Links declared down at `startPs` (link names `a-node:port>b-node:port` as in the topology). */
  linksDown: string[];
  /** Links back up at `startPs`: a lost member rejoined with fresh state (its links as above). */
  linksUp: string[];
  /** Members declared lost at `startPs`, and members that rejoin at `startPs` (they run this lease). */
  membersLost: string[];
  membersJoined: string[];
  /** Frames lost in transit on broken links, to be counted by their senders as `link_down`. */
  losses: LinkLossNote[];
}

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
export function windowEndPs(grant: Grant<TimedFault>, window: number): number {
  return Math.min(grant.startPs + window * grant.windowPs, grant.endPs);
}
