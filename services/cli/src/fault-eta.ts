/**
 * When the next fault comes, in wall seconds, as `rocelab status` says it: at the pace the pod
 * keeps (the controller's `/status` `pace`, measured over its last seconds), not at the dilation
 * it is asked to keep, which a lagging machine does not. Pure.
 */
import type { PaceView } from '@rocelab/controller';

export interface FaultEta {
  /** Wall seconds from now; null when there is no estimate (no virtual time passed lately, or unpaced with no pace yet). */
  seconds: number | null;
  /** What it rests on: the pace observed, the dilation (before a pace is known), or nothing. */
  basis: 'pace' | 'dilation' | 'none';
}

/** For a fault at `atPs` and a pod at `virtualPs`: at `pace` when there is one, else at the dilation, else none. */
export function faultEta(atPs: number, virtualPs: number, pace: PaceView | null, dilation: number): FaultEta {
  const aheadPs = Math.max(0, atPs - virtualPs);
  if (pace !== null) return { seconds: pace.virtualPsPerWallSecond > 0 ? aheadPs / pace.virtualPsPerWallSecond : aheadPs === 0 ? 0 : null, basis: 'pace' };
  if (dilation > 0) return { seconds: (aheadPs / 1e12) * dilation, basis: 'dilation' };
  return { seconds: null, basis: 'none' };
}
