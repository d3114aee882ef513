/**
 * The transmit side of one link direction (DESIGN §5).
 *
 * One frame serializes at a time: started at t, done at t + bytes·8/rate, arrives `latency`
 * later. The transmitter pulls its next frame from the port's scheduler
 * (`nextFrame(nowPs, pausedMask)`), so priority queues, DWRR and per-QP pacing live above it.
 * PFC (802.1Qbb) received on this port gates priorities: a paused priority cannot *start* a
 * frame until the pause (quanta × 512 bit times at this rate) expires or a zero-quanta resume
 * arrives; a frame already on the wire finishes. PFC frames are MAC control: they go out as
 * soon as the frame in progress finishes, ahead of queued data, and are never paused.
 */
import {
  FrameKind,
  PFC_PRIORITIES,
  PFC_QUANTUM_BITS,
  frameBytes,
  maxFrameBytes,
  minSerializedBytes,
  serializedBytes,
  type ByteAccounting,
  type Frame,
} from '@rocelab/wire';
import { CreditLink } from './credit-link.js';
import type { DropReason } from './drop-reason.js';
import { TxEvent } from './event.js';
import { Fate, Impairment, type ImpairmentConfig, type PacketAction } from './impairments.js';
import type { Rng } from './rng.js';
import type { PortStats } from './stats.js';
import { serializationPs } from './time.js';
import { TraceRecord, type TraceHash } from './trace-hash.js';

export interface LinkDirectionConfig {
  rateBps: number;
  /** From the last bit leaving to the last bit arriving: propagation plus the sender's pipeline latency. */
  latencyPs: number;
  mtu: number;
  impairments: ImpairmentConfig;
  /**
   * Credit flow control instead of PFC (`flowControl: credit`, issue 14): each lane's receive
   * buffer in 64-byte blocks, the same at both ends of the link. Absent: PFC.
   */
  credit?: { bufferBlocks: number };
}

/** How the pod counts bytes and time on the wire (the `hpcc-ns3` profile differs). */
export interface WireModel {
  accounting: ByteAccounting;
  /** Truncate each serialization time to whole nanoseconds (hpcc-ns3 parity). */
  truncateToNs: boolean;
  /** A pause lasts until an explicit resume, whatever its quanta (hpcc-ns3 parity). */
  pauseUntilResume: boolean;
}

export const DEFAULT_WIRE_MODEL: Readonly<WireModel> = { accounting: 'rocelab', truncateToNs: false, pauseUntilResume: false };

/** The port's scheduler, seen from the link. `pausedMask` bit p set = priority p may not start. */
export interface FrameSource {
  nextFrame(nowPs: number, pausedMask: number): Frame | null;
  /**
   * True when nothing is queued for the port (any priority), so a pull would return null until the
   * model kicks it again. Optional: a source that cannot tell cheaply (or may produce frames on a
   * pull without a kick) leaves it out, and every serialization end is an event.
   */
  empty?(): boolean;
}

export interface TransmitterDeps {
  /** Schedule a transmitter event (`TxEvent`) for this port at `timePs`. */
  schedule(timePs: number, kind: number): void;
  /**
   * A deferred serialization end (see `Transmitter.transmit`): `reserve` takes the event's place in
   * its node's order now (its sequence number) without scheduling it; `scheduleReserved` schedules
   * it later with that number; `passed` tells whether the engine is already past it in its order.
   * Absent: every serialization end is scheduled at once.
   */
  deferral?: {
    reserve(): number;
    scheduleReserved(timePs: number, kind: number, seq: number): void;
    passed(timePs: number, seq: number): boolean;
  };
  source: FrameSource;
  /** The frame is on the wire: it reaches the peer at `arrivalPs` (bad FCS if `fcsBad`). */
  emit(frame: Frame, arrivalPs: number, fcsBad: boolean): void;
  drop(frame: Frame, reason: DropReason): void;
  stats: PortStats;
  rng: Rng;
  /** The lane (priority) a frame of this node's scheduler travels on; needed only on a credit link. */
  laneOf?: (frame: Frame) => number;
  /** The node's trace hash and this port's index there: frames starting and pause changes are folded (`trace-hash.ts`). */
  trace?: { hash: TraceHash; port: number };
}

