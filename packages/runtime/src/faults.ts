/**
 * Faults as engine events (the runtime's part of the fault table, @rocelab/topology
 * `FAULT_KINDS`): each kind becomes link-state changes (class 2) at both ends of a link,
 * impairment patches of link directions, or typed changes for the switch or NIC it targets
 * (class 1) — at its time and, for a fault with `for`, the undoing at its end. Only the events
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
import type { PodContext } from './models.js';

/** Events one fault may schedule (a flap of 1,000 cycles: 4,000 link-state events). */
const STRIDE = 4096;

/** A fault the pod cannot carry out (e.g. a packet event for a flow no workload opens). */
export class FaultTargetError extends Error {}

type FaultEvent =
  | { atPs: number; type: 'link'; node: number; port: number; up: boolean }
  | { atPs: number; type: 'impair'; node: number; port: number; patch: { loss?: number; dropIpIdLowByte?: number | null; corrupt?: number; packetEvents?: Array<{ qpn: number; index: number; action: 'drop' | 'ecn' | 'corrupt' }> } }
  | { atPs: number; type: 'switch'; node: number; fault: SwitchFault }
  | { atPs: number; type: 'nic'; node: number; fault: NicFault };

export function scheduleFault(engine: Engine, pc: PodContext, fault: FaultSpec, hosted: ReadonlySet<number>): void {
  faultEvents(pc, fault).forEach((e, k) => {
    if (!hosted.has(e.node)) return;
    const seq = fault.index * STRIDE + k;
    const note = `${fault.kind} ${fault.target}${e.atPs === fault.atPs ? '' : ' ends'}`;
    switch (e.type) {
      case 'link':
        return engine.scheduleLinkState(e.atPs, seq, e.node, e.port, e.up);
      case 'impair':
        return engine.scheduleImpairments(e.atPs, seq, e.node, e.port, e.patch, note);
      case 'switch':
      case 'nic':
        return engine.scheduleFault(e.atPs, seq, e.node, 1, e.fault, note);
    }
  });
}

/** Every engine event of `fault`, in a fixed order (whatever hosts them). */
export function faultEvents(pc: PodContext, fault: FaultSpec): FaultEvent[] {
  const { pod } = pc;
  const p = fault.params;
  const at = fault.atPs;
  const end = fault.forPs === null ? null : at + fault.forPs;
  const node = (name: string) => nodeNamed(pod, name);
  const both = (link: Endpoint, atPs: number, up: boolean): FaultEvent[] => linkEnds(pod, link).map(([n, port]) => ({ atPs, type: 'link', node: n, port, up }));
  const lasting = <T extends FaultEvent>(start: T, undo: T | null): FaultEvent[] => (end === null || undo === null ? [start] : [start, undo]);
  switch (p.kind) {
    case 'linkDown':
      return [...both(p.link, at, false), ...(end === null ? [] : both(p.link, end, true))];
    case 'linkUp':
      return both(p.link, at, true);
    case 'linkFlap':
      return Array.from({ length: p.count }, (_, i) => [...both(p.link, at + i * p.periodPs, false), ...both(p.link, at + i * p.periodPs + Math.floor(p.periodPs / 2), true)]).flat();
    case 'loss':
    case 'corrupt':
      return directions(pod, p.link, p.direction).flatMap(([n, port, base]) => {
        const patch = p.kind === 'loss' ? { loss: p.rate, dropIpIdLowByte: p.dropIpIdLowByte } : { corrupt: p.rate };
        const undo = p.kind === 'loss' ? { loss: base.loss, dropIpIdLowByte: base.dropIpIdLowByte } : { corrupt: base.corrupt };
        return lasting({ atPs: at, type: 'impair', node: n, port, patch }, end === null ? null : { atPs: end, type: 'impair', node: n, port, patch: undo });
      });
    case 'nicPauseStorm': {
      const n = node(p.node).index;
      return lasting({ atPs: at, type: 'nic', node: n, fault: { kind: 'nicPauseStorm', on: true } }, end === null ? null : { atPs: end, type: 'nic', node: n, fault: { kind: 'nicPauseStorm', on: false } });
    }
    case 'slowReceiver': {
      const n = node(p.node).index;
      return lasting({ atPs: at, type: 'nic', node: n, fault: { kind: 'drainRate', drainBps: p.drainBps } }, end === null ? null : { atPs: end, type: 'nic', node: n, fault: { kind: 'drainRate', drainBps: null } });
    }
    case 'macFlush':
      return [{ atPs: at, type: 'switch', node: node(p.node).index, fault: { kind: 'macFlush', mac: p.host === null ? null : node(p.host).mac } }];
    case 'arpExpire':
      return [{ atPs: at, type: 'switch', node: node(p.node).index, fault: { kind: 'arpExpire', ip: p.host === null ? null : node(p.host).ip } }];
    case 'pfcMisconfig': {
      const target = node(p.node);
      if (target.role === 'host') {
        return lasting({ atPs: at, type: 'nic', node: target.index, fault: { kind: 'pfc', enabled: p.enabled } }, end === null ? null : { atPs: end, type: 'nic', node: target.index, fault: { kind: 'pfc', enabled: null } });
      }
      const port = p.port === null ? null : portIndex(target, p.port);
      const change = { ...(p.enabled === null ? {} : { lossless: p.enabled }), ...(p.xoffBytes === null ? {} : { xoffBytes: p.xoffBytes, xonBytes: p.xonBytes! }) };
      return lasting({ atPs: at, type: 'switch', node: target.index, fault: { kind: 'pfc', port, priority: p.priority, change } }, end === null ? null : { atPs: end, type: 'switch', node: target.index, fault: { kind: 'pfc', port, priority: p.priority, change: null } });
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
      return lasting(
        { atPs: at, type: 'switch', node: target.index, fault: { kind: 'ecn', port, priority: p.priority, change } },
        end === null ? null : { atPs: end, type: 'switch', node: target.index, fault: { kind: 'ecn', port, priority: p.priority, change: null } },
      );
    }
    case 'watchdog': {
      const n = node(p.node).index;
      const change = { enabled: p.enabled, ...(p.action === null ? {} : { action: p.action }) };
      return lasting({ atPs: at, type: 'switch', node: n, fault: { kind: 'watchdog', change } }, end === null ? null : { atPs: end, type: 'switch', node: n, fault: { kind: 'watchdog', change: null } });
    }
    case 'packetEvent': {
      const qp = flowQp(pc, p.from, p.to, p.workload);
      const packetEvents = p.packets.map((index) => ({ qpn: qp.qpn, index, action: p.action }));
      return [{ atPs: at, type: 'impair', node: node(p.from).index, port: 0, patch: { packetEvents } }];
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
