/**
 * What `/status` says about pacing: the grant the controller holds until the wall clock catches
 * up with the dilation. While one is held nothing runs (windows/s reads 0) and that is on
 * time, not a stall; this says until when, in virtual and wall time.
 */
import { releaseAtWallMs, type Grant, type TimedFault } from '@rocelab/sync';

export interface PacingView {
  /** The lease held back and its span of virtual time. */
  lease: number;
  leaseStartPs: number;
  leaseEndPs: number;
  /** Wall seconds until it goes out, and the wall-clock time it will (ISO 8601, UTC). */
  releaseInSeconds: number;
  releaseAt: string;
}

/**
 * `t0PerfMs`: when the pod started, on the same clock as `nowPerfMs` (performance.now());
 * `nowEpochMs`: the same instant as a Unix time, for `releaseAt`.
 */
export function pacingView<F extends TimedFault>(grant: Grant<F>, t0PerfMs: number, dilation: number, nowPerfMs: number, nowEpochMs: number): PacingView {
  const inMs = Math.max(0, t0PerfMs + releaseAtWallMs(grant, dilation) - nowPerfMs);
  return { lease: grant.lease, leaseStartPs: grant.startPs, leaseEndPs: grant.endPs, releaseInSeconds: inMs / 1000, releaseAt: new Date(nowEpochMs + inMs).toISOString() };
}