/**
 * `pulling`: the transmitter is asking the port's scheduler for its next frame. The scheduler
 * may call back into this port while it picks — a switch's dequeue that brings the packet's
 * ingress group below XON sends a resume, and that ingress may be this very port (a flooded copy
 * routed back out of the port it came in) — so a kick during the pull must not start a frame.
 */
export type TransmitterState = 'idle' | 'pulling' | 'busy';

export class Transmitter {
  private state: TransmitterState = 'idle';
  private readonly impairment: Impairment;
  private readonly control: Frame[] = [];
  private readonly pausedUntilPs = new Float64Array(PFC_PRIORITIES);
  /** The latest of `pausedUntilPs`: a frame starting at or after it meets no pause (checked per frame). */
  private pauseHorizonPs = 0;
  private readonly pausedSincePs = new Float64Array(PFC_PRIORITIES);
  private readonly pausedTotalPs = new Float64Array(PFC_PRIORITIES);
  /** Priorities whose received pauses are ignored (PFC watchdog mitigation), as a bit mask. */
  private ignoredMask = 0;
  /** Per priority: received pauses that found it not paused (SAI `PFC_n_ON2OFF_RX_PKTS`). */
  readonly pauseOnTransitions: number[] = new Array<number>(PFC_PRIORITIES).fill(0);
  /** An observer of every frame as it starts on the wire (tracing, capture); never changes what happens. */
  tap: ((nowPs: number, frame: Frame) => void) | null = null;
  /** Watches the packet events that hit frames leaving here (tracing); set by the engine's observer. */
  set packetEventTap(tap: ((nowPs: number, frame: Frame, index: number, action: PacketAction) => void) | null) {
    this.impairment.onHit = tap === null ? null : (frame, index, action) => tap(this.startedPs, frame, index, action);
  }
  /** When the frame now starting began (what `packetEventTap` reports). */
  private startedPs = 0;
  /** Time of the pending pause-expiry wake-up, -1 if none. */
  private wakeAtPs = -1;
  /** 512 bit times at the rate the link runs at (the configured one, or what a `linkRate` fault trained it down to). */
  private quantumPs: number;
  /** The rate frames serialize at: the configured one, or the impairments' `rateBps` (a link trained down). */
  private rateBps: number;
  /** Credit flow control on this link (`LinkDirectionConfig.credit`), or null (PFC). */
  readonly credit: CreditLink | null;
  /** Called as each frame from the scheduler starts on the wire (a credit link's receiver gives its blocks back); null when nothing listens. */
  onStart: ((frame: Frame) => void) | null = null;
  /** PFC frames the node tried to send on a credit link: none goes out (the link has no pauses). */
  pfcSuppressed = 0;
  private readonly trace: TraceHash | null;
  private readonly tracePort: number;
  /** A serialization end reserved but not scheduled (`transmit`): its time, -1 if none, and its sequence number. */
  private deferredDonePs = -1;
  private deferredDoneSeq = 0;

  constructor(
    readonly config: LinkDirectionConfig,
    private readonly wire: WireModel,
    private readonly deps: TransmitterDeps,
  ) {
    if (!(Number.isSafeInteger(config.rateBps) && config.rateBps > 0)) throw new RangeError(`link rate must be a positive integer bit/s, got ${config.rateBps}`);
    if (!(Number.isSafeInteger(config.latencyPs) && config.latencyPs >= 0)) throw new RangeError(`link latency must be a non-negative integer ps, got ${config.latencyPs}`);
    this.impairment = new Impairment(config.impairments, deps.rng);
    this.rateBps = config.impairments.rateBps ?? config.rateBps;
    this.quantumPs = serializationPs(PFC_QUANTUM_BITS / 8, this.rateBps);
    this.credit = config.credit === undefined ? null : new CreditLink({ bufferBlocks: config.credit.bufferBlocks, maxFrameBytes: maxFrameBytes(config.mtu) });
    if (this.credit !== null && deps.laneOf === undefined) throw new Error('transmitter: a credit link needs laneOf');
    this.trace = deps.trace?.hash ?? null;
    this.tracePort = deps.trace?.port ?? -1;
  }

