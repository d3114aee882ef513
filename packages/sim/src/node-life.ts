/**
 * A node that dies and reboots in virtual time (the `kill` and `restart` faults, DESIGN §7).
 *
 * A kill drops the node's model: every frame it held — its model's queues and its
 * transmitters' PFC backlogs — is counted as dropped `node_lost`, its transmitters forget their
 * state, and its timers and pending transmitter events are ignored from then on. A frame
 * already on the wire stays in flight: the link model emits a frame when its first bit goes
 * out (`Transmitter.transmit`), so the one being serialized is the peer's, not the node's.
 * While dead, every frame arriving at the node is dropped `node_lost`. A restart builds a fresh
 * model through the factory the runtime registered (`Engine.onRestart`); the node's counters
 * (`NodeStats`) run on over the whole run.
 *
 * The engine applies both as class-1 events from the controller (origin = node count), like
 * every other fault, so the order is the same whatever process hosts the node.
 */
import type { NodeContext, NodeModel } from './node.js';

/** What a kill event carries: the fault that killed the node (a later restart names it). */
export interface KillData {
  fault: number;
  note: string;
}

/**
 * What a restart event carries: `kill` is the fault whose undoing it is (a `kill` with `for`,
 * or a cleared one) — it restarts the node only if that kill is what took it down, so a
 * superseded undo does nothing; null for a `restart` fault, which restarts whatever killed it.
 */
export interface RestartData {
  kill: number | null;
  note: string;
}

/** Builds the model a restarted node comes back with (registered by the runtime). */
export type RestartFactory<M extends NodeModel = NodeModel> = (node: number) => M;

/**
 * Counts what a dying node holds as dropped `node_lost` and resets its transmitters (pause
 * state, control queue, the frame in progress already emitted). Returns the frames counted.
 */
export function loseHeldFrames(ctx: NodeContext, model: NodeModel, nowPs: number): number {
  let lost = 0;
  const byPort = model.heldFramesByPort?.() ?? null;
  let attributed = 0;
  if (byPort !== null) {
    byPort.forEach((frames, port) => {
      if (frames > 0) ctx.stats.countDrops('node_lost', port, frames);
      attributed += frames;
    });
  }
  const held = model.heldFrames();
  if (held < attributed) throw new Error(`${ctx.name}: ${attributed} frames held by port but ${held} in all`);
  if (held > attributed) ctx.stats.countDrops('node_lost', -1, held - attributed);
  lost += held;
  ctx.transmitters.forEach((tx, port) => {
    const backlog = tx.reset(nowPs);
    if (backlog > 0) ctx.stats.countDrops('node_lost', port, backlog);
    lost += backlog;
  });
  return lost;
}
