/**
 * Faults as engine events (the runtime's part of the fault table, @rocelab/topology
 * `FAULT_KINDS`): each kind becomes link-state changes (class 2) at both ends of a link,
 * impairment patches of link directions, or typed changes for the switch or NIC it targets
 * (class 1) — at its time and, for a fault with `for`, the undoing at its end. A `kill` is a
 * class-1 event at the node (sim `node-life.ts`) and every link of it down at both ends; its
 * undoing (`for`, or a clear) and a `restart` boot it again and bring the links up. Only the events
 * of nodes this engine hosts are scheduled, so every mapping schedules the same ones.
 *
 * Events come from the controller: origin = node count, sequence = fault index · STRIDE + the
 * event's position in the fault, so any two events at one instant order the same everywhere.
 */
import type { Engine } from '@rocelab/sim';
import type { NicFault, QpEnd } from '@rocelab/rnic';
import type { SwitchFault } from '@rocelab/switch';
import type { Endpoint, FaultSpec, NodeSpec, PodSpec } from '@rocelab/topology';
import { connectionKey } from '@rocelab/workload';
import type { PodContext } from './pod-context.js';

/** Events one fault may schedule (a flap of 1,000 cycles: 4,000 link-state events). */
const STRIDE = 4096;

/** A fault the pod cannot carry out (e.g. a packet event for a flow no workload opens). */
export class FaultTargetError extends Error {}

export type FaultEvent =
  | { atPs: number; type: 'link'; node: number; port: number; up: boolean }
  | { atPs: number; type: 'impair'; node: number; port: number; patch: { loss?: number; dropIpIdLowByte?: number | null; corrupt?: number; packetEvents?: Array<{ qpn: number; index: number; action: 'drop' | 'ecn' | 'corrupt' }>; down?: boolean; rateBps?: number | undefined; ipMtuBytes?: number | undefined } }
  | { atPs: number; type: 'switch'; node: number; fault: SwitchFault }
  | { atPs: number; type: 'nic'; node: number; fault: NicFault }
  | { atPs: number; type: 'kill'; node: number; fault: number }
  /** `kill`: the kill fault it undoes (null for a `restart` fault: whatever killed the node). */
  | { atPs: number; type: 'restart'; node: number; kill: number | null };

export function scheduleFault(engine: Engine, pc: PodContext, fault: FaultSpec, hosted: ReadonlySet<number>): void {
  scheduleEvents(engine, faultEvents(pc, fault), fault.index, fault.atPs, `${fault.kind} ${fault.target}`, hosted);
}

/**
 * End `fault` at `atPs` (a live fault cleared through the API): to the engine, a clear is the
 * fault's own `for` ending at `atPs` — the same undo events, numbered as the fault's own (after
 * its start events), with the same note — so a session's log and a drill that gives the fault
 * `for: atPs − at` run the same events and give the same trace hash. A fault with nothing to undo
 * schedules nothing; one with a `for` of its own is never cleared (`FaultBook.clearOf`).
 */
export function scheduleClear(engine: Engine, pc: PodContext, fault: FaultSpec, atPs: number, hosted: ReadonlySet<number>): void {
  const phases = faultPhases(pc, fault);
  if (phases.undo === null) return;
  scheduleEvents(engine, clearEvents(pc, fault, atPs), fault.index, fault.atPs, `${fault.kind} ${fault.target}`, hosted, phases.start(fault.atPs).length);
}

/** The events of `fault` ended at `endPs` (its start, then its undoing): what a clear at `endPs` completes. */
export function clearEvents(pc: PodContext, fault: FaultSpec, endPs: number): FaultEvent[] {
  return faultEvents(pc, { ...fault, forPs: endPs - fault.atPs });
}

