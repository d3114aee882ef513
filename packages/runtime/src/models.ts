/**
 * The composition root of a node: which model runs for each role, built from the pod. Hosts
 * get the RDMA NIC with their queue pairs and workloads; ToRs, leaves, spines and plain
 * switches get the switch dataplane with routes computed from the topology. A node that
 * restarts after a `kill` gets a fresh model from the same place: a switch as at pod start, a
 * host's NIC without queue pairs or traffic (`rebooted`: its applications are gone).
 */
import { Engine } from '@rocelab/sim';
import { Host } from '@rocelab/host';
import { MemoryRegions, type CcPath, type NicProblem, type QpEnd } from '@rocelab/rnic';
import { planSwitch, Switch, type SwitchProblem } from '@rocelab/switch';
import { hostCpuOf, nicSettingsOf, routeTable, switchPortDirections, switchSettingsOf } from '@rocelab/topology';
import { DEFAULT_DSCP_MAP } from '@rocelab/wire';
import { hostTraffic } from '@rocelab/workload';
import { hostNames, linkRateOf } from './qp-plan.js';
import { leakEveryNth } from './debug.js';
import { AppHost } from './app-host.js';
import { ProgramHost } from './program-host.js';
import { hostPath, idealFctOf } from './ideal-paths.js';
import type { PodContext } from './pod-context.js';
import type { PodEngine, PodModel } from './pod-model.js';

/**
 * IRN's BDP cap for a QP (Mittal et al., SIGCOMM 2018, §3.2): its line rate times the base RTT
 * of its path — the ideal completion time of one MTU, out and ACKed — in MTUs, at least one.
 */
function bdpCapPackets(pc: PodContext, host: string, end: QpEnd): number {
  const node = pc.pod.nodes.find((n) => n.name === host)!;
  const { rateBps, mtu } = node.ports[0]!.out;
  const rttPs = idealFctOf(pc, host, end, mtu, 'write');
  if (rttPs === null) return 1;
  return Math.max(1, Math.ceil((rttPs * rateBps) / 8e12 / mtu));
}

const ccPaths = new WeakMap<PodContext, CcPath>();

/**
 * The pod's largest base RTT and bandwidth-delay product between two hosts, as HPCC ns-3's
 * third.cc computes `maxRtt` and `maxBdp` (GLOBAL_T 1: one for every QP): per host pair, twice
 * the path's propagation delay plus one MTU's serialization on each hop, times the path's
 * slowest link. HPCC's window and utilisation read them (issue 26). Computed once per pod.
 */
export function podCcPath(pc: PodContext): CcPath {
  let path = ccPaths.get(pc);
  if (path !== undefined) return path;
  const hosts = pc.pod.nodes.filter((n) => n.role === 'host');
  let baseRttPs = 0;
  let bdpBytes = 0;
  for (const a of hosts) {
    const mtu = a.ports[0]!.out.mtu;
    for (const b of hosts) {
      if (a === b) continue;
      const hops = hostPath(pc.pod, a.name, b.name, 0);
      if (hops === null) continue;
      let rtt = 0;
      let bw = Infinity;
      for (const h of hops) {
        rtt += 2 * h.latencyPs + Math.floor((mtu * 8 * 1e12) / h.rateBps);
        bw = Math.min(bw, h.rateBps);
      }
      baseRttPs = Math.max(baseRttPs, rtt);
      bdpBytes = Math.max(bdpBytes, Math.floor((rtt * bw) / 8e12));
    }
  }
  path = { baseRttPs, bdpBytes: Math.max(1, bdpBytes) };
  ccPaths.set(pc, path);
  return path;
}

/** How a model is built: at pod start, or for a node that boots again after a `kill`. */
export interface ModelOptions {
  rebooted: boolean;
}

