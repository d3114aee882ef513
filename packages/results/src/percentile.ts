/**
 * Percentiles by the nearest-rank method (the smallest value with at least p % of the values at
 * or below it): every reported percentile is a value that was measured, never an interpolation.
 */

/** The p-th percentile (0 < p ≤ 100) of `sorted` (ascending); null when there are no values. */
export function nearestRank(sorted: readonly number[], p: number): number | null {
  if (!(p > 0 && p <= 100)) throw new RangeError(`percentile must be in (0, 100], got ${p}`);
  if (sorted.length === 0) return null;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.max(1, rank) - 1]!;
}
