/**
 * What a node model sees of the engine: the clock, its ports, named timers, seeded streams
 * and the accounting calls every frame must go through (sent, delivered, dropped).
 *
 * Timers are a small named table of deadlines (quinn-proto's shape, STYLE §2): setting a
 * timer replaces its previous deadline; superseded events are discarded unseen.
 */
import type { Frame } from '@rocelab/wire';
import type { LinkDirectionConfig, Transmitter } from './link.js';
import { dropReasonIndex, type DropReason } from './drop-reason.js';
import { Rng } from './rng.js';
import type { NodeStats } from './stats.js';
import { TraceHash, TraceRecord } from './trace-hash.js';

/**
 * The engine-side behaviour of a node: a host, a switch dataplane, or a test double. `Results` is
 * what it reports at the end of a run, `Fault` the changes a fault makes to it: a model says its
 * own, so whoever reads them (the runtime) needs no casts.
 */
export interface NodeModel<Results = unknown, Fault = unknown> {
  /** The scheduler behind `port`'s transmitter: the next frame whose priority is not in `pausedMask`. */
  nextFrame(port: number, nowPs: number, pausedMask: number): Frame | null;
  /**
   * True when nothing is queued for `port` and a pull would return null until the model kicks the
   * port: the engine then need not schedule the end of the frame on the wire (`link.ts`). Absent,
   * or false when unsure: the end is an event.
   */
  portEmpty?(port: number): boolean;
  /** The priority a frame is classified into here (its lane on a credit link); absent: the NICs' DSCP map. */
  priorityOf?(frame: Frame): number;
  /** A frame arrived on `port` (the link already dropped corrupted frames and handled PFC). */
  onFrame(nowPs: number, port: number, frame: Frame): void;
  onTimer(nowPs: number, timer: number): void;
  /** A PFC frame arrived on `port`; the transmitter has already applied it. */
  onPfc?(nowPs: number, port: number, frame: Frame): void;
  onLinkState?(nowPs: number, port: number, up: boolean): void;
  /** A fault or configuration change addressed to this node. */
  onFault?(nowPs: number, fault: Fault): void;
  /** Frames the model holds in its own queues, for the conservation audit. */
  heldFrames(): number;
  /** The same frames by the port they wait for (a killed node's losses are counted per port); absent: not attributed. */
  heldFramesByPort?(): readonly number[];
  /** Role-specific results for the run's output (flows, …). */
  results?(nowPs: number): Results;
}

/** A model that is neither a host nor a switch (a test's scripted node): a runtime only drives it. */
export interface OpaqueModel extends NodeModel {
  readonly kind: 'opaque';
}

export interface PortInfo {
  index: number;
  name: string;
  peerNode: number;
  peerPort: number;
  out: LinkDirectionConfig;
}

/**
 * A notable event of a model (a watchdog declaring a storm, stall prevention firing, a fault
 * applied): for traces and logs, never for the model's own logic. `port`/`priority` are -1
 * where they do not apply.
 */
export interface NodeNote {
  event: string;
  port: number;
  priority: number;
  detail: string;
}

/** Engine services a context needs; implemented by the Engine. */
export interface ContextHost {
  readonly nowPs: number;
  readonly seed: number;
  scheduleTimer(node: number, timer: number, atPs: number, generation: number): void;
  /** Hands a note to whoever observes the engine (nothing when no one does). */
  note(node: number, timePs: number, note: NodeNote): void;
}

export class NodeContext {
  private readonly timerGeneration: number[] = [];
  private readonly timerDeadline: number[] = [];
  private readonly streams = new Map<string, Rng>();
  /** Filled by the engine once the ports' transmitters exist. */
  readonly transmitters: Transmitter[] = [];
  /** What can be observed of this node (`trace-hash.ts`): its ports' frames, drops, pauses, completions and faults. */
  readonly trace = new TraceHash();

