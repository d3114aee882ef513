/**
 * Stuck and slow egress queues of a switch (issue 24, the `egressStuck` and `egressSlow` faults):
 * which queues of each port may not start a frame now. The switch ORs this mask into the PFC mask
 * its transmitter passes, so a stuck or slow queue is skipped exactly as a paused one is: its
 * frames stay queued (and counted: conservation holds), its ingress groups fill and pause
 * upstream, and the other queues of the port go on.
 *
 * - **Stuck** (a hung egress, a stuck queue): the queues never start while the fault holds. MAC
 *   control (PFC) still goes out: it does not pass the scheduler.
 * - **Slow** (a degraded egress pipeline): after a frame of the slow queues starts, the next may
 *   start only when that frame's wire bytes would have left at the slow rate. One slow rate per
 *   port: a later `egressSlow` on the port replaces an earlier one.
 *
 * Pure: no timers of its own; `nextStartPs` tells the switch when to kick a port it held.
 */
import { serializationPs } from '@rocelab/sim';
import { PFC_PRIORITIES, serializedBytes, type ByteAccounting, type Frame } from '@rocelab/wire';

const ALL_QUEUES = (1 << PFC_PRIORITIES) - 1;

export class EgressFaults {
  /** Per port: bit q set = queue q is stuck. */
  private readonly stuck: Uint8Array;
  /** Per (port, queue): when it got stuck, and the time it was stuck before. */
  private readonly stuckSince: Float64Array;
  private readonly stuckTotal: Float64Array;
  /** Per port: the slow queues, their rate (0: none) and when the next of their frames may start. */
  private readonly slowMask: Uint8Array;
  private readonly slowBps: Float64Array;
  private readonly slowNextPs: Float64Array;

  constructor(
    ports: number,
    private readonly accounting: ByteAccounting,
  ) {
    this.stuck = new Uint8Array(ports);
    this.stuckSince = new Float64Array(ports * PFC_PRIORITIES);
    this.stuckTotal = new Float64Array(ports * PFC_PRIORITIES);
    this.slowMask = new Uint8Array(ports);
    this.slowBps = new Float64Array(ports);
    this.slowNextPs = new Float64Array(ports);
  }

  /** The queues of `port` that may not start a frame at `nowPs`. */
  heldMask(port: number, nowPs: number): number {
    const stuck = this.stuck[port]!;
    return this.slowBps[port] !== 0 && nowPs < this.slowNextPs[port]! ? stuck | this.slowMask[port]! : stuck;
  }

  /** A frame of `queue` started on `port`: a slow queue's next frame waits for this one at the slow rate. */
  sent(port: number, queue: number, nowPs: number, frame: Frame): void {
    const bps = this.slowBps[port]!;
    if (bps === 0 || ((this.slowMask[port]! >> queue) & 1) === 0) return;
    this.slowNextPs[port] = nowPs + serializationPs(serializedBytes(frame, this.accounting), bps);
  }

  /**
   * When a held port can start again by itself: the end of its slow gap, if a slow queue that is
   * not stuck holds frames (`nonEmpty`, a mask of queues); null when only a fault's end can.
   */
  nextStartPs(port: number, nowPs: number, nonEmpty: number): number | null {
    if (this.slowBps[port] === 0 || nowPs >= this.slowNextPs[port]!) return null;
    return (nonEmpty & this.slowMask[port]! & ~this.stuck[port]!) === 0 ? null : this.slowNextPs[port]!;
  }

  /** Queue `priority` of `port` (null: all of them) stops, or runs again. */
  setStuck(nowPs: number, port: number, priority: number | null, on: boolean): void {
    const mask = priority === null ? ALL_QUEUES : 1 << priority;
    for (let q = 0; q < PFC_PRIORITIES; q++) {
      if (((mask >> q) & 1) === 0 || (((this.stuck[port]! >> q) & 1) === 1) === on) continue;
      const i = port * PFC_PRIORITIES + q;
      if (on) this.stuckSince[i] = nowPs;
      else this.stuckTotal[i] = this.stuckTotal[i]! + (nowPs - this.stuckSince[i]!);
    }
    this.stuck[port] = on ? this.stuck[port]! | mask : this.stuck[port]! & ~mask;
  }

  /** Queue `priority` of `port` (null: all) drains at `bps`; null: at the link's rate again. */
  setSlow(nowPs: number, port: number, priority: number | null, bps: number | null): void {
    if (bps !== null && !(bps > 0)) throw new RangeError(`egress: a slow rate must be above 0 bit/s, got ${bps}`);
    this.slowMask[port] = bps === null ? 0 : priority === null ? ALL_QUEUES : 1 << priority;
    this.slowBps[port] = bps ?? 0;
    this.slowNextPs[port] = nowPs;
  }

  /** Whether queue `q` of `port` is stuck now. */
  stuckNow(port: number, q: number): boolean {
    return ((this.stuck[port]! >> q) & 1) === 1;
  }

  /** Virtual time queue `q` of `port` has been stuck, up to `nowPs`. */
  stuckPs(port: number, q: number, nowPs: number): number {
    const i = port * PFC_PRIORITIES + q;
    return this.stuckTotal[i]! + (this.stuckNow(port, q) ? nowPs - this.stuckSince[i]! : 0);
  }

  /** The rate queue `q` of `port` is held to, bit/s; 0 when it is not slow. */
  slowRateBps(port: number, q: number): number {
    return ((this.slowMask[port]! >> q) & 1) === 1 ? this.slowBps[port]! : 0;
  }
}
