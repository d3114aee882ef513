/**
 * The engine of one process: it hosts one or more nodes of a pod and runs their events in
 * the order of DESIGN §3. Links between hosted nodes are in-memory (an arrival event goes
 * straight into the queue); links to nodes hosted elsewhere collect their frames in an
 * outbox that the runtime ships once per window and feeds back with `deliverRemote`.
 *
 * The engine knows nothing of windows: `runUntil(end)` runs every event before `end`.
 * Each node folds what can be observed of it (`trace-hash.ts`) into its own trace hash, so a
 * node's hash is the same whichever process hosts it and however time was cut into windows.
 */
import { FrameKind, frameBytes, type Frame } from '@rocelab/wire';
import { EngineError } from './engine-error.js';
import { applyFault, applyLinkState, IMPAIRMENT_KIND, KILL_KIND, NO_PORT, RESTART_KIND, type FaultData } from './engine-faults.js';
import { emptyOutbox, laneOf, type Hosted, type Outbox } from './engine-hosted.js';
import { EventClass, keyBefore, type SimEvent } from './event.js';
import { EventQueue } from './event-queue.js';
import type { ImpairmentConfig, PacketAction } from './impairments.js';
import { Transmitter, type WireModel } from './link.js';
import { NodeContext, type ContextHost, type NodeModel, type NodeNote, type PortInfo } from './node.js';
import type { KillData, RestartData, RestartFactory } from './node-life.js';
import { SampleGrid, type Sampler } from './sample-grid.js';
import { NodeStats } from './stats.js';
import { TraceRecord } from './trace-hash.js';

export { EngineError } from './engine-error.js';
export type { Outbox } from './engine-hosted.js';
export type { Sampler } from './sample-grid.js';

export interface EngineNode {
  index: number;
  name: string;
  ports: readonly PortInfo[];
}

export interface EngineOptions {
  seed: number;
  /** Every node of the pod, indexed by node index (hosted or not: peers are looked up here). */
  nodes: readonly EngineNode[];
  /** Indices of the nodes this engine hosts. */
  hosted: readonly number[];
  wire: WireModel;
  /** Events allowed at one instant before the engine declares a livelock (a model bug). */
  maxEventsPerInstant?: number;
  /**
   * Virtual time the engine starts at (default 0): a member that rejoins a running pod boots its
   * nodes at the lease it joins, and nothing before it happened here.
   */
  startPs?: number;
}

/**
 * Watches the hosted nodes without taking part (traces, packet capture): it never schedules
 * an event or draws from a stream, so the trace hash is the same with or without one.
 */
export interface EngineObserver {
  /** A frame starts serializing on a hosted node's port (PFC frames included). */
  onTransmit?(node: number, port: number, timePs: number, frame: Frame): void;
  /** A frame arrived intact at a hosted node's port, before the node's model sees it. */
  onArrive?(node: number, port: number, timePs: number, frame: Frame): void;
  /** A model's notable event (`NodeContext.note`). */
  onNote?(node: number, timePs: number, note: NodeNote): void;
  /** A packet event (`packetEvent` fault) hit the `index`-th data packet of its QP as it started leaving a hosted node's port. */
  onPacketEvent?(node: number, port: number, timePs: number, frame: Frame, index: number, action: PacketAction): void;
}

export class Engine<M extends NodeModel = NodeModel> implements ContextHost {
  nowPs = 0;
  /** Every event before this time has been processed. */
  horizonPs = 0;
  readonly seed: number;
  private readonly queue = new EventQueue();
  private readonly hosted: (Hosted<M> | undefined)[];
  private readonly nodes: readonly EngineNode[];
  private readonly maxEventsPerInstant: number;
  private readonly wire: WireModel;
  private ready = false;
  private observer: EngineObserver | null = null;
  private readonly grid = new SampleGrid();
  private restartFactory: RestartFactory<M> | null = null;
  /**
   * Event records already dispatched, to be filled again: a run makes millions of events and
   * only a few thousand are pending at once, so reusing them spares the collector (nothing
   * keeps an event once it is dispatched: the hash copies its fields, observers see frames).
   */
  private readonly spare: SimEvent[] = [];
  private pendingCounts: { version: number; counts: Int32Array } | null = null;
  /** The event being dispatched (or sampled before), null between `runUntil` calls: where the engine is in its order. */
  private current: SimEvent | null = null;