  constructor(
    private readonly host: ContextHost,
    readonly index: number,
    readonly name: string,
    readonly ports: readonly PortInfo[],
    readonly stats: NodeStats,
  ) {}

  get nowPs(): number {
    return this.host.nowPs;
  }

  /** The seeded stream for `purpose` at this node (the same object on every call). */
  rng(purpose: string): Rng {
    let stream = this.streams.get(purpose);
    if (stream === undefined) {
      stream = new Rng(this.host.seed, this.name, purpose);
      this.streams.set(purpose, stream);
    }
    return stream;
  }

  /** Arm `timer` (a small integer naming one of the model's timers) for `atPs`, replacing any earlier deadline. */
  setTimer(timer: number, atPs: number): void {
    if (!(Number.isSafeInteger(atPs) && atPs >= this.host.nowPs)) {
      throw new RangeError(`${this.name}: timer ${timer} set for ${atPs} ps, before now (${this.host.nowPs} ps) or not an integer`);
    }
    const generation = (this.timerGeneration[timer] ?? 0) + 1;
    this.timerGeneration[timer] = generation;
    this.timerDeadline[timer] = atPs;
    this.host.scheduleTimer(this.index, timer, atPs, generation);
  }

  cancelTimer(timer: number): void {
    this.timerGeneration[timer] = (this.timerGeneration[timer] ?? 0) + 1;
    this.timerDeadline[timer] = -1;
  }

  /** The pending deadline of `timer`, or null. */
  timerDeadlinePs(timer: number): number | null {
    const deadline = this.timerDeadline[timer] ?? -1;
    return deadline < 0 ? null : deadline;
  }

  /**
   * Engine side: the node died. Every timer is disarmed, so events already scheduled are stale
   * (discarded unseen) and a fresh model starts with an empty table.
   */
  resetTimers(): void {
    for (let timer = 0; timer < this.timerGeneration.length; timer++) this.cancelTimer(timer);
  }

  /** Engine side: is this timer event the current arming? Consumes the deadline if so. */
  fireTimer(timer: number, generation: number): boolean {
    if (this.timerGeneration[timer] !== generation) return false;
    this.timerDeadline[timer] = -1;
    return true;
  }

  /** The model has a new frame for `port`: start it if the wire is free. */
  kick(port: number): void {
    this.transmitters[port]!.kick(this.host.nowPs);
  }

  /** Send a link-control frame (PFC, credit update) on `port`, ahead of all data; a PFC frame on a credit link is not sent (nor counted). */
  sendControl(port: number, frame: Frame): void {
    if (this.transmitters[port]!.sendControl(this.host.nowPs, frame)) this.stats.sent++;
  }

  /** The engine's hook on frames leaving this node (a credit link's receiver frees their blocks); null without credit links. */
  onLeave: ((frame: Frame) => void) | null = null;

  /** A frame this node puts into the fabric (new packet, or a flood copy). */
  originate(_frame: Frame): void {
    this.stats.sent++;
  }

  /** A frame consumed here as its destination. */
  deliver(frame: Frame): void {
    this.stats.delivered++;
    if (this.onLeave !== null) this.onLeave(frame);
  }

  drop(frame: Frame, reason: DropReason, port: number): void {
    this.stats.countDrop(reason, port);
    this.trace.frame(TraceRecord.drop, this.host.nowPs, port, frame, dropReasonIndex(reason) + 1);
    if (this.onLeave !== null) this.onLeave(frame);
  }

  /**
   * A work request completed (the requester's completion, as the application sees it): it enters
   * the trace hash. `status` is 0 for success, otherwise a code of the model's own.
   */
  completed(qpn: number, wrId: number, bytes: number, status: number): void {
    this.trace.done(this.host.nowPs, qpn, wrId, bytes, status);
  }

  /** A notable event, for traces and logs (see `NodeNote`). */
  note(event: string, port = -1, priority = -1, detail = ''): void {
    this.host.note(this.index, this.host.nowPs, { event, port, priority, detail });
  }
}
