/**
 * What the engine keeps for each node it hosts (its context, its model and earlier lives, its
 * ports' remote state and outboxes), shared by the engine and the code that applies faults to
 * a node (`engine-faults.ts`, `node-life.ts`).
 */
import { DEFAULT_DSCP_MAP, type Frame } from '@rocelab/wire';
import type { NodeContext, NodeModel } from './node.js';

/** Frames emitted on a link to another process during the current window. */
export interface Outbox {
  frames: Frame[];
  arrivalPs: number[];
  originSeq: number[];
  fcsBad: boolean[];
}

export interface HostedPort {
  remote: boolean;
  /** Receive direction down: frames still arriving are lost (`link_down`). */
  rxDown: boolean;
  outbox: Outbox;
}

export interface Hosted<M extends NodeModel = NodeModel> {
  ctx: NodeContext;
  /** null before `attach`, and while the node is dead (`node-life.ts`). */
  model: M | null;
  /** Events dispatched to the node (a cost figure: the trace hash does not count them). */
  events: number;
  seq: number;
  ports: HostedPort[];
  /** Lives so far: transmitter events carry it, so those of a dead incarnation are discarded. */
  incarnation: number;
  /** The fault that killed the node, while it is dead; null while it lives. */
  killedBy: number | null;
  /** Models of earlier lives, for the run's results (a killed host's messages). */
  retired: M[];
  /**
   * With credit links: each frame now in the node that arrived on one, to its `port << 3 | lane`
   * (its blocks come back when it leaves); null on a node without credit links (nothing to do).
   */
  creditHeld: Map<Frame, number> | null;
}

/** The lane (priority) of a frame at a node: its model's classification, or the NICs' DSCP map. */
export function laneOf(h: Hosted, frame: Frame): number {
  return h.model?.priorityOf?.(frame) ?? DEFAULT_DSCP_MAP[frame.dscp]!;
}

export function emptyOutbox(): Outbox {
  return { frames: [], arrivalPs: [], originSeq: [], fcsBad: [] };
}
