/**
 * The pace a pod actually keeps: how much virtual time it completed per wall second over the
 * last few seconds. The dilation is what it is asked to keep; a machine that cannot keep up
 * runs slower, and `rocelab status` says when the next fault comes at the pace observed, not
 * the one asked for (issue 22: an estimate from the dilation is wrong by as much as the machine
 * lags; `services/cli/src/fault-eta.ts` makes the estimate). Pure: the wall clock is passed in. Wall time here only tells a person when; it decides
 * nothing in the pod.
 */

/** Over how much recent wall time the pace is measured. */
export const PACE_WINDOW_MS = 10_000;
/** Less than this since the first lease, and no pace is given (a start-up is not a pace). */
export const MIN_PACE_SPAN_MS = 2_000;

/** What `/status` says of the pace: virtual ps completed per wall second, over how many wall seconds. */
export interface PaceView {
  virtualPsPerWallSecond: number;
  overSeconds: number;
}

interface Sample {
  atMs: number;
  /** Virtual time completed: every lease before it has run. */
  donePs: number;
}

/** Samples of (wall time, virtual time completed), one per lease released, kept for the window. */
export class PaceWindow {
  private readonly samples: Sample[] = [];

  constructor(
    private readonly windowMs = PACE_WINDOW_MS,
    private readonly minSpanMs = MIN_PACE_SPAN_MS,
  ) {}

  /** A lease starting at `donePs` was released at `atMs`: everything before it has run. */
  record(atMs: number, donePs: number): void {
    this.samples.push({ atMs, donePs });
    // Keep one sample at or before the window's start, the anchor the pace is measured from.
    while (this.samples.length > 2 && this.samples[1]!.atMs <= atMs - this.windowMs) this.samples.shift();
  }

  /**
   * Virtual time completed per wall second from the window's anchor up to `nowMs`: a pod that
   * stalls since its last lease reads slower the longer it stalls. Null before `minSpanMs` of
   * wall time has passed since the first lease.
   */
  view(nowMs: number): PaceView | null {
    const last = this.samples[this.samples.length - 1];
    if (last === undefined) return null;
    // The latest sample before the window's start, else the first one.
    let anchor = this.samples[0]!;
    for (const s of this.samples) if (s.atMs <= nowMs - this.windowMs) anchor = s;
    const spanMs = nowMs - anchor.atMs;
    if (spanMs < this.minSpanMs) return null;
    return { virtualPsPerWallSecond: ((last.donePs - anchor.donePs) * 1000) / spanMs, overSeconds: spanMs / 1000 };
  }
}