  constructor(options: EngineOptions) {
    this.seed = options.seed;
    this.nowPs = this.horizonPs = options.startPs ?? 0;
    this.nodes = options.nodes;
    this.maxEventsPerInstant = options.maxEventsPerInstant ?? 10_000_000;
    this.wire = options.wire;
    options.nodes.forEach((node, i) => {
      if (node.index !== i) throw new EngineError('config', `node ${node.name} has index ${node.index}, expected ${i}`);
    });
    const hostedSet = new Set(options.hosted);
    this.hosted = options.nodes.map((node) => (hostedSet.has(node.index) ? this.host(node, hostedSet, options.wire) : undefined));
  }

  /** The context a hosted node's model is built with. */
  context(index: number): NodeContext {
    return this.mustHost(index).ctx;
  }

  attach(index: number, model: M): void {
    this.mustHost(index).model = model;
  }

  /** How a restarted node's model is built (the runtime's composition root). */
  onRestart(factory: RestartFactory<M>): void {
    this.restartFactory = factory;
  }

  get hostedIndices(): number[] {
    return this.hosted.flatMap((h, i) => (h === undefined ? [] : [i]));
  }

  /** Process every event with time < `endPs`. */
  runUntil(endPs: number): void {
    if (!this.ready) this.checkReady();
    const queue = this.queue;
    let instantPs = -1;
    let atInstant = 0;
    for (;;) {
      const event = queue.peek();
      if (event === undefined || event.timePs >= endPs) break;
      queue.pop();
      if (event.timePs !== instantPs) {
        instantPs = event.timePs;
        atInstant = 0;
      } else if (++atInstant > this.maxEventsPerInstant) {
        throw new EngineError('livelock', `more than ${this.maxEventsPerInstant} events at ${instantPs} ps: a model is livelocked`);
      }
      this.current = event;
      if (event.timePs >= this.grid.nextPs) this.grid.through(event.timePs, this);
      this.nowPs = event.timePs;
      this.dispatch(event);
      event.frame = null;
      event.data = null;
      this.spare.push(event);
    }
    this.current = null;
    if (endPs >= this.grid.nextPs && Number.isFinite(endPs)) this.grid.through(endPs, this);
    if (endPs > this.horizonPs && Number.isFinite(endPs)) {
      this.horizonPs = endPs;
      this.nowPs = endPs;
    }
  }

  /** Watch every hosted node's frames (one observer per engine; a second replaces the first). */
  observe(observer: EngineObserver): void {
    this.observer = observer;
    for (const h of this.hosted) {
      if (h === undefined) continue;
      const node = h.ctx.index;
      h.ctx.transmitters.forEach((tx, port) => {
        tx.tap = observer.onTransmit === undefined ? null : (timePs, frame) => observer.onTransmit!(node, port, timePs, frame);
        tx.packetEventTap = observer.onPacketEvent === undefined ? null : (timePs, frame, index, action) => observer.onPacketEvent!(node, port, timePs, frame, index, action);
      });
    }
  }

  /** Sample on a grid from `startPs` on (grid points already behind the horizon are skipped). */
  addSampler(sampler: Sampler): void {
    this.grid.add(sampler, this.horizonPs);
  }

  /** Time of the earliest pending event, or null when the queue is empty. */
  nextEventPs(): number | null {
    return this.queue.peek()?.timePs ?? null;
  }

  /** Frames emitted on a remote port since the last call. */
  takeOutbox(node: number, port: number): Outbox {
    const p = this.mustHost(node).ports[port]!;
    const out = p.outbox;
    p.outbox = emptyOutbox();
    return out;
  }

  /**
   * Frames that arrived from another process on `node`'s `port`. A frame due before the
   * horizon belongs to a window already executed: a protocol bug, counted and dropped as
   * `causality`, never processed late.
   */
  deliverRemote(node: number, port: number, batch: Outbox): void {
    const h = this.mustHost(node);
    const info = h.ctx.ports[port];
    if (info === undefined || !h.ports[port]!.remote) throw new EngineError('remote', `${h.ctx.name} has no remote port ${port}`);
    for (let i = 0; i < batch.frames.length; i++) {
      const frame = batch.frames[i]!;
      const arrivalPs = batch.arrivalPs[i]!;
      if (arrivalPs < this.horizonPs) {
        h.ctx.stats.causalityViolations++;
        h.ctx.drop(frame, 'causality', port);
        continue;
      }
      this.queue.push(this.arrivalEvent(arrivalPs, info.peerNode, batch.originSeq[i]!, node, port, frame, batch.fcsBad[i]!));
    }
  }