  get busy(): boolean {
    this.settle();
    return this.state === 'busy';
  }

  get down(): boolean {
    return this.impairment.down;
  }

  /** PFC frames waiting for the serializer. */
  get controlBacklog(): number {
    return this.control.length;
  }

  /** Serialization time of a frame on this link, in ps. */
  serializationPs(frame: Frame): number {
    return wireTimePs(serializedBytes(frame, this.wire.accounting), this.rateBps, this.wire);
  }

  /** Bit mask of the priorities that may not start a frame at `nowPs`. */
  pausedMask(nowPs: number): number {
    return this.receivedPauseMask(nowPs) & ~this.ignoredMask;
  }

  /** Bit mask of the priorities held by received pauses, whether or not they are ignored. */
  receivedPauseMask(nowPs: number): number {
    if (nowPs >= this.pauseHorizonPs) return 0;
    let mask = 0;
    for (let p = 0; p < PFC_PRIORITIES; p++) if (this.pausedUntilPs[p]! > nowPs) mask |= 1 << p;
    return mask;
  }

  /** Ignore (or honour again) received pauses of a priority: the PFC watchdog's mitigation. */
  ignorePauses(nowPs: number, priority: number, ignore: boolean): void {
    this.ignoredMask = ignore ? this.ignoredMask | (1 << priority) : this.ignoredMask & ~(1 << priority);
    this.kick(nowPs);
  }

  /** Virtual time priority `p` has been held by received pauses, up to `nowPs`. */
  pausedPs(priority: number, nowPs: number): number {
    const open = Math.min(nowPs, this.pausedUntilPs[priority]!) - this.pausedSincePs[priority]!;
    return this.pausedTotalPs[priority]! + Math.max(0, open);
  }

  /** The scheduler has something new: start it if the wire is free. */
  kick(nowPs: number): void {
    this.settle();
    if (this.state === 'idle') this.startNext(nowPs);
  }

  /**
   * Queue a link-control frame (PFC, credit update) ahead of all data. Returns false, sending
   * nothing, for a PFC frame on a credit link: such a link has no pause frames.
   */
  sendControl(nowPs: number, frame: Frame): boolean {
    if (this.credit !== null && frame.kind === FrameKind.pfc) {
      this.pfcSuppressed++;
      return false;
    }
    this.control.push(frame);
    this.kick(nowPs);
    return true;
  }

  /** A credit update arrived from the peer: lanes that got their credit back may start again. */
  applyCredit(nowPs: number, frame: Frame): void {
    if (this.credit === null) return; // a credit update on a PFC link: nothing here grants by credit
    if (this.credit.onUpdate(nowPs, frame)) this.kick(nowPs);
  }

  onEvent(nowPs: number, kind: number): void {
    if (kind === TxEvent.done) {
      if (this.state !== 'busy') throw new Error('transmitter: serialization finished while idle');
      this.state = 'idle';
      this.startNext(nowPs);
    } else if (nowPs === this.wakeAtPs) {
      this.wakeAtPs = -1;
      this.kick(nowPs);
    }
  }

  /** Apply a received PFC frame: reload each enabled priority's pause timer. */
  applyPause(nowPs: number, frame: Frame): void {
    for (let p = 0; p < PFC_PRIORITIES; p++) {
      if ((frame.pfcEnable & (1 << p)) === 0) continue;
      const quanta = frame.pfcQuanta[p] ?? 0;
      const until = this.pausedUntilPs[p]!;
      if (quanta === 0) {
        if (until > nowPs) {
          this.pausedUntilPs[p] = nowPs;
          this.trace?.pause(nowPs, this.tracePort, p, false);
        }
        continue;
      }
      if (until <= nowPs) {
        this.pausedTotalPs[p] = this.pausedTotalPs[p]! + Math.max(0, until - this.pausedSincePs[p]!);
        this.pausedSincePs[p] = nowPs;
        this.pauseOnTransitions[p]!++;
        this.trace?.pause(nowPs, this.tracePort, p, true);
      }
      this.pausedUntilPs[p] = this.wire.pauseUntilResume ? Infinity : nowPs + quanta * this.quantumPs;
    }
    this.refreshPauseHorizon();
    this.kick(nowPs);
  }

