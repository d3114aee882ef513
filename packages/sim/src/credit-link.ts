/**
 * One port of a link in credit flow control (`flowControl: credit`, issue 14): the credit state
 * machines of `credit-flow.ts` for each of the 8 priorities, used as InfiniBand virtual lanes —
 * a sender per lane for what this port transmits, a receiver per lane for what it receives.
 *
 * Sending: a lane may start a frame only while it holds credit for the largest frame the link
 * carries; the transmitter masks the other lanes exactly as it masks paused priorities, so the
 * schedulers above it need no change. Masking at the largest frame (not at the head frame's
 * size, which the transmitter cannot see before it pulls) can leave up to one largest frame of
 * credit unused on a lane; it never lets a frame start without credit.
 *
 * Receiving: a frame takes blocks of its lane's buffer when it arrives and gives them back when it
 * leaves the node (forwarded out of a port, delivered, or dropped). Each give-back asks for a
 * credit update to the peer — a link-control frame that carries every lane's FCCL and, like a
 * PFC frame, goes out ahead of data. Updates coalesce: while one waits for the wire, later
 * give-backs refresh its FCCLs instead of queueing another. IBA vol. 1 §7.9.4.2 also sends one at
 * least every 65,536 symbol times, to repair lost updates; rocelab's links lose link-control
 * frames only while down, so that timer is not modelled.
 */
import { FrameKind, PFC_PRIORITIES, creditFrame, type Frame } from '@rocelab/wire';
import { CreditReceiver, CreditSender, creditBlocks } from './credit-flow.js';

export interface CreditLinkConfig {
  /** Each lane's receive buffer, in 64-byte blocks: what this port grants its peer, and what the peer grants it. */
  bufferBlocks: number;
  /** The largest frame the link carries, bytes (a lane below its credit waits). */
  maxFrameBytes: number;
}

export class CreditLink {
  private readonly senders: CreditSender[];
  private readonly receivers: CreditReceiver[];
  private readonly maxFrameBlocks: number;
  /** Bit per lane: below the credit of a largest frame. */
  private blocked = 0;
  private readonly waitSincePs = new Float64Array(PFC_PRIORITIES);
  private readonly waitTotalPs = new Float64Array(PFC_PRIORITIES);
  /** The update waiting for the wire, if any: later give-backs refresh it. */
  private pending: Frame | null = null;
  updatesSent = 0;
  updatesReceived = 0;

  constructor(readonly config: CreditLinkConfig) {
    this.maxFrameBlocks = creditBlocks(config.maxFrameBytes);
    if (this.maxFrameBlocks > config.bufferBlocks) {
      throw new RangeError(`credit link: a lane of ${config.bufferBlocks} blocks cannot take a ${config.maxFrameBytes} B frame`);
    }
    this.senders = Array.from({ length: PFC_PRIORITIES }, () => new CreditSender(config.bufferBlocks));
    this.receivers = Array.from({ length: PFC_PRIORITIES }, () => new CreditReceiver(config.bufferBlocks));
  }

  /** Bit mask of the lanes that may not start a frame now. */
  get blockedMask(): number {
    return this.blocked;
  }

  /** A frame of `bytes` starts on `lane`: its credit is spent (a frame without credit is a bug above). */
  onSend(nowPs: number, lane: number, bytes: number): void {
    const sender = this.senders[lane]!;
    sender.send(bytes);
    if (sender.availableBlocks < this.maxFrameBlocks && (this.blocked & (1 << lane)) === 0) {
      this.blocked |= 1 << lane;
      this.waitSincePs[lane] = nowPs;
    }
  }

  /** A credit update arrived from the peer. Returns true when a lane got its credit back (kick the transmitter). */
  onUpdate(nowPs: number, frame: Frame): boolean {
    this.updatesReceived++;
    let freed = false;
    for (let lane = 0; lane < PFC_PRIORITIES; lane++) {
      if ((frame.pfcEnable & (1 << lane)) === 0) continue;
      const sender = this.senders[lane]!;
      sender.onUpdate(frame.pfcQuanta[lane]!);
      if ((this.blocked & (1 << lane)) !== 0 && sender.availableBlocks >= this.maxFrameBlocks) {
        this.blocked &= ~(1 << lane);
        this.waitTotalPs[lane] = this.waitTotalPs[lane]! + (nowPs - this.waitSincePs[lane]!);
        freed = true;
      }
    }
    return freed;
  }

  /** A frame of `bytes` arrived on `lane`. Throws if it overflows the lane: the peer sent without credit. */
  onArrive(lane: number, bytes: number): void {
    this.receivers[lane]!.onPacket(bytes);
  }

  /**
   * A frame that arrived on `lane` left the node: its blocks are free. Returns a new update frame
   * to send (the caller sends it as link control and counts it), or null when one is already
   * waiting for the wire (refreshed here).
   */
  onLeave(lane: number, bytes: number): Frame | null {
    this.receivers[lane]!.onDrain(bytes);
    if (this.pending !== null) {
      this.pending.pfcQuanta[lane] = this.receivers[lane]!.fccl();
      return null;
    }
    this.pending = creditFrame(0xff, this.receivers.map((r) => r.fccl()));
    return this.pending;
  }

  /** The transmitter started a link-control frame: if it is the waiting update, later give-backs need a new one. */
  onControlSent(frame: Frame): void {
    if (frame.kind !== FrameKind.credit) return;
    if (frame === this.pending) this.pending = null;
    this.updatesSent++;
  }

  /** Virtual time `lane` has waited for credit, up to `nowPs`. */
  waitPs(lane: number, nowPs: number): number {
    const open = (this.blocked & (1 << lane)) !== 0 ? nowPs - this.waitSincePs[lane]! : 0;
    return this.waitTotalPs[lane]! + open;
  }

  /** Blocks `lane`'s receive buffer holds now, and the most it ever held. */
  heldBlocks(lane: number): number {
    return this.receivers[lane]!.heldBlocks;
  }

  peakBlocks(lane: number): number {
    return this.receivers[lane]!.peakBlocks;
  }
}

/** IBA's 12-bit credit counters let a lane grant at most half their range (C7-61): 2,048 blocks, 128 KiB. */
export const MAX_CREDIT_BUFFER_BLOCKS = 2048;

/**
 * A lane's buffer when the topology gives none (`creditBuffer`), in 64-byte blocks: enough for
 * the lane to run at line rate on its own. A freed block reaches the sender as credit after one
 * largest frame ahead of the update on the wire and the latency, and the frame it lets start
 * arrives a latency and a serialization later, so the loop holds rate × 2 × latency plus two
 * largest frames (the bandwidth-delay argument of IBA vol. 1 §7.9.4 and of Mellanox's VL buffer
 * sizing guidance: the credit loop must cover the round trip or the link idles). Capped at the
 * protocol's 2,048 blocks: a longer or faster link is then credit-limited, as on real IB.
 */
export function defaultCreditBufferBlocks(rateBps: number, latencyPs: number, maxFrameBytes: number): number {
  const loopBytes = Math.ceil((rateBps * 2 * latencyPs) / 8e12) + 2 * maxFrameBytes;
  return Math.min(MAX_CREDIT_BUFFER_BLOCKS, creditBlocks(loopBytes));
}