  /** A link state change at a hosted endpoint, issued by the controller (origin = node count). */
  scheduleLinkState(atPs: number, faultSeq: number, node: number, port: number, up: boolean): void {
    this.mustHost(node);
    this.queue.push(this.event(atPs, EventClass.linkState, this.nodes.length, faultSeq, node, up ? 1 : 0, port, 0, null, null));
  }

  /**
   * A fault or configuration change addressed to a hosted node's model (class 1); `note` names it
   * in the node's notes when it applies (`NodeContext.note('fault', …)`).
   */
  scheduleFault(atPs: number, faultSeq: number, node: number, kind: number, data: unknown, note = ''): void {
    this.mustHost(node);
    this.queue.push(this.event(atPs, EventClass.fault, this.nodes.length, faultSeq, node, kind, NO_PORT, 0, null, { change: data, note } satisfies FaultData));
  }

  /**
   * New impairments for the transmit direction of a hosted node's port (a `loss`, `corrupt`,
   * packet-event, one-way `linkDown` (`down`), `linkRate` or `mtuMismatch` fault), a class-1 event: the fields `patch` names replace the current ones,
   * except `packetEvents`, which are added to those already set.
   */
  scheduleImpairments(atPs: number, faultSeq: number, node: number, port: number, patch: Partial<ImpairmentConfig>, note = ''): void {
    this.mustHost(node);
    this.queue.push(this.event(atPs, EventClass.fault, this.nodes.length, faultSeq, node, IMPAIRMENT_KIND, port, 0, null, { change: patch, note } satisfies FaultData));
  }

  /**
   * The node dies at `atPs` (a `kill` fault, number `fault`): a class-1 event (`node-life.ts`).
   * A kill of a node already dead does nothing (the topology loader refuses one).
   */
  scheduleKill(atPs: number, faultSeq: number, node: number, fault: number, note = ''): void {
    this.mustHost(node);
    this.queue.push(this.event(atPs, EventClass.fault, this.nodes.length, faultSeq, node, KILL_KIND, NO_PORT, 0, null, { fault, note } satisfies KillData));
  }

  /**
   * The node boots again at `atPs` with a fresh model: a class-1 event. `kill` names the kill it
   * undoes (a `kill` with `for`, or one cleared): then it applies only if that kill is what took
   * the node down. A restart of a living node does nothing.
   */
  scheduleRestart(atPs: number, faultSeq: number, node: number, kill: number | null, note = ''): void {
    this.mustHost(node);
    this.queue.push(this.event(atPs, EventClass.fault, this.nodes.length, faultSeq, node, RESTART_KIND, NO_PORT, 0, null, { kill, note } satisfies RestartData));
  }

  /** Whether a hosted node is alive (not killed, or restarted since). */
  alive(node: number): boolean {
    const h = this.mustHost(node);
    return h.killedBy === null;
  }

  /** Models of the node's earlier lives, oldest first (empty for a node never killed). */
  retiredModels(node: number): readonly M[] {
    return this.mustHost(node).retired;
  }

  /** A remote link broke: the node stops expecting it; what it sends there is lost (`link_down`). */
  setRemoteBroken(node: number, port: number): void {
    const h = this.mustHost(node);
    h.ctx.transmitters[port]!.setDown(this.nowPs, true);
    h.ports[port]!.rxDown = true;
  }

  digest(node: number): Uint8Array {
    return this.mustHost(node).ctx.trace.digest();
  }

  eventsProcessed(node: number): number {
    return this.mustHost(node).events;
  }

  /**
   * Frames currently held at or travelling to `node`: the model's queues, PFC frames waiting
   * for the serializer, arrivals still pending in the queue, and unshipped outboxes.
   * Enumerated, not derived, so the conservation audit can fail.
   */
  heldFrames(node: number): number {
    const h = this.mustHost(node);
    let held = h.model?.heldFrames() ?? 0;
    for (const tx of h.ctx.transmitters) held += tx.controlBacklog;
    for (const port of h.ports) held += port.outbox.frames.length;
    return held + this.arrivalsPending()[node]!;
  }

  /**
   * Frames still travelling to each node (pending arrival events), counted in one pass over the
   * queue and kept until it changes: an audit asks for every node in turn, and a pass per node
   * would make it quadratic in the pod's size.
   */
  private arrivalsPending(): Int32Array {
    if (this.pendingCounts?.version !== this.queue.version) {
      const counts = new Int32Array(this.nodes.length);
      for (const event of this.queue) if (event.frame !== null) counts[event.target]!++;
      this.pendingCounts = { version: this.queue.version, counts };
    }
    return this.pendingCounts.counts;
  }