  /** Link down: the direction carries nothing and forgets received pauses; up: it carries again. */
  setDown(nowPs: number, down: boolean): void {
    this.impairment.setDown(down);
    if (down) for (let p = 0; p < PFC_PRIORITIES; p++) if (this.pausedUntilPs[p]! > nowPs) this.pausedUntilPs[p] = nowPs;
    this.refreshPauseHorizon();
    this.kick(nowPs);
  }

  /**
   * The node behind this port died (`node-life.ts`): received pauses, ignored priorities and the
   * PFC control queue are forgotten and the serializer is free. A frame in progress is already
   * emitted (`transmit` hands it to the wire when its first bit goes out), so it stays in flight;
   * its pending `done` event belongs to the dead incarnation and the engine discards it.
   * Counters, impairments and the paused time integrated so far remain. Returns the discarded
   * control frames, which the caller counts as dropped.
   */
  reset(nowPs: number): number {
    const discarded = this.control.length;
    this.control.length = 0;
    for (let p = 0; p < PFC_PRIORITIES; p++) {
      this.pausedTotalPs[p] = this.pausedPs(p, nowPs);
      this.pausedSincePs[p] = nowPs;
      this.pausedUntilPs[p] = Math.min(this.pausedUntilPs[p]!, nowPs);
    }
    this.refreshPauseHorizon();
    this.ignoredMask = 0;
    this.wakeAtPs = -1;
    this.deferredDonePs = -1;
    this.state = 'idle';
    return discarded;
  }

  /** The direction's impairments now. */
  get impairments(): ImpairmentConfig {
    return this.impairment.config;
  }

  /** The rate frames serialize at now (below the configured one while a `linkRate` fault holds it). */
  get currentRateBps(): number {
    return this.rateBps;
  }

  /**
   * New impairments. A trained rate (`rateBps`) applies from the next frame: the one on the wire
   * finishes at the rate it started with. It may only lower the rate (the loader checks), so the
   * window's lookahead, computed at the configured rate, stays a lower bound.
   */
  setImpairments(config: ImpairmentConfig): void {
    this.impairment.set(config);
    const rate = config.rateBps ?? this.config.rateBps;
    if (rate > this.config.rateBps) throw new RangeError(`transmitter: a trained rate (${rate} bit/s) above the configured ${this.config.rateBps} bit/s`);
    if (rate !== this.rateBps) {
      this.rateBps = rate;
      this.quantumPs = serializationPs(PFC_QUANTUM_BITS / 8, rate);
    }
  }

  private startNext(nowPs: number): void {
    let frame = this.control.shift() ?? null;
    if (frame === null) {
      const pauses = this.pausedMask(nowPs);
      const mask = this.credit === null ? pauses : pauses | this.credit.blockedMask;
      this.state = 'pulling';
      frame = this.deps.source.nextFrame(nowPs, mask);
      this.state = 'idle';
      // A PFC frame queued during the pull goes out after the frame the pull returned (MAC
      // control waits for the frame in progress), or now if the pull returned none.
      if (frame !== null && this.credit !== null) this.credit.onSend(nowPs, this.deps.laneOf!(frame), frameBytes(frame, this.wire.accounting));
      frame ??= this.control.shift() ?? null;
      if (frame === null) {
        if (pauses !== 0) this.wakeAtEarliestExpiry(nowPs);
        return;
      }
    }
    this.transmit(nowPs, frame);
  }

