/**
 * The composition root of a node: which model runs for each role, built from the pod. Hosts
 * get the NIC model with their flows; ToRs, leaves, spines and plain switches get the switch
 * dataplane with routes computed from the topology.
 */
import { DEFAULT_WIRE_MODEL, Engine, type NodeModel, type WireModel } from '@rocelab/sim';
import { Host, type HostPeer } from '@rocelab/rnic';
import { planSwitch, Switch, type SwitchProblem } from '@rocelab/switch';
import { flowWorkloads, routeTable, switchSettingsOf, type PodSpec, type Profile } from '@rocelab/topology';
import type { FlowWorkload } from '@rocelab/workload';
import { leakEveryNth } from './debug.js';

/** How each profile counts bytes and time on the wire (DESIGN §5, PHYSICS §7). */
export function wireModelFor(profile: Profile): WireModel {
  return profile === 'hpcc-ns3' ? { accounting: 'hpcc-ns3', truncateToNs: true, pauseUntilResume: true } : DEFAULT_WIRE_MODEL;
}

/** Pod-wide inputs every model may need, computed once per process. */
export interface PodContext {
  pod: PodSpec;
  wire: WireModel;
  flows: FlowWorkload[];
  hosts: Map<string, HostPeer>;
}

export function podContext(pod: PodSpec): PodContext {
  const hosts = new Map<string, HostPeer>();
  for (const node of pod.nodes) if (node.role === 'host') hosts.set(node.name, { name: node.name, ip: node.ip, mac: node.mac });
  return { pod, wire: wireModelFor(pod.profile), flows: flowWorkloads(pod), hosts };
}

export function createModel(engine: Engine, pc: PodContext, index: number): NodeModel {
  const { pod } = pc;
  const node = pod.nodes[index]!;
  const ctx = engine.context(index);
  const peerMac = (port: number) => pod.nodes[node.ports[port]!.peerNode]!.mac;
  if (node.role === 'host') {
    return new Host(ctx, {
      ip: node.ip,
      mac: node.mac,
      gatewayMac: peerMac(0),
      flows: pc.flows.filter((f) => f.from === node.name),
      hosts: pc.hosts,
      accounting: pc.wire.accounting,
    });
  }
  // The topology loader already checked these settings; a problem here is a bug.
  const problems: SwitchProblem[] = [];
  const settings = switchSettingsOf(pod, node, problems);
  const plan = planSwitch(settings, node.ports, problems);
  if (plan === null || problems.length > 0) throw new Error(`${node.name}: switch settings: ${JSON.stringify(problems)}`);
  return new Switch(ctx, {
    mac: node.mac,
    peerMacs: node.ports.map((p) => peerMac(p.index)),
    routes: routeTable(pod, index),
    attachedHosts: node.ports.flatMap((p) => {
      const peer = pod.nodes[p.peerNode]!;
      return peer.role === 'host' ? [{ ip: peer.ip, mac: peer.mac, port: p.index }] : [];
    }),
    settings,
    plan,
    accounting: pc.wire.accounting,
  });
}

/** Builds a node's model; tests inject scripted models through it. */
export type ModelFactory = (engine: Engine, pc: PodContext, index: number) => NodeModel;

/** An engine hosting `hosted` node indices of the pod, every model attached. */
export function buildEngine(
  pc: PodContext,
  seed: number,
  hosted: readonly number[],
  debugUncountedLoss: string | null = null,
  factory: ModelFactory = createModel,
): Engine {
  const engine = new Engine({ seed, nodes: pc.pod.nodes, hosted, wire: pc.wire });
  for (const index of hosted) {
    const model = factory(engine, pc, index);
    engine.attach(index, pc.pod.nodes[index]!.name === debugUncountedLoss ? leakEveryNth(model) : model);
  }
  return engine;
}
