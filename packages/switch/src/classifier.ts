/**
 * Classification (DESIGN §5): DSCP → priority (one queue and one ingress priority group per
 * priority, identity as in SONiC's TC→PG/queue maps), and which priorities are lossless.
 *
 * A `dscpMisconfig` fault (issue 24) rewrites the map of one ingress port or of all: a DSCP (or
 * every DSCP) classifies to another priority there, e.g. RoCE's 26 to the lossy queue 0, as a
 * mistyped `DSCP_TO_TC_MAP` or a port left in `trust pcp` would. The map is kept per port only
 * once such a fault arrives, so a switch without one classifies exactly as before.
 */
import { PFC_PRIORITIES, type DscpMap, type Frame } from '@rocelab/wire';

const DSCP_VALUES = 64;

export class Classifier {
  private readonly lossless: boolean[];
  /** Per ingress port, the 64 DSCPs' priorities, once a fault changed any port's map; null: `dscpMap` everywhere. */
  private perPort: Uint8Array[] | null = null;
  /** DSCP values classified otherwise than the settings say, over all ports (a metric). */
  private remapped = 0;

  constructor(
    private readonly dscpMap: DscpMap,
    losslessPriorities: readonly number[],
    private readonly ports = 0,
  ) {
    this.lossless = Array.from({ length: PFC_PRIORITIES }, (_, p) => losslessPriorities.includes(p));
  }

  /** A frame's priority by the settings' map (what the switch's own re-tags and credit lanes use). */
  priority(frame: Frame): number {
    return this.dscpMap[frame.dscp]!;
  }

  /** A frame's priority as it arrives on `inPort`: the port's map, which a fault may have changed. */
  priorityAt(inPort: number, frame: Frame): number {
    return this.perPort === null ? this.dscpMap[frame.dscp]! : this.perPort[inPort]![frame.dscp]!;
  }

  /**
   * `dscp` (null: every DSCP) arriving on `port` (null: every port) classifies to `priority`, or
   * (`priority` null) back to what the settings say.
   */
  remap(port: number | null, dscp: number | null, priority: number | null): void {
    this.perPort ??= Array.from({ length: this.ports }, () => Uint8Array.from({ length: DSCP_VALUES }, (_, d) => this.dscpMap[d]!));
    for (let p = 0; p < this.ports; p++) {
      if (port !== null && p !== port) continue;
      for (let d = 0; d < DSCP_VALUES; d++) if (dscp === null || d === dscp) this.perPort[p]![d] = priority ?? this.dscpMap[d]!;
    }
    this.remapped = 0;
    for (const map of this.perPort) for (let d = 0; d < DSCP_VALUES; d++) if (map[d] !== this.dscpMap[d]) this.remapped++;
  }

  /** (port, DSCP) pairs classified otherwise than the settings say. */
  get remappedEntries(): number {
    return this.remapped;
  }

  isLossless(priority: number): boolean {
    return this.lossless[priority]!;
  }

  /** The lossless flags of the 8 priorities (the MMU's view). */
  losslessFlags(): readonly boolean[] {
    return this.lossless;
  }
}
