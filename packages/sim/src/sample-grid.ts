/**
 * The engine's sampling grid: each sampler is called at `startPs`, `startPs + periodPs`, …, in
 * time order across samplers (in the order added at equal times), between the events before an
 * instant and those at or after it. The engine checks `nextPs` once per event, so a run without
 * samplers pays one comparison with Infinity.
 */
import { EngineError } from './engine-error.js';

/**
 * Called at `startPs`, `startPs + periodPs`, …: `sample(t)` sees the state after every event
 * before t and none at or after it. Sampling only reads, so the grid never changes the trace.
 */
export interface Sampler {
  startPs: number;
  periodPs: number;
  sample(timePs: number): void;
}

export class SampleGrid {
  private readonly samplers: Array<{ sampler: Sampler; nextPs: number }> = [];
  /** The earliest pending grid instant of any sampler (Infinity: none). */
  nextPs = Infinity;

  /** Sample on a grid from `startPs` on (grid points already behind `horizonPs` are skipped). */
  add(sampler: Sampler, horizonPs: number): void {
    if (!(Number.isSafeInteger(sampler.periodPs) && sampler.periodPs > 0)) throw new EngineError('config', `sampler period must be a positive integer ps, got ${sampler.periodPs}`);
    if (!(Number.isSafeInteger(sampler.startPs) && sampler.startPs >= 0)) throw new EngineError('config', `sampler start must be a non-negative integer ps, got ${sampler.startPs}`);
    let nextPs = sampler.startPs;
    if (nextPs < horizonPs) nextPs += Math.ceil((horizonPs - nextPs) / sampler.periodPs) * sampler.periodPs;
    this.samplers.push({ sampler, nextPs });
    this.nextPs = Math.min(this.nextPs, nextPs);
  }

  /** Every grid instant up to and including `timePs`, in time order; `clock.nowPs` is each instant while it is sampled. */
  through(timePs: number, clock: { nowPs: number }): void {
    while (this.nextPs <= timePs) {
      const at = this.nextPs;
      clock.nowPs = at;
      let next = Infinity;
      for (const s of this.samplers) {
        if (s.nextPs === at) {
          s.sampler.sample(at);
          s.nextPs += s.sampler.periodPs;
        }
        next = Math.min(next, s.nextPs);
      }
      this.nextPs = next;
    }
  }
}
