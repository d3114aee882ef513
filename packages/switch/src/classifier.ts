/**
 * Classification (DESIGN §5): DSCP → priority (one queue and one ingress priority group per
 * priority, identity as in SONiC's TC→PG/queue maps), and which priorities are lossless.
 */
import { PFC_PRIORITIES, type DscpMap, type Frame } from '@rocelab/wire';

export class Classifier {
  private readonly lossless: boolean[];

  constructor(
    private readonly dscpMap: DscpMap,
    losslessPriorities: readonly number[],
  ) {
    this.lossless = Array.from({ length: PFC_PRIORITIES }, (_, p) => losslessPriorities.includes(p));
  }

  priority(frame: Frame): number {
    return this.dscpMap[frame.dscp]!;
  }

  isLossless(priority: number): boolean {
    return this.lossless[priority]!;
  }

  /** The lossless flags of the 8 priorities (the MMU's view). */
  losslessFlags(): readonly boolean[] {
    return this.lossless;
  }
}