export function createModel(engine: PodEngine, pc: PodContext, index: number, options: ModelOptions = { rebooted: false }): PodModel {
  const { pod } = pc;
  const node = pod.nodes[index]!;
  const ctx = engine.context(index);
  const peerMac = (port: number) => pod.nodes[node.ports[port]!.peerNode]!.mac;
  if (node.role === 'host') {
    // The topology loader already checked these settings; a problem here is a bug.
    const problems: NicProblem[] = [];
    const settings = nicSettingsOf(pod, node, problems);
    if (problems.length > 0) throw new Error(`${node.name}: NIC settings: ${JSON.stringify(problems)}`);
    const qps = pc.qps.get(node.name)!;
    const cpu = hostCpuOf(pod, node);
    // A host that booted again runs no app: its memory and its QPs are gone.
    const app = options.rebooted ? undefined : pod.apps.find((a) => a.node === node.name);
    // A host that booted again runs no program either: they died with it.
    const programs = options.rebooted ? [] : pod.programs.filter((p) => p.node === node.name);
    const memory = app === undefined && programs.length === 0 ? undefined : new MemoryRegions();
    const host = new Host<AppHost | ProgramHost>(ctx, {
      ip: node.ip,
      mac: node.mac,
      gatewayMac: peerMac(0),
      requesters: qps.requesters,
      responders: qps.responders,
      traffic: hostTraffic(node.name, pc.workloads, { hosts: hostNames(pod), seed: pc.seed, linkRateBps: (h) => linkRateOf(pod, h), rng: (p) => ctx.rng(p) }),
      settings,
      wire: pc.wire,
      dscpMap: DEFAULT_DSCP_MAP,
      rebooted: options.rebooted,
      ...(memory === undefined ? {} : { memory }),
      bdpCapOf: (end) => bdpCapPackets(pc, node.name, end),
      ...(settings.cc === 'hpcc' || (settings.window.enabled && settings.window.bytes === null) ? { ccPath: podCcPath(pc) } : {}),
      ...(cpu === null ? {} : { cpu }),
    });
    if (app !== undefined) {
      const machine = pc.appMachines.get(node.name);
      if (machine === undefined) throw new Error(`${node.name}: its app's machine was not prepared (prepareApps before the engine is built; a bug)`);
      pc.appMachines.delete(node.name);
      host.attachApp(new AppHost(ctx, host as Host<AppHost>, app, pc.appRegions, memory!, qps, pod, machine));
    }
    if (programs.length > 0) host.attachApp(new ProgramHost(ctx, host as Host<ProgramHost>, programs, memory!, pod));
    return host;
  }
  // The topology loader already checked these settings; a problem here is a bug.
  const problems: SwitchProblem[] = [];
  const settings = switchSettingsOf(pod, node, problems);
  const plan = planSwitch(settings, node.ports, problems);
  if (plan === null || problems.length > 0) throw new Error(`${node.name}: switch settings: ${JSON.stringify(problems)}`);
  return new Switch(ctx, {
    mac: node.mac,
    peerMacs: node.ports.map((p) => peerMac(p.index)),
    routes: routeTable(pod, index, settings.ecmpOrder),
    attachedHosts: node.ports.flatMap((p) => {
      const peer = pod.nodes[p.peerNode]!;
      return peer.role === 'host' ? [{ ip: peer.ip, mac: peer.mac, port: p.index }] : [];
    }),
    settings,
    plan,
    accounting: pc.wire.accounting,
    ...(settings.tagger === null ? {} : { portDirections: switchPortDirections(pod, node) ?? [] }),
  });
}

/** Builds a node's model; tests inject scripted models through it. */
export type ModelFactory = (engine: PodEngine, pc: PodContext, index: number, options?: ModelOptions) => PodModel;

/** An engine hosting `hosted` node indices of the pod, every model attached; restarted nodes get theirs from `factory` too. */
export function buildEngine(
  pc: PodContext,
  hosted: readonly number[],
  debugUncountedLoss: string | null = null,
  factory: ModelFactory = createModel,
  /** A member rejoining a running pod: its engine starts at `startPs`, its nodes booted afresh (`rebooted`). */
  start: { startPs: number; rebooted: boolean } = { startPs: 0, rebooted: false },
): PodEngine {
  const engine = new Engine<PodModel>({ seed: pc.seed, nodes: pc.pod.nodes, hosted, wire: pc.wire, startPs: start.startPs });
  for (const index of hosted) {
    const model = factory(engine, pc, index, { rebooted: start.rebooted });
    engine.attach(index, pc.pod.nodes[index]!.name === debugUncountedLoss ? leakEveryNth(model) : model);
  }
  engine.onRestart((index) => factory(engine, pc, index, { rebooted: true }));
  return engine;
}
