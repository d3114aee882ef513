/**
 * Leases sized by measured cost (issue 12). Every lease ends with a round trip through the
 * controller: each member reports every node's counters, the controller accounts them and
 * grants the next lease, and meanwhile nobody computes (≈ 8 ms with two workers). At a fixed
 * 128 windows a lease of a pod whose windows take under a millisecond lasts ≈ 0.1 s, and the
 * boundaries cost some 8 % of the run. So the controller measures each lease's wall time and
 * caps the next at the windows that fit in half a second at that cost per window — never fewer
 * than the 128 every pod had, never more than 4,096.
 *
 * Wall time decides only how often the controller hears from the members, never what they
 * compute: leases are not folded into any hash, and a dilation still caps a lease's span
 * (`maxLeasePsForDilation`), so a live pod keeps its short leases.
 */

export interface LeaseSizing {
  /** The wall time a lease should take. */
  targetWallMs: number;
  /** Bounds of the cap, in windows. */
  minWindows: number;
  maxWindows: number;
}

export const DEFAULT_LEASE_SIZING: Readonly<LeaseSizing> = Object.freeze({ targetWallMs: 500, minWindows: 128, maxWindows: 4096 });

/** Leases this short say little about a window's cost (the first ones also pay for JIT warm-up). */
export const MIN_MEASURED_WINDOWS = 16;

/** The cap on the next lease's windows, given what a window cost in wall time in the last lease. */
export function leaseWindowsFor(msPerWindow: number, sizing: LeaseSizing = DEFAULT_LEASE_SIZING): number {
  if (!(msPerWindow > 0) || !Number.isFinite(msPerWindow)) return sizing.minWindows;
  return Math.max(sizing.minWindows, Math.min(sizing.maxWindows, Math.floor(sizing.targetWallMs / msPerWindow)));
}
