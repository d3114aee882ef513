/**
 * Plain counters kept by the engine for each node and port. Telemetry reads them at scrape
 * time; the models never touch prom-client (STYLE §10). Frame counts cover every frame,
 * control frames included: the conservation audit is over all of them.
 */
import { PFC_PRIORITIES } from '@rocelab/wire';
import { DROP_REASONS, dropReasonIndex, type DropReason } from './drop-reason.js';

export class PortStats {
  txFrames = 0;
  txBytes = 0;
  rxFrames = 0;
  rxBytes = 0;
  readonly pfcTx: number[] = new Array<number>(PFC_PRIORITIES).fill(0);
  readonly pfcRx: number[] = new Array<number>(PFC_PRIORITIES).fill(0);
  /** Drops attributed to this port, indexed like DROP_REASONS. */
  readonly dropped: number[] = new Array<number>(DROP_REASONS.length).fill(0);
  /** Virtual times of the first and last PAUSE (a PFC frame with non-zero quanta) this port sent and received; -1 = none. */
  firstPauseTxPs = -1;
  lastPauseTxPs = -1;
  firstPauseRxPs = -1;
  lastPauseRxPs = -1;

  /** Count a PFC frame this port sent (`tx`) or received: per priority, and its time if it pauses. */
  countPfc(tx: boolean, nowPs: number, frame: { pfcEnable: number; pfcQuanta: readonly number[] }): void {
    countPerPriority(tx ? this.pfcTx : this.pfcRx, frame.pfcEnable);
    if (!isPause(frame)) return;
    if (tx) {
      if (this.firstPauseTxPs < 0) this.firstPauseTxPs = nowPs;
      this.lastPauseTxPs = nowPs;
    } else {
      if (this.firstPauseRxPs < 0) this.firstPauseRxPs = nowPs;
      this.lastPauseRxPs = nowPs;
    }
  }
}

/** PFC counters count a frame once for each priority whose enable bit it sets (SAI PFC_n_*_PKTS). */
export function countPerPriority(counters: number[], enable: number): void {
  for (let p = 0; p < PFC_PRIORITIES; p++) if ((enable & (1 << p)) !== 0) counters[p]!++;
}

/** A PFC frame that pauses some priority (a resume has zero quanta for every enabled one). */
export function isPause(frame: { pfcEnable: number; pfcQuanta: readonly number[] }): boolean {
  for (let p = 0; p < PFC_PRIORITIES; p++) if ((frame.pfcEnable & (1 << p)) !== 0 && (frame.pfcQuanta[p] ?? 0) > 0) return true;
  return false;
}

export class NodeStats {
  /** Frames this node originated (sent into the fabric, or created as flood copies). */
  sent = 0;
  /** Frames consumed here as their destination (data at its host, PFC at the peer port). */
  delivered = 0;
  readonly dropped: number[] = new Array<number>(DROP_REASONS.length).fill(0);
  causalityViolations = 0;
  readonly ports: PortStats[];

  constructor(portCount: number) {
    this.ports = Array.from({ length: portCount }, () => new PortStats());
  }

  countDrop(reason: DropReason, port: number): void {
    this.countDrops(reason, port, 1);
  }

  /** `frames` drops at once (frames lost in transit on a broken link, known only afterwards). */
  countDrops(reason: DropReason, port: number, frames: number): void {
    const i = dropReasonIndex(reason);
    this.dropped[i]! += frames;
    if (port >= 0) this.ports[port]!.dropped[i]! += frames;
  }

  droppedTotal(): number {
    return this.dropped.reduce((sum, n) => sum + n, 0);
  }

  droppedByReason(): Record<DropReason, number> {
    return Object.fromEntries(DROP_REASONS.map((reason, i) => [reason, this.dropped[i]!])) as Record<DropReason, number>;
  }
}