/** `from`: the first event to schedule (a clear schedules only the events after its fault's start). */
function scheduleEvents(engine: Engine, events: readonly FaultEvent[], index: number, startPs: number, label: string, hosted: ReadonlySet<number>, from = 0): void {
  events.forEach((e, k) => {
    if (k < from || !hosted.has(e.node)) return;
    const seq = index * STRIDE + k;
    const note = e.atPs === startPs ? label : `${label} ends`;
    switch (e.type) {
      case 'link':
        return engine.scheduleLinkState(e.atPs, seq, e.node, e.port, e.up);
      case 'impair':
        return engine.scheduleImpairments(e.atPs, seq, e.node, e.port, e.patch, note);
      case 'switch':
      case 'nic':
        return engine.scheduleFault(e.atPs, seq, e.node, 1, e.fault, note);
      case 'kill':
        return engine.scheduleKill(e.atPs, seq, e.node, e.fault, note);
      case 'restart':
        return engine.scheduleRestart(e.atPs, seq, e.node, e.kill, note);
    }
  });
}

/** Every engine event of `fault`, in a fixed order (whatever hosts them): its start, then (with `for`) its undoing. */
export function faultEvents(pc: PodContext, fault: FaultSpec): FaultEvent[] {
  const phases = faultPhases(pc, fault);
  const undo = fault.forPs === null ? null : phases.undo;
  return [...phases.start(fault.atPs), ...(undo === null ? [] : undo(fault.atPs + fault.forPs!))];
}

/** Whether a fault can be cleared once it applied: it has something to undo. */
export function undoable(pc: PodContext, fault: FaultSpec): boolean {
  return faultPhases(pc, fault).undo !== null;
}

interface Phases {
  start(atPs: number): FaultEvent[];
  /** The events that put back what the settings say; null when there is nothing to put back. */
  undo: ((atPs: number) => FaultEvent[]) | null;
}

