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

/**
 * The wall time a paced lease spans at most. Every lease ends in a round trip through the
 * controller while no member computes (≈ 15 ms for the 26 processes of the default pod): at
 * 100 ms a live pod spent some 15 % of its time on lease boundaries and fell behind its pace
 * (1.5 ms of the default pod at D = 10,000 took 17.9–18.5 s of wall time instead of 15 s); at
 * 400 ms, 15.7–16.4 s, the rest being the first windows' JIT warm-up. A live fault lands at
 * the next lease, so at most this much later.
 */
export const PACED_LEASE_WALL_MS = 400;

/** Longest virtual span of a lease so that it lasts at most `wallMs` at this dilation; null = uncapped. */
export function maxLeasePsForDilation(dilation: number, wallMs = PACED_LEASE_WALL_MS): number | null {
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
