/**
 * Message sizes for open-loop traffic: a fixed size, or a size drawn from an empirical CDF (the
 * HPCC ns-3 traffic files, e.g. WebSearch_distribution.txt) by inverse transform.
 *
 * The CDF is piecewise linear between its points: P(size ≤ x_i) = p_i and linear in between;
 * the first point's probability, when above 0, is a point mass at its size. A draw u ∈ [0, 1)
 * maps to the size where the CDF reaches u, rounded to the nearest byte and at least 1 byte
 * (as HPCC's traffic_gen.py: an empty message carries nothing). The file format and its checks
 * live with the reader (packages/topology/src/cdf.ts); here the points are already valid.
 */
import type { Rng } from '@rocelab/sim';

/** One point of a size CDF: P(size ≤ sizeBytes) = probability (0..1). */
export interface CdfPoint {
  sizeBytes: number;
  probability: number;
}

export type SizeDistribution =
  | { kind: 'fixed'; sizeBytes: number }
  /** `source` is the path as written in the topology file (for reports). */
  | { kind: 'cdf'; source: string; points: readonly CdfPoint[] };

/**
 * Why `points` is not a usable CDF, or null: at least one point, sizes and probabilities
 * non-decreasing, probabilities within 0..1, the last one exactly 1.
 */
export function cdfProblem(points: readonly CdfPoint[]): string | null {
  if (points.length === 0) return 'at least one point';
  for (let i = 0; i < points.length; i++) {
    const { sizeBytes, probability } = points[i]!;
    if (!(Number.isFinite(sizeBytes) && sizeBytes >= 0)) return `point ${i}: a non-negative size`;
    if (!(probability >= 0 && probability <= 1)) return `point ${i}: a probability 0..1`;
    const prev = points[i - 1];
    if (prev && (sizeBytes < prev.sizeBytes || probability < prev.probability)) return `point ${i}: sizes and probabilities that do not decrease`;
  }
  return points[points.length - 1]!.probability === 1 ? null : 'a last point with probability 1';
}

/** The size (real, before rounding) at which the CDF reaches `u` ∈ [0, 1). */
export function cdfQuantile(points: readonly CdfPoint[], u: number): number {
  const first = points[0]!;
  if (u < first.probability) return first.sizeBytes;
  for (let i = 1; i < points.length; i++) {
    const hi = points[i]!;
    if (hi.probability > u) {
      const lo = points[i - 1]!;
      return lo.sizeBytes + ((hi.sizeBytes - lo.sizeBytes) * (u - lo.probability)) / (hi.probability - lo.probability);
    }
  }
  return points[points.length - 1]!.sizeBytes; // only for u ≥ 1, which a draw never is
}

/** The mean message size in bytes (of the continuous CDF; rounding shifts it by < 1 byte). */
export function meanSizeBytes(sizes: SizeDistribution): number {
  if (sizes.kind === 'fixed') return sizes.sizeBytes;
  const [first, ...rest] = sizes.points;
  let mean = first!.probability * first!.sizeBytes;
  let prev = first!;
  for (const p of rest) {
    mean += ((p.probability - prev.probability) * (prev.sizeBytes + p.sizeBytes)) / 2;
    prev = p;
  }
  return mean;
}

/** One message size: no draw for a fixed size, one `nextFloat` for a CDF. */
export function drawSizeBytes(sizes: SizeDistribution, rng: Rng): number {
  if (sizes.kind === 'fixed') return sizes.sizeBytes;
  return Math.max(1, Math.round(cdfQuantile(sizes.points, rng.nextFloat())));
}
