/**
 * How the engine applies the controller's events at a hosted node (class 1 of DESIGN §3, origin
 * = node count): link-state changes, faults for the model, impairment patches for a port's
 * transmit direction, and the kills and restarts of `node-life.ts`. Each is folded into the
 * node's trace hash as it applies (`TraceHash.fault`).
 */
import { EngineError } from './engine-error.js';
import type { Hosted } from './engine-hosted.js';
import type { SimEvent } from './event.js';
import type { ImpairmentConfig } from './impairments.js';
import type { NodeModel } from './node.js';
import { loseHeldFrames, type KillData, type RestartData, type RestartFactory } from './node-life.js';

/** The port of an event addressed to the node, not to one of its ports. */
export const NO_PORT = -1;
/** The `kind` of a fault event that changes a link direction's impairments rather than a model. */
export const IMPAIRMENT_KIND = 0xff;
/** The `kind`s of the fault events that kill and restart a node (`node-life.ts`). */
export const KILL_KIND = 0xfe;
export const RESTART_KIND = 0xfd;

/** What a fault event carries: the change for the model (or the impairment patch), and its note. */
export interface FaultData {
  change: unknown;
  note: string;
}

/** A link state change at the node's end (`event.kind` 1: up). A dead node's ports still take it. */
export function applyLinkState(h: Hosted, event: SimEvent): void {
  h.ctx.trace.fault(event.timePs, event.port, event.seq, 0x100 | event.kind, 0);
  const up = event.kind === 1;
  h.ports[event.port]!.rxDown = !up;
  h.ctx.transmitters[event.port]!.setDown(event.timePs, !up);
  h.model?.onLinkState?.(event.timePs, event.port, up);
}

/**
 * A fault event at the node: a kill, a restart, an impairment patch (which belongs to the link,
 * so it applies at a dead node too), or a change for the model (ignored at a dead node: its
 * fresh model comes back with its settings).
 */
export function applyFault<M extends NodeModel>(h: Hosted<M>, event: SimEvent, restartFactory: RestartFactory<M> | null, nowPs: number): void {
  h.ctx.trace.fault(event.timePs, event.port, event.seq, event.kind, 0);
  if (event.kind === KILL_KIND) return kill(h, event.timePs, event.data as KillData);
  if (event.kind === RESTART_KIND) return restart(h, event.data as RestartData, restartFactory, nowPs);
  const { change, note } = event.data as FaultData;
  if (event.kind !== IMPAIRMENT_KIND) {
    if (h.model === null) return;
    if (note !== '') h.ctx.note('fault', event.port, -1, note);
    return h.model.onFault?.(event.timePs, change);
  }
  if (note !== '') h.ctx.note('fault', event.port, -1, note);
  const tx = h.ctx.transmitters[event.port]!;
  const patch = change as Partial<ImpairmentConfig>;
  tx.setImpairments({ ...tx.impairments, ...patch, packetEvents: [...tx.impairments.packetEvents, ...(patch.packetEvents ?? [])] });
}

function kill<M extends NodeModel>(h: Hosted<M>, nowPs: number, data: KillData): void {
  const model = h.model;
  if (model === null) return;
  loseHeldFrames(h.ctx, model, nowPs);
  h.retired.push(model);
  h.model = null;
  h.killedBy = data.fault;
  h.incarnation++;
  h.ctx.resetTimers();
  h.ctx.note('node_killed', -1, -1, data.note);
}

function restart<M extends NodeModel>(h: Hosted<M>, data: RestartData, factory: RestartFactory<M> | null, nowPs: number): void {
  if (h.killedBy === null || (data.kill !== null && data.kill !== h.killedBy)) return;
  if (factory === null) throw new EngineError('config', `node ${h.ctx.name} cannot restart: no model factory registered (Engine.onRestart)`);
  h.killedBy = null;
  h.model = factory(h.ctx.index);
  h.ctx.note('node_restarted', -1, -1, data.note);
  // What the model queued while it was being built (its ports were not pulled yet).
  for (const tx of h.ctx.transmitters) tx.kick(nowPs);
}
