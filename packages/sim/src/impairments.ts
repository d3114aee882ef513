/**
 * Impairments of one link direction (DESIGN §5): down, Bernoulli loss, the deterministic
 * IP-ID rule of Guo et al. (SIGCOMM 2016: drop every packet whose IP ID's low byte is 0xFF),
 * and corruption, which the receiver discovers as a bad FCS; and deterministic packet events in
 * the style of Lumina (Yu et al., SIGCOMM 2023): drop, ECN-mark or corrupt the n-th data packet
 * of a QP that leaves on this direction (retransmissions count: they are packets on the wire),
 * so a transport behaviour can be pinned exactly.
 *
 * Loss and corruption apply to frames with an IP header (data, ACK/NAK, CNP); PFC frames are
 * hop-by-hop MAC control and are lost only when the link is down. Each probability draws from
 * the direction's own stream only when it is non-zero, so enabling an impairment on one link
 * never shifts the draws seen anywhere else.
 */
import { FrameKind, frameBytes, type Frame } from '@rocelab/wire';
import type { Rng } from './rng.js';

export type PacketAction = 'drop' | 'ecn' | 'corrupt';

/** The `index`-th (from 1) data packet of QP `qpn` on this direction gets `action`. */
export interface PacketEvent {
  qpn: number;
  index: number;
  action: PacketAction;
}

export interface ImpairmentConfig {
  down: boolean;
  loss: number;
  dropIpIdLowByte: number | null;
  corrupt: number;
  packetEvents: readonly PacketEvent[];
  /**
   * The rate the direction trained down to (`linkRate` fault, issue 24), in bit/s, below the
   * configured one; absent: the configured rate. Absent by default, so pods and hashes without
   * the fault are unchanged.
   */
  rateBps?: number;
  /**
   * The largest IP packet the direction carries (`mtuMismatch` fault, issue 24: a port whose MTU is
   * below its peer's), in bytes; larger frames are dropped as `mtu_exceeded`. Absent: no limit
   * beyond the link's own MTU.
   */
  ipMtuBytes?: number;
}

export const NO_IMPAIRMENTS: Readonly<ImpairmentConfig> = Object.freeze({ down: false, loss: 0, dropIpIdLowByte: null, corrupt: 0, packetEvents: Object.freeze([]) });

/** What happens to a frame that starts serializing: numbers, not strings, on the hot path. */
export const Fate = { deliver: 0, linkDown: 1, loss: 2, corrupt: 3, mtuExceeded: 4 } as const;
export type Fate = (typeof Fate)[keyof typeof Fate];

export class Impairment {
  private current: ImpairmentConfig;
  /** Data packets seen per QP (only while packet events are set) and the events by `qpn:index`. */
  private readonly seen = new Map<number, number>();
  private events = new Map<string, PacketAction>();
  /** Watches packet events as they hit a frame (tracing): the frame, its index on its QP, the action. Never changes the fate. */
  onHit: ((frame: Frame, index: number, action: PacketAction) => void) | null = null;

  constructor(
    config: ImpairmentConfig,
    private readonly rng: Rng,
  ) {
    this.current = checkImpairments(config);
    this.set(config);
  }

  get down(): boolean {
    return this.current.down;
  }

  get config(): ImpairmentConfig {
    return this.current;
  }

  set(config: ImpairmentConfig): void {
    this.current = checkImpairments(config);
    this.events = new Map(config.packetEvents.map((e) => [`${e.qpn}:${e.index}`, e.action]));
  }

  setDown(down: boolean): void {
    this.current = { ...this.current, down };
  }

  fate(frame: Frame): Fate {
    const c = this.current;
    if (c.down) return Fate.linkDown;
    if (frame.kind === FrameKind.pfc || frame.kind === FrameKind.credit) return Fate.deliver;
    if (c.ipMtuBytes !== undefined && ipPacketBytes(frame) > c.ipMtuBytes) return Fate.mtuExceeded;
    if (this.events.size > 0 && frame.kind === FrameKind.data) {
      const n = (this.seen.get(frame.destQp) ?? 0) + 1;
      this.seen.set(frame.destQp, n);
      const action = this.events.get(`${frame.destQp}:${n}`);
      if (action !== undefined && this.onHit !== null) this.onHit(frame, n, action);
      if (action === 'drop') return Fate.loss;
      if (action === 'corrupt') return Fate.corrupt;
      if (action === 'ecn') frame.ecn = 3; // CE, as a marking switch would
    }
    if (c.dropIpIdLowByte !== null && (frame.ipId & 0xff) === c.dropIpIdLowByte) return Fate.loss;
    if (c.loss > 0 && this.rng.bernoulli(c.loss)) return Fate.loss;
    if (c.corrupt > 0 && this.rng.bernoulli(c.corrupt)) return Fate.corrupt;
    return Fate.deliver;
  }
}

/** Ethernet header (14 B) and FCS (4 B): what a frame carries besides its IP packet. */
const ETHERNET_OVERHEAD_BYTES = 18;

/** The IP packet's length (total length field) of a frame, whatever the pod's byte accounting. */
export function ipPacketBytes(frame: Frame): number {
  return frameBytes(frame, 'rocelab') - ETHERNET_OVERHEAD_BYTES;
}

function checkImpairments(c: ImpairmentConfig): ImpairmentConfig {
  const probability = (p: number) => Number.isFinite(p) && p >= 0 && p <= 1;
  if (!probability(c.loss)) throw new RangeError(`impairment loss must be in [0, 1], got ${c.loss}`);
  if (!probability(c.corrupt)) throw new RangeError(`impairment corrupt must be in [0, 1], got ${c.corrupt}`);
  if (c.dropIpIdLowByte !== null && !(Number.isInteger(c.dropIpIdLowByte) && c.dropIpIdLowByte >= 0 && c.dropIpIdLowByte <= 255)) {
    throw new RangeError(`dropIpIdLowByte must be 0..255 or null, got ${c.dropIpIdLowByte}`);
  }
  if (c.rateBps !== undefined && !(Number.isSafeInteger(c.rateBps) && c.rateBps > 0)) throw new RangeError(`impairment rateBps must be a positive integer bit/s, got ${c.rateBps}`);
  if (c.ipMtuBytes !== undefined && !(Number.isSafeInteger(c.ipMtuBytes) && c.ipMtuBytes > 0)) throw new RangeError(`impairment ipMtuBytes must be a positive integer, got ${c.ipMtuBytes}`);
  for (const e of c.packetEvents) {
    if (!(Number.isSafeInteger(e.qpn) && e.qpn >= 0 && Number.isSafeInteger(e.index) && e.index >= 1)) throw new RangeError(`packet event must name a QP ≥ 0 and a packet index ≥ 1, got ${JSON.stringify(e)}`);
  }
  return { ...c };
}
