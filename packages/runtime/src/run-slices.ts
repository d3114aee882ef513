/**
 * How much virtual time a member runs before it looks at its sockets again (issue 22: no handler
 * on a member's event loop may run for more than some tens of milliseconds, or its pongs wait and
 * a loaded machine looks like a dead one). Windows are run in slices of virtual time, starting at
 * 1 µs (the default pod's window, run whole: one process per node rarely spends a millisecond on
 * one; one worker hosting the whole pod has 1 ms windows and spends a second on one): a slice
 * under `SLICE_SHORT_MS` of wall time doubles the next, one over `SLICE_LONG_MS` scales it down
 * to take about `SLICE_TARGET_MS`. Cutting
 * `runUntil` into slices changes nothing computed — the engine samples and orders events by
 * instant, not by call (`inproc-progress.test.ts`) — so wall time decides only where the cuts
 * fall. Pure: the member passes in what each slice cost.
 */

/** A slice longer than this makes the next one shorter, to take about `SLICE_TARGET_MS`. */
export const SLICE_LONG_MS = 20;
export const SLICE_TARGET_MS = 10;
/** A slice shorter than this doubles the next one. */
export const SLICE_SHORT_MS = 5;
/** The first slice's span. */
export const FIRST_SLICE_PS = 1_000_000;

export class RunSlices {
  /** Virtual span of the next slice. */
  private slicePs = FIRST_SLICE_PS;

  /** Where the next slice of a run over [`fromPs`, `untilPs`) ends. */
  next(fromPs: number, untilPs: number): number {
    return Math.min(untilPs, fromPs + this.slicePs);
  }

  /** A slice of `spanPs` of virtual time took `wallMs`. */
  ran(spanPs: number, wallMs: number): void {
    if (wallMs > SLICE_LONG_MS) this.slicePs = Math.max(1, Math.floor((spanPs * SLICE_TARGET_MS) / wallMs));
    else if (wallMs < SLICE_SHORT_MS && this.slicePs < Number.MAX_SAFE_INTEGER / 2) this.slicePs *= 2;
  }

  /** The span the next slice may cover. */
  get spanPs(): number {
    return this.slicePs;
  }
}
