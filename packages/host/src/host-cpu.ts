/**
 * A host's CPU (issue 24): what an application's or a workload's verbs call costs before it
 * reaches the NIC. Off by default; `host: {cpu: {perOperation, jitter}}` turns it on. The CPU
 * does one operation at a time: an operation issued at `t` starts when the CPU is free (at `t`
 * or when the one before it ends) and takes `perOperation` ± `jitter` of virtual time, the
 * jitter a uniform integer number of ps drawn from the host's seeded `cpu` stream. So idle
 * latency gets a spread, and an app race's interleaving depends on the seed, while the same seed
 * gives the same draws in every mode.
 *
 * `HostCpu` is the pure model; `CpuQueue` holds the operations until they take effect, on one
 * timer of the host's (registered after every other, so a pod without the model keeps its timer
 * ids and its trace hash).
 */
import type { NodeContext, Rng, TimerTable } from '@rocelab/sim';

export interface HostCpuConfig {
  /** Mean virtual time of one operation, ps (> 0). */
  perOperationPs: number;
  /** Half-width of the uniform jitter around it, ps (0 ≤ jitter ≤ perOperation). */
  jitterPs: number;
}

export class HostCpu {
  private busyUntilPs = 0;

  constructor(
    private readonly config: HostCpuConfig,
    private readonly rng: Rng,
  ) {
    const { perOperationPs: per, jitterPs: jitter } = config;
    if (!(Number.isSafeInteger(per) && per > 0 && Number.isSafeInteger(jitter) && jitter >= 0 && jitter <= per)) {
      throw new RangeError(`host CPU: expected integer ps with 0 < perOperation and 0 ≤ jitter ≤ perOperation, got perOperation ${per}, jitter ${jitter}`);
    }
  }

  /** The cost of the next operation, ps: one draw per operation, even with no jitter (the stream stays aligned). */
  private cost(): number {
    const { perOperationPs: per, jitterPs: jitter } = this.config;
    return this.rng.uniformInt(per - jitter, per + jitter);
  }

  /** An operation issued at `nowPs`: when it takes effect (after those issued before it). */
  takesEffectAt(nowPs: number): number {
    const start = Math.max(nowPs, this.busyUntilPs);
    this.busyUntilPs = start + this.cost();
    return this.busyUntilPs;
  }
}

/** The operations the CPU is working on, each run when it takes effect, in the order issued. */
export class CpuQueue {
  private readonly ops: Array<{ atPs: number; run: () => void }> = [];
  private readonly timer: number;

  constructor(
    private readonly ctx: NodeContext,
    timers: TimerTable,
    private readonly cpu: HostCpu,
  ) {
    this.timer = timers.register((nowPs) => this.due(nowPs));
  }

  /** Operations issued and not yet in effect. */
  get pending(): number {
    return this.ops.length;
  }

  /** Issue `run` at the current instant; it runs when the CPU is done with it. */
  issue(run: () => void): void {
    const atPs = this.cpu.takesEffectAt(this.ctx.nowPs);
    this.ops.push({ atPs, run });
    // Effect times only grow: the timer stays set for the oldest operation.
    if (this.ops.length === 1) this.ctx.setTimer(this.timer, atPs);
  }

  private due(nowPs: number): void {
    let done = 0;
    while (done < this.ops.length && this.ops[done]!.atPs <= nowPs) done++;
    const ready = this.ops.splice(0, done);
    if (this.ops.length > 0) this.ctx.setTimer(this.timer, this.ops[0]!.atPs);
    for (const op of ready) op.run();
  }
}
