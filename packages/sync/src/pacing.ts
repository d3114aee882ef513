/**
 * Wall-clock pacing is display only (DESIGN §3): with dilation D (wall seconds per virtual
 * second) a grant starting at virtual time T is released no earlier than t0 + D·T. Grants are
 * computed without it, so results never depend on it; it only bounds how long a lease may
 * span in virtual time so that one lease stays short in wall time.
 */
import type { TimedFault, Grant } from './types.js';

/** Wall time (ms since the run's t0) before which a grant must not be released. */
export function releaseAtWallMs(grant: Grant<TimedFault>, dilation: number): number {
  return dilation > 0 ? (grant.startPs / 1e12) * dilation * 1000 : 0;
}

/** Longest virtual span of a lease so that it lasts at most `wallMs` at this dilation; null = uncapped. */
export function maxLeasePsForDilation(dilation: number, wallMs = 100): number | null {
  return dilation > 0 ? Math.floor(((wallMs / 1000) * 1e12) / dilation) : null;
}

/**
 * How far a paced run is behind: the wall time past the paced end of the lease now running
 * (it should be done by t0 + D·endPs). A lease held back for pacing is on time; so is every
 * run without pacing.
 */
export function lagSeconds(wallMsSinceStart: number, runningLeaseEndPs: number | null, dilation: number): number {
  if (dilation <= 0 || runningLeaseEndPs === null) return 0;
  return Math.max(0, (wallMsSinceStart - (runningLeaseEndPs / 1e12) * dilation * 1000) / 1000);
}