  model(node: number): M | null {
    return this.mustHost(node).model;
  }

  // ContextHost
  note(node: number, timePs: number, note: NodeNote): void {
    this.observer?.onNote?.(node, timePs, note);
  }

  scheduleTimer(node: number, timer: number, atPs: number, generation: number): void {
    const h = this.hosted[node]!;
    this.queue.push(this.event(atPs, EventClass.timer, node, h.seq++, node, timer, NO_PORT, generation, null, null));
  }

  /**
   * One event at its node. A dead node (model null) still takes link-state changes and
   * impairment patches (they belong to its links), drops what arrives (`node_lost`), ignores
   * model faults, and never sees a timer or a transmitter event of its earlier life.
   */
  private dispatch(event: SimEvent): void {
    const h = this.hosted[event.target]!;
    const model = h.model;
    switch (event.cls) {
      case EventClass.timer:
        if (!h.ctx.fireTimer(event.kind, event.arg) || model === null) return;
        h.events++;
        model.onTimer(event.timePs, event.kind);
        return;
      case EventClass.transmitter:
        if (event.arg !== h.incarnation) return;
        h.events++;
        h.ctx.transmitters[event.port]!.onEvent(event.timePs, event.kind);
        return;
      case EventClass.pfcArrival:
      case EventClass.frameArrival:
        h.events++;
        this.arrive(h, event);
        return;
      case EventClass.linkState:
        h.events++;
        applyLinkState(h, event);
        return;
      case EventClass.fault:
        h.events++;
        applyFault(h, event, this.restartFactory, this.nowPs);
        return;
    }
  }

  private arrive(h: Hosted<M>, event: SimEvent): void {
    const frame = event.frame!;
    const port = event.port;
    const ctx = h.ctx;
    if (h.model === null) {
      ctx.drop(frame, 'node_lost', port);
      return;
    }
    if (h.ports[port]!.rxDown) {
      ctx.drop(frame, 'link_down', port);
      return;
    }
    if (event.arg === 1) {
      ctx.drop(frame, 'corrupt', port);
      return;
    }
    h.ctx.trace.frame(TraceRecord.rx, event.timePs, port, frame);
    if (this.observer?.onArrive !== undefined) this.observer.onArrive(h.ctx.index, port, event.timePs, frame);
    const stats = ctx.stats.ports[port]!;
    stats.rxFrames++;
    stats.rxBytes += frameBytes(frame, this.wire.accounting);
    if (frame.kind === FrameKind.pfc) {
      stats.countPfc(false, event.timePs, frame);
      ctx.deliver(frame);
      ctx.transmitters[port]!.applyPause(event.timePs, frame);
      h.model.onPfc?.(event.timePs, port, frame);
      return;
    }
    if (h.creditHeld !== null) {
      const credit = ctx.transmitters[port]!.credit;
      if (frame.kind === FrameKind.credit) {
        ctx.deliver(frame);
        ctx.transmitters[port]!.applyCredit(event.timePs, frame);
        return;
      }
      if (credit !== null) {
        // The frame takes blocks of its lane until it leaves the node (`creditLeave`).
        const lane = laneOf(h, frame);
        credit.onArrive(lane, frameBytes(frame, this.wire.accounting));
        h.creditHeld.set(frame, (port << 3) | lane);
      }
    } else if (frame.kind === FrameKind.credit) {
      ctx.deliver(frame); // a credit update on a node without credit links: nothing grants by credit here
      return;
    }
    h.model.onFrame(event.timePs, port, frame);
  }