function faultPhases(pc: PodContext, fault: FaultSpec): Phases {
  const { pod } = pc;
  const p = fault.params;
  const node = (name: string) => nodeNamed(pod, name);
  const both = (link: Endpoint, atPs: number, up: boolean): FaultEvent[] => linkEnds(pod, link).map(([n, port]) => ({ atPs, type: 'link', node: n, port, up }));
  /** Every link of the node, both ends (a dead node's links are down). */
  const allLinks = (n: NodeSpec, atPs: number, up: boolean): FaultEvent[] => n.ports.flatMap((port) => both({ node: n.name, port: port.name }, atPs, up));
  const onNode = (type: 'nic' | 'switch', n: number, start: NicFault | SwitchFault, undo: NicFault | SwitchFault): Phases => ({
    start: (atPs) => [{ atPs, type, node: n, fault: start } as FaultEvent],
    undo: (atPs) => [{ atPs, type, node: n, fault: undo } as FaultEvent],
  });
  switch (p.kind) {
    case 'linkDown': {
      if (p.direction === 'both') return { start: (at) => both(p.link, at, false), undo: (at) => both(p.link, at, true) };
      // One way (issue 24): only that direction's transmitter carries nothing; the link stays up at
      // both ends, so the other direction, pauses and the switches' view of the port are untouched.
      const dirs = directions(pod, p.link, p.direction);
      return {
        start: (atPs) => dirs.map(([n, port]) => ({ atPs, type: 'impair', node: n, port, patch: { down: true } })),
        undo: (atPs) => dirs.map(([n, port]) => ({ atPs, type: 'impair', node: n, port, patch: { down: false } })),
      };
    }
    case 'linkRate': {
      const dirs = directions(pod, p.link, p.direction);
      return {
        start: (atPs) => dirs.map(([n, port]) => ({ atPs, type: 'impair', node: n, port, patch: { rateBps: p.rateBps } })),
        undo: (atPs) => dirs.map(([n, port, base]) => ({ atPs, type: 'impair', node: n, port, patch: { rateBps: base.rateBps } })),
      };
    }
    case 'mtuMismatch': {
      // The port neither sends nor takes a larger frame: both directions of its link, each dropped
      // by the transmitter that would carry it (its own, and its peer's toward it).
      const dirs = directions(pod, { node: p.node, port: p.port }, 'both');
      return {
        start: (atPs) => dirs.map(([n, port]) => ({ atPs, type: 'impair', node: n, port, patch: { ipMtuBytes: p.ipMtuBytes } })),
        undo: (atPs) => dirs.map(([n, port, base]) => ({ atPs, type: 'impair', node: n, port, patch: { ipMtuBytes: base.ipMtuBytes } })),
      };
    }
    case 'dscpMisconfig': {
      const target = node(p.node);
      if (target.role === 'host') return onNode('nic', target.index, { kind: 'dscp', dscp: p.dscp, priority: p.priority }, { kind: 'dscp', dscp: p.dscp, priority: null });
      const port = p.port === null ? null : portIndex(target, p.port);
      return onNode('switch', target.index, { kind: 'dscp', port, dscp: p.dscp, priority: p.priority }, { kind: 'dscp', port, dscp: p.dscp, priority: null });
    }
    case 'ecmpMisconfig': {
      const change = { ...(p.seed === null ? {} : { seed: p.seed }), ...(p.hash === null ? {} : { hash: p.hash }), ...(p.fields === null ? {} : { fields: p.fields }) };
      return onNode('switch', node(p.node).index, { kind: 'ecmp', change }, { kind: 'ecmp', change: null });
    }
    case 'linkUp':
      return { start: (at) => both(p.link, at, true), undo: null };
    case 'linkFlap':
      return {
        start: (at) => Array.from({ length: p.count }, (_, i) => [...both(p.link, at + i * p.periodPs, false), ...both(p.link, at + i * p.periodPs + Math.floor(p.periodPs / 2), true)]).flat(),
        undo: null,
      };
    case 'loss':
    case 'corrupt': {
      const dirs = directions(pod, p.link, p.direction);
      const patch = p.kind === 'loss' ? { loss: p.rate, dropIpIdLowByte: p.dropIpIdLowByte } : { corrupt: p.rate };
      const undo = (base: (typeof dirs)[number][2]) => (p.kind === 'loss' ? { loss: base.loss, dropIpIdLowByte: base.dropIpIdLowByte } : { corrupt: base.corrupt });
      return {
        start: (atPs) => dirs.map(([n, port]) => ({ atPs, type: 'impair', node: n, port, patch })),
        undo: (atPs) => dirs.map(([n, port, base]) => ({ atPs, type: 'impair', node: n, port, patch: undo(base) })),
      };
    }
    case 'nicPauseStorm':
      return onNode('nic', node(p.node).index, { kind: 'nicPauseStorm', on: true }, { kind: 'nicPauseStorm', on: false });
    case 'slowReceiver':
      return onNode('nic', node(p.node).index, { kind: 'drainRate', drainBps: p.drainBps }, { kind: 'drainRate', drainBps: null });
    case 'macFlush':
      return { start: (atPs) => [{ atPs, type: 'switch', node: node(p.node).index, fault: { kind: 'macFlush', mac: p.host === null ? null : node(p.host).mac } }], undo: null };
    case 'arpExpire':
      return { start: (atPs) => [{ atPs, type: 'switch', node: node(p.node).index, fault: { kind: 'arpExpire', ip: p.host === null ? null : node(p.host).ip } }], undo: null };
    case 'pfcMisconfig': {
      const target = node(p.node);
      if (target.role === 'host') return onNode('nic', target.index, { kind: 'pfc', enabled: p.enabled }, { kind: 'pfc', enabled: null });
      const port = p.port === null ? null : portIndex(target, p.port);
      const change = { ...(p.enabled === null ? {} : { lossless: p.enabled }), ...(p.xoffBytes === null ? {} : { xoffBytes: p.xoffBytes, xonBytes: p.xonBytes! }) };
      return onNode('switch', target.index, { kind: 'pfc', port, priority: p.priority, change }, { kind: 'pfc', port, priority: p.priority, change: null });
    }
    case 'ecnMisconfig': {
      const target = node(p.node);
      const port = p.port === null ? null : portIndex(target, p.port);
      const change = {
        ...(p.enabled === null ? {} : { enabled: p.enabled }),
        ...(p.kminBytes === null ? {} : { kminBytes: p.kminBytes }),
        ...(p.kmaxBytes === null ? {} : { kmaxBytes: p.kmaxBytes }),
        ...(p.pmax === null ? {} : { pmax: p.pmax }),
      };
      return onNode('switch', target.index, { kind: 'ecn', port, priority: p.priority, change }, { kind: 'ecn', port, priority: p.priority, change: null });
    }
    case 'watchdog':
      return onNode('switch', node(p.node).index, { kind: 'watchdog', change: { enabled: p.enabled, ...(p.action === null ? {} : { action: p.action }) } }, { kind: 'watchdog', change: null });
    case 'packetEvent': {
      const qp = flowQp(pc, p.from, p.to, p.workload);
      const packetEvents = p.packets.map((index) => ({ qpn: qp.qpn, index, action: p.action }));
      return { start: (atPs) => [{ atPs, type: 'impair', node: node(p.from).index, port: 0, patch: { packetEvents } }], undo: null };
    }
    case 'kill': {
      const target = node(p.node);
      return {
        start: (atPs) => [{ atPs, type: 'kill', node: target.index, fault: fault.index }, ...allLinks(target, atPs, false)],
        undo: (atPs) => [{ atPs, type: 'restart', node: target.index, kill: fault.index }, ...allLinks(target, atPs, true)],
      };
    }
    case 'restart': {
      const target = node(p.node);
      return { start: (atPs) => [{ atPs, type: 'restart', node: target.index, kill: null }, ...allLinks(target, atPs, true)], undo: null };
    }
    case 'egressStuck':
    case 'egressSlow':
    case 'switchPauseStorm': {
      const target = node(p.node);
      const at = { port: portIndex(target, p.port), priority: p.priority };
      if (p.kind === 'egressSlow') return onNode('switch', target.index, { kind: 'egressSlow', ...at, bps: p.rateBps }, { kind: 'egressSlow', ...at, bps: null });
      const kind = p.kind === 'egressStuck' ? 'egressStuck' : 'pauseStorm';
      return onNode('switch', target.index, { kind, ...at, on: true }, { kind, ...at, on: false });
    }
  }
}

