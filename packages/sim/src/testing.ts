/**
 * Test support for engine-level tests (exported as `@rocelab/sim/testing`): a scripted node
 * model and a pod builder. Real models live in `switch` and `rnic`; this one exists so the
 * link model and the engine can be tested without them.
 */
import { FrameKind, newFrame, type Frame } from '@rocelab/wire';
import { Engine, type EngineNode, type Outbox } from './engine.js';
import { NO_IMPAIRMENTS, type ImpairmentConfig } from './impairments.js';
import { DEFAULT_WIRE_MODEL, type LinkDirectionConfig, type WireModel } from './link.js';
import type { NodeContext, OpaqueModel, PortInfo } from './node.js';

/** Priority of a frame in tests: DSCP >> 3, so DSCP 26 → 3 and DSCP 48 → 6 as in DESIGN §9. */
export const testPriority = (frame: Frame): number => frame.dscp >> 3;

export interface Received {
  timePs: number;
  port: number;
  frame: Frame;
}

/**
 * A node that sends what the test tells it to, FIFO per port (skipping paused priorities),
 * records what arrives, and optionally forwards arrivals from one port to another.
 */
export class ScriptedNode implements OpaqueModel {
  readonly kind = 'opaque';
  readonly received: Received[] = [];
  readonly pfcReceived: Received[] = [];
  private readonly queues: Frame[][];
  private readonly actions: Array<() => void> = [];
  /** Arrivals on port `key` are re-queued on port `value` instead of delivered. */
  readonly forward = new Map<number, number>();
  /** Say when a port is empty (`portEmpty`), so the engine may defer the ends of frames; false: every end is an event. */
  deferEnds = true;

  constructor(readonly ctx: NodeContext) {
    this.queues = ctx.ports.map(() => []);
  }

  /** Originate `frame` on `port` now (PFC frames as MAC control, ahead of the queue). */
  send(port: number, frame: Frame): void {
    if (frame.kind === FrameKind.pfc) return this.ctx.sendControl(port, frame);
    this.ctx.originate(frame);
    this.queues[port]!.push(frame);
    this.ctx.kick(port);
  }

  /** Run `action` at `atPs` (through a timer, so it is an ordinary class-6 event). */
  at(atPs: number, action: () => void): void {
    this.actions.push(action);
    this.ctx.setTimer(this.actions.length - 1, atPs);
  }

  portEmpty(port: number): boolean {
    return this.deferEnds && this.queues[port]!.length === 0;
  }

  nextFrame(port: number, _nowPs: number, pausedMask: number): Frame | null {
    const queue = this.queues[port]!;
    const i = queue.findIndex((f) => (pausedMask & (1 << testPriority(f))) === 0);
    if (i < 0) return null;
    return i === 0 ? queue.shift()! : queue.splice(i, 1)[0]!;
  }

  onFrame(timePs: number, port: number, frame: Frame): void {
    const out = this.forward.get(port);
    if (out !== undefined) {
      this.queues[out]!.push(frame);
      this.ctx.kick(out);
      return;
    }
    this.received.push({ timePs, port, frame });
    this.ctx.deliver(frame);
  }

  onPfc(timePs: number, port: number, frame: Frame): void {
    this.pfcReceived.push({ timePs, port, frame });
  }

  onTimer(_nowPs: number, timer: number): void {
    this.actions[timer]!();
  }

  heldFrames(): number {
    return this.queues.reduce((n, q) => n + q.length, 0);
  }
}

export const dataFrame = (fields: Partial<Frame> = {}): Frame =>
  newFrame(FrameKind.data, { dscp: 26, payloadBytes: 1024, opcode: 0x07, ...fields });

export interface TestLink {
  a: string;
  b: string;
  rateBps?: number;
  latencyPs?: number;
  aToB?: Partial<ImpairmentConfig>;
  bToA?: Partial<ImpairmentConfig>;
  /** Credit flow control with lanes of this many 64-byte blocks (absent: PFC). */
  creditBlocks?: number;
}

/** Nodes (sorted by name) and ports for a list of point-to-point links; port i = i-th link of the node. */
export function testNodes(links: readonly TestLink[]): EngineNode[] {
  const names = [...new Set(links.flatMap((l) => [l.a, l.b]))].sort();
  const ports: PortInfo[][] = names.map(() => []);
  const index = (name: string) => names.indexOf(name);
  for (const link of links) {
    const direction = (imp: Partial<ImpairmentConfig> | undefined): LinkDirectionConfig => ({
      rateBps: link.rateBps ?? 40e9,
      latencyPs: link.latencyPs ?? 1_000_000,
      mtu: 1024,
      impairments: { ...NO_IMPAIRMENTS, ...imp },
      ...(link.creditBlocks === undefined ? {} : { credit: { bufferBlocks: link.creditBlocks } }),
    });
    const a = index(link.a);
    const b = index(link.b);
    const pa = ports[a]!.length;
    const pb = ports[b]!.length;
    ports[a]!.push({ index: pa, name: `p${pa}`, peerNode: b, peerPort: pb, out: direction(link.aToB) });
    ports[b]!.push({ index: pb, name: `p${pb}`, peerNode: a, peerPort: pa, out: direction(link.bToA) });
  }
  return names.map((name, i) => ({ index: i, name, ports: ports[i]! }));
}

/** One engine hosting `hosted` (default: all) nodes, each with a ScriptedNode. */
export function scriptedPod(
  links: readonly TestLink[],
  options: { seed?: number; hosted?: number[]; wire?: WireModel } = {},
): { engine: Engine; nodes: EngineNode[]; model: (name: string) => ScriptedNode } {
  const nodes = testNodes(links);
  const hosted = options.hosted ?? nodes.map((n) => n.index);
  const engine = new Engine({ seed: options.seed ?? 1, nodes, hosted, wire: options.wire ?? DEFAULT_WIRE_MODEL });
  const models = new Map<string, ScriptedNode>();
  for (const i of hosted) {
    const model = new ScriptedNode(engine.context(i));
    engine.attach(i, model);
    models.set(nodes[i]!.name, model);
  }
  return { engine, nodes, model: (name) => models.get(name)! };
}

/**
 * Run several engines that together host a pod in conservative windows of `windowPs`,
 * shipping outboxes between them after each window — the sync protocol without sockets.
 */
export function runInWindows(engines: readonly Engine[], nodes: readonly EngineNode[], windowPs: number, endPs: number): number {
  const hostOf = new Map<number, Engine>();
  for (const engine of engines) for (const i of engine.hostedIndices) hostOf.set(i, engine);
  let windows = 0;
  for (let t = 0; t < endPs; t += windowPs) {
    const end = Math.min(endPs, t + windowPs);
    for (const engine of engines) engine.runUntil(end);
    windows++;
    const shipments: Array<[Engine, number, number, Outbox]> = [];
    for (const engine of engines) {
      for (const i of engine.hostedIndices) {
        for (const port of nodes[i]!.ports) {
          const peerHost = hostOf.get(port.peerNode)!;
          if (peerHost === engine) continue;
          shipments.push([peerHost, port.peerNode, port.peerPort, engine.takeOutbox(i, port.index)]);
        }
      }
    }
    for (const [engine, node, port, outbox] of shipments) engine.deliverRemote(node, port, outbox);
  }
  return windows;
}