  private host(node: EngineNode, hostedSet: ReadonlySet<number>, wire: WireModel): Hosted<M> {
    const ctx = new NodeContext(this, node.index, node.name, node.ports, new NodeStats(node.ports.length));
    const hosted: Hosted<M> = {
      ctx,
      model: null,
      events: 0,
      seq: 0,
      incarnation: 0,
      killedBy: null,
      retired: [],
      creditHeld: null,
      ports: node.ports.map((p) => ({ remote: !hostedSet.has(p.peerNode), rxDown: false, outbox: emptyOutbox() })),
    };
    for (const port of node.ports) {
      const hp = hosted.ports[port.index]!;
      const portStats = ctx.stats.ports[port.index]!;
      const peer = port.peerNode;
      const peerPort = port.peerPort;
      const txEvent = (timePs: number, kind: number, seq: number) =>
        this.queue.push(this.event(timePs, EventClass.transmitter, node.index, seq, node.index, kind, port.index, hosted.incarnation, null, null));
      const tx: Transmitter = new Transmitter(port.out, wire, {
        schedule: (timePs, kind) => txEvent(timePs, kind, hosted.seq++),
        deferral: {
          reserve: () => hosted.seq++,
          scheduleReserved: txEvent,
          passed: (timePs, seq) => this.passed(timePs, node.index, seq),
        },
        // A dead node's transmitter has nothing to send (a link coming up kicks it).
        source: {
          nextFrame: (nowPs, pausedMask) => hosted.model?.nextFrame(port.index, nowPs, pausedMask) ?? null,
          empty: () => hosted.model?.portEmpty?.(port.index) === true,
        },
        emit: (frame, arrivalPs, fcsBad) => {
          const seq = hosted.seq++;
          if (hp.remote) {
            const out = hp.outbox;
            out.frames.push(frame);
            out.arrivalPs.push(arrivalPs);
            out.originSeq.push(seq);
            out.fcsBad.push(fcsBad);
          } else {
            this.queue.push(this.arrivalEvent(arrivalPs, node.index, seq, peer, peerPort, frame, fcsBad));
          }
        },
        drop: (frame, reason) => ctx.drop(frame, reason, port.index),
        laneOf: (frame) => laneOf(hosted, frame),
        stats: portStats,
        rng: ctx.rng(`link:${port.name}`),
        trace: { hash: ctx.trace, port: port.index },
      });
      ctx.transmitters[port.index] = tx;
    }
    if (node.ports.some((p) => p.out.credit !== undefined)) {
      hosted.creditHeld = new Map();
      const leave = (frame: Frame) => this.creditLeave(hosted, frame);
      ctx.onLeave = leave;
      for (const tx of ctx.transmitters) tx.onStart = leave;
    }
    return hosted;
  }

  /**
   * A frame left a node with credit links (forwarded onto a wire, delivered or dropped): if it
   * arrived on a credit port, its lane's blocks are free again, and the port owes its peer an update.
   */
  private creditLeave(h: Hosted<M>, frame: Frame): void {
    const held = h.creditHeld!.get(frame);
    if (held === undefined) return;
    h.creditHeld!.delete(frame);
    const port = held >> 3;
    const update = h.ctx.transmitters[port]!.credit!.onLeave(held & 7, frameBytes(frame, this.wire.accounting));
    if (update !== null) h.ctx.sendControl(port, update);
  }

  /**
   * Whether the engine is past the place of a transmitter event `(timePs, node, seq)` in its order
   * (`compareEvents`): a deferred serialization end there has happened.
   */
  private passed(timePs: number, node: number, seq: number): boolean {
    const c = this.current;
    return c === null ? timePs < this.nowPs : keyBefore(timePs, EventClass.transmitter, node, seq, c);
  }

  private arrivalEvent(timePs: number, origin: number, seq: number, target: number, port: number, frame: Frame, fcsBad: boolean): SimEvent {
    const cls = frame.kind === FrameKind.pfc || frame.kind === FrameKind.credit ? EventClass.pfcArrival : EventClass.frameArrival;
    return this.event(timePs, cls, origin, seq, target, 0, port, fcsBad ? 1 : 0, frame, null);
  }

  /** An event record, a spare one filled again when there is one. */
  private event(timePs: number, cls: EventClass, origin: number, seq: number, target: number, kind: number, port: number, arg: number, frame: Frame | null, data: unknown): SimEvent {
    const e = this.spare.pop();
    if (e === undefined) return { timePs, cls, origin, seq, target, kind, port, arg, frame, data };
    e.timePs = timePs;
    e.cls = cls;
    e.origin = origin;
    e.seq = seq;
    e.target = target;
    e.kind = kind;
    e.port = port;
    e.arg = arg;
    e.frame = frame;
    e.data = data;
    return e;
  }

  private checkReady(): void {
    for (const h of this.hosted) {
      if (h !== undefined && h.model === null) throw new EngineError('config', `node ${h.ctx.name} has no model attached`);
    }
    this.ready = true;
  }

  private mustHost(index: number): Hosted<M> {
    const h = this.hosted[index];
    if (h === undefined) throw new EngineError('config', `node index ${index} is not hosted by this engine`);
    return h;
  }
}
