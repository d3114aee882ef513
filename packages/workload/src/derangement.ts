/**
 * A uniformly random derangement (a permutation without fixed points) of 0..n−1: Fisher–Yates
 * shuffles, rejected until one has no fixed point. About e ≈ 2.72 shuffles on average for any
 * n ≥ 2; the draws depend only on the stream, so the same stream gives the same derangement.
 */
import type { Rng } from '@rocelab/sim';

/** A bound that is never reached in practice: (1 − 1/e)^200 < 1e-39. */
const MAX_SHUFFLES = 200;

export function randomDerangement(n: number, rng: Rng): number[] {
  if (!(Number.isSafeInteger(n) && n >= 2)) throw new RangeError(`a derangement needs n ≥ 2, got ${n}`);
  for (let attempt = 0; attempt < MAX_SHUFFLES; attempt++) {
    const p = Array.from({ length: n }, (_, i) => i);
    for (let i = n - 1; i > 0; i--) {
      const j = rng.uniformInt(0, i);
      [p[i], p[j]] = [p[j]!, p[i]!];
    }
    if (p.every((v, i) => v !== i)) return p;
  }
  throw new Error(`no derangement of ${n} after ${MAX_SHUFFLES} shuffles: the stream is broken`);
}