  private transmit(nowPs: number, frame: Frame): void {
    if (this.state !== 'idle') throw new Error(`transmitter: a frame started while ${this.state}`);
    if (frame.kind === FrameKind.data && frame.payloadBytes > this.config.mtu) {
      throw new Error(`transmitter: ${frame.payloadBytes} B payload exceeds the link MTU of ${this.config.mtu} B`);
    }
    const donePs = nowPs + this.serializationPs(frame);
    this.state = 'busy';
    const deferral = this.deps.deferral;
    if (deferral !== undefined && this.control.length === 0 && this.credit === null && donePs >= this.pauseHorizonPs && this.deps.source.empty?.() === true) {
      // Nothing waits behind this frame and no received pause outlasts it: at its end the pull
      // would find nothing. The end is not scheduled unless something reaches this port before
      // it (`settle`); it keeps its place in the node's order all the same, so every other
      // event's is what it would have been. A fifth of the perf pod's events were such ends.
      this.deferredDonePs = donePs;
      this.deferredDoneSeq = deferral.reserve();
    } else {
      this.deps.schedule(donePs, TxEvent.done);
    }
    const stats = this.deps.stats;
    stats.txFrames++;
    stats.txBytes += frameBytes(frame, this.wire.accounting);
    if (frame.kind === FrameKind.pfc) stats.countPfc(true, nowPs, frame);
    else if (this.credit !== null) this.credit.onControlSent(frame);
    if (this.onStart !== null) this.onStart(frame);
    if (this.trace !== null) this.trace.frame(TraceRecord.tx, nowPs, this.tracePort, frame);
    if (this.tap !== null) this.tap(nowPs, frame);
    this.startedPs = nowPs;
    switch (this.impairment.fate(frame)) {
      case Fate.deliver:
        this.deps.emit(frame, donePs + this.config.latencyPs, false);
        break;
      case Fate.corrupt:
        this.deps.emit(frame, donePs + this.config.latencyPs, true);
        break;
      case Fate.linkDown:
        this.deps.drop(frame, 'link_down');
        break;
      case Fate.loss:
        this.deps.drop(frame, 'loss');
        break;
      case Fate.mtuExceeded:
        this.deps.drop(frame, 'mtu_exceeded');
        break;
    }
  }

  /**
   * A deferred serialization end meets whoever touches the port: if the engine is past its place,
   * it happened (and found nothing to send: the wire is free); if not, it becomes an event now.
   */
  private settle(): void {
    if (this.deferredDonePs < 0) return;
    const deferral = this.deps.deferral!;
    if (deferral.passed(this.deferredDonePs, this.deferredDoneSeq)) this.state = 'idle';
    else deferral.scheduleReserved(this.deferredDonePs, TxEvent.done, this.deferredDoneSeq);
    this.deferredDonePs = -1;
  }

  private refreshPauseHorizon(): void {
    let horizon = 0;
    for (let p = 0; p < PFC_PRIORITIES; p++) horizon = Math.max(horizon, this.pausedUntilPs[p]!);
    this.pauseHorizonPs = horizon;
  }

  private wakeAtEarliestExpiry(nowPs: number): void {
    let earliest = Infinity;
    for (let p = 0; p < PFC_PRIORITIES; p++) {
      const until = this.pausedUntilPs[p]!;
      if (until > nowPs && until < earliest) earliest = until;
    }
    if (earliest === Infinity) return;
    if (this.wakeAtPs !== -1 && this.wakeAtPs <= earliest) return;
    this.wakeAtPs = earliest;
    this.deps.schedule(earliest, TxEvent.pauseExpired);
  }
}

/** Time the wire takes for `bytes` at `rateBps` under the pod's wire model. */
export function wireTimePs(bytes: number, rateBps: number, wire: WireModel): number {
  const ps = serializationPs(bytes, rateBps);
  return wire.truncateToNs ? Math.max(1, Math.floor(ps / 1000)) * 1000 : ps;
}

/**
 * The smallest time between a frame starting on this direction and arriving at the peer:
 * latency plus the shortest frame's serialization (DESIGN §3, the window's lookahead).
 */
export function lookaheadPs(direction: LinkDirectionConfig, wire: WireModel): number {
  return direction.latencyPs + wireTimePs(minSerializedBytes(wire.accounting), direction.rateBps, wire);
}

