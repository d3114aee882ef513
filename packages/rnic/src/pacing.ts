/**
 * Pacing a sender at its rate (its DCQCN rate, capped by a flow's `rate`): after a packet, the
 * next may start once that packet would have left at the rate (HPCC `UpdateNextAvail`). A rate
 * increase re-measures a running gap at once, as a hardware rate limiter applies a new rate;
 * `hpcc-ns3` keeps the gap fixed at send time (`repace: false`). The NIC's QPs and the host's TCP
 * connections are paced alike.
 */
import { frameBytes, serializedBytes, type ByteAccounting, type Frame } from '@rocelab/wire';
import { wireTimePs, type WireModel } from '@rocelab/sim';
import type { Paced } from './nic-types.js';

export class Pacer {
  constructor(
    readonly lineRateBps: number,
    private readonly wire: WireModel,
    /** Re-measure a running gap when the rate increases (false: `hpcc-ns3`). */
    private readonly repaceOnIncrease: boolean,
  ) {}

  private get accounting(): ByteAccounting {
    return this.wire.accounting;
  }

  /** `frame` leaves `q` now: the next packet may start once this one would have left at the rate. */
  pace(nowPs: number, q: Paced, frame: Frame): void {
    const rate = Math.min(q.rp?.rateBps(nowPs) ?? this.lineRateBps, q.end.rateCapBps ?? Infinity);
    q.lastSendPs = nowPs;
    q.lastWireBytes = serializedBytes(frame, this.accounting);
    if (rate < this.lineRateBps) {
      q.nextSendPs = nowPs + wireTimePs(q.lastWireBytes, rate, this.wire);
      q.repaceAtPs = this.repaceOnIncrease && q.rp !== null ? (q.rp.nextRateChangePs() ?? Infinity) : Infinity;
    }
    q.rp?.onBytesSent(nowPs, frameBytes(frame, this.accounting));
  }

  /**
   * The congestion control changed the rate on an ACK (HPCC, TIMELY, DCTCP): the gap after the
   * last packet becomes the one at the new rate, as HPCC rdma-hw.cc `ChangeRate` moves
   * `m_nextAvail` by the difference of the two transmission times (`m_nextAvail` being the last
   * packet's start plus its time at the old rate).
   */
  rateChanged(q: Paced, newRateBps: number): void {
    if (q.lastWireBytes === 0) return;
    const rate = Math.min(newRateBps, q.end.rateCapBps ?? Infinity);
    q.nextSendPs = q.lastSendPs + (rate >= this.lineRateBps ? 0 : wireTimePs(q.lastWireBytes, rate, this.wire));
  }

  /** A sender waiting out its gap: the gap since its last packet, at the current rate. True = it may send now. */
  repace(nowPs: number, q: Paced): boolean {
    if (q.rp === null || nowPs < q.repaceAtPs) return false;
    const rate = Math.min(q.rp.rateBps(nowPs), q.end.rateCapBps ?? Infinity);
    const earliest = rate >= this.lineRateBps ? q.lastSendPs : q.lastSendPs + wireTimePs(q.lastWireBytes, rate, this.wire);
    if (earliest < q.nextSendPs) q.nextSendPs = Math.max(earliest, nowPs);
    q.repaceAtPs = q.rp.nextRateChangePs() ?? Infinity;
    return q.nextSendPs <= nowPs;
  }
}