/** The QP a packet event acts on: the flow from→to of `workload`, or the first (by key) of any workload; probes excepted. */
export function flowQp(pc: PodContext, from: string, to: string, workload: number | null): QpEnd {
  const qps = (pc.qps.get(from)?.requesters ?? []).filter((q) => q.peer.name === to && !q.probe);
  const qp = workload === null ? qps[0] : qps.find((q) => q.key === connectionKey(workload, from, to));
  if (qp === undefined) throw new FaultTargetError(`no flow from ${from} to ${to}${workload === null ? '' : ` in workload ${workload}`}: a packet event needs a workload that opens one`);
  return qp;
}

function nodeNamed(pod: PodSpec, name: string): NodeSpec {
  const node = pod.nodes.find((n) => n.name === name);
  if (node === undefined) throw new FaultTargetError(`no node ${name} in pod ${pod.name}`);
  return node;
}

function portIndex(node: NodeSpec, name: string): number {
  const port = node.ports.find((p) => p.name === name);
  if (port === undefined) throw new FaultTargetError(`${node.name} has no port ${name}`);
  return port.index;
}

/** (node index, port index) at both ends of the link attached at `end`. */
function linkEnds(pod: PodSpec, end: Endpoint): Array<[number, number]> {
  const n = nodeNamed(pod, end.node);
  const port = n.ports[portIndex(n, end.port)]!;
  return [
    [n.index, port.index],
    [port.peerNode, port.peerPort],
  ];
}

/** The transmit directions a loss or corrupt fault acts on, with their configured impairments. */
function directions(pod: PodSpec, end: Endpoint, which: 'both' | 'out' | 'in') {
  const [[a, ap], [b, bp]] = linkEnds(pod, end) as [[number, number], [number, number]];
  const out = [a, ap, pod.nodes[a]!.ports[ap]!.out.impairments] as const;
  const back = [b, bp, pod.nodes[b]!.ports[bp]!.out.impairments] as const;
  return which === 'out' ? [out] : which === 'in' ? [back] : [out, back];
}
