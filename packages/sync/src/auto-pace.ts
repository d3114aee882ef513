/**
 * The pace a live pod chooses for itself (issue 27). A fixed dilation is wasteful on a fast
 * machine and cannot be kept on a loaded one, so `rocelab up` without `--dilation` runs its
 * first windows unpaced, measures the wall time they took per virtual second, and then keeps
 * that pace times a headroom for the rest of the run. It is chosen once: a pod that later
 * falls behind says so (its lag, `rocelab status`) and keeps the pace, because a pace that
 * moves whenever the load moves is no pace to read a dashboard by.
 *
 * Pure: fed one sample per lease released, (wall ms since the first lease, virtual time
 * completed, windows completed). The wall clock decides only when grants go out (DESIGN §3),
 * never what the members compute, so the trace hash is the same whatever is chosen.
 */

export interface AutoPaceConfig {
  /** The measure ends at the first lease boundary with at least this many windows run… */
  measureWindows: number;
  /** …or this much wall time since the first lease, whichever comes first. */
  measureWallMs: number;
  /** Windows left out at the start: the first leases pay for JIT compilation and first connections. */
  warmupWindows: number;
  /** The pace kept is the measured one times this, rounded up to two significant digits. */
  headroom: number;
}

/**
 * 200 windows: leases double from one window, so the measure ends at the boundary after 255:
 * 31 of warm-up (the leases of 1 to 16 windows), then leases of 32, 64 and 128, the last one as
 * long as a paced lease of a busy pod. The default pod takes ≈ 5–9 ms per window on
 * two cores, so 1.3–2.3 s. 3 s bounds how long a slower pod runs unpaced before it has a pace
 * (checked at lease boundaries, and leases are sized to ≈ 0.5 s: `lease-size.ts`). ×1.5 leaves
 * room for the load to grow past what the first windows saw and for other work on the machine.
 */
export const DEFAULT_AUTO_PACE: Readonly<AutoPaceConfig> = Object.freeze({ measureWindows: 200, measureWallMs: 3000, warmupWindows: 16, headroom: 1.5 });

/** What `/status` says of the pace while it is measured and once it is chosen. */
export type AutoPaceView =
  | { state: 'measuring'; windows: number; measureWindows: number; measureWallSeconds: number }
  | {
      state: 'chosen';
      /** The pace kept from then on: wall seconds per virtual second. */
      dilation: number;
      /** What the measured windows took, in wall seconds per virtual second. */
      measuredDilation: number;
      headroom: number;
      /** The windows and wall time measured (warm-up excluded), and when the pace was chosen. */
      windows: number;
      wallSeconds: number;
      atPs: number;
    };

interface Sample {
  wallMs: number;
  donePs: number;
  windows: number;
}

export class AutoPace {
  private first: Sample | null = null;
  /** The first sample past the warm-up, where the measure starts. */
  private anchor: Sample | null = null;
  private last: Sample | null = null;
  private chosen: Extract<AutoPaceView, { state: 'chosen' }> | null = null;

  constructor(private readonly config: AutoPaceConfig = DEFAULT_AUTO_PACE) {
    if (!(config.headroom >= 1)) throw new RangeError(`auto-pace headroom must be at least 1, got ${config.headroom}`);
    if (!(config.measureWindows > config.warmupWindows)) throw new RangeError(`auto-pace measures ${config.measureWindows} windows, expected more than the ${config.warmupWindows} of warm-up`);
  }

  /**
   * A lease is released `wallMs` after the first one: `donePs` of virtual time and `windows`
   * windows have run before it. Returns the dilation chosen, at the one sample that chooses it;
   * null before, and after.
   */
  sample(wallMs: number, donePs: number, windows: number): number | null {
    if (this.chosen !== null) return null;
    const s = { wallMs, donePs, windows };
    if (this.last !== null && (wallMs < this.last.wallMs || donePs < this.last.donePs || windows < this.last.windows)) {
      throw new Error(`auto-pace: samples go back (${JSON.stringify(this.last)} then ${JSON.stringify(s)})`);
    }
    this.first ??= s;
    if (this.anchor === null && windows >= this.config.warmupWindows) this.anchor = s;
    this.last = s;
    if (windows < this.config.measureWindows && wallMs - this.first.wallMs < this.config.measureWallMs) return null;
    // Past the warm-up when there is something after it; a pod too slow to get there in time is measured whole.
    const from = this.anchor !== null && this.anchor !== s ? this.anchor : this.first;
    // Nothing measured yet (no virtual or no wall time since `from`): the next lease will have some.
    if (donePs <= from.donePs || wallMs <= from.wallMs) return null;
    const measuredDilation = (wallMs - from.wallMs) / 1000 / ((donePs - from.donePs) / 1e12);
    const dilation = roundUpReadable(measuredDilation * this.config.headroom);
    this.chosen = { state: 'chosen', dilation, measuredDilation, headroom: this.config.headroom, windows: windows - from.windows, wallSeconds: (wallMs - from.wallMs) / 1000, atPs: donePs };
    return dilation;
  }

  get view(): AutoPaceView {
    return this.chosen ?? { state: 'measuring', windows: this.last?.windows ?? 0, measureWindows: this.config.measureWindows, measureWallSeconds: this.config.measureWallMs / 1000 };
  }
}

/**
 * Rounded up to two significant digits (841 → 850, 840 → 840, 0.1234 → 0.13): a pace a person
 * reads at a glance, at most 10 % above what it rounds.
 */
export function roundUpReadable(x: number): number {
  if (!(x > 0) || !Number.isFinite(x)) throw new RangeError(`expected a positive pace, got ${x}`);
  const step = 10 ** (Math.floor(Math.log10(x)) - 1);
  // toPrecision: 0.13 rather than 0.13000000000000000444; the small slack keeps an exact 840 at 840.
  return Number((Math.ceil(x / step - 1e-9) * step).toPrecision(2));
}
