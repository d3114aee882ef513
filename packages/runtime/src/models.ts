/**
 * The composition root of a node: which model runs for each role, built from the pod. Hosts
 * get the RDMA NIC with their queue pairs and workloads; ToRs, leaves, spines and plain
 * switches get the switch dataplane with routes computed from the topology. A node that
 * restarts after a `kill` gets a fresh model from the same place: a switch as at pod start, a
 * host's NIC without queue pairs or traffic (`rebooted`: its applications are gone).
 */
import { DEFAULT_WIRE_MODEL, Engine, type NodeModel, type WireModel } from '@rocelab/sim';
import { Host } from '@rocelab/host';
import { MemoryRegions, type HostPeer, type NicProblem, type QpEnd } from '@rocelab/rnic';
import { planSwitch, Switch, type SwitchProblem } from '@rocelab/switch';
import { nicSettingsOf, resolvedWorkloads, routeTable, switchPortDirections, switchSettingsOf, type PodSpec, type Profile } from '@rocelab/topology';
import { DEFAULT_DSCP_MAP } from '@rocelab/wire';
import { hostTraffic, type ResolvedWorkload } from '@rocelab/workload';
import { firstPostPs, hostNames, linkRateOf, qpPlan, type HostQps } from './qp-plan.js';
import { leakEveryNth } from './debug.js';
import type { Machine } from '@rocelab/app';
import { AppHost, appHostOf, appRegions, prepareAppMachines, type RegionEntry } from './app-host.js';
import { idealFctOf } from './ideal-paths.js';

/** How each profile counts bytes and time on the wire (DESIGN §5, PHYSICS §7). */
export function wireModelFor(profile: Profile): WireModel {
  return profile === 'hpcc-ns3' ? { accounting: 'hpcc-ns3', truncateToNs: true, pauseUntilResume: true } : DEFAULT_WIRE_MODEL;
}

/** Pod-wide inputs every model may need, computed once per process. */
export interface PodContext {
  pod: PodSpec;
  /** The run's seed (it may differ from the file's): workloads such as permutations depend on it. */
  seed: number;
  wire: WireModel;
  workloads: ResolvedWorkload[];
  hosts: Map<string, HostPeer>;
  qps: Map<string, HostQps>;
  /** The run's start: when its first message is posted (the origin of trace times). */
  startPs: number;
  /** Every app host's regions (issue 13); empty without apps. */
  appRegions: Map<string, RegionEntry[]>;
  /** A machine for each app this process runs (`prepareApps`), taken as its host's model is built. */
  appMachines: Map<string, Machine>;
}

export function podContext(pod: PodSpec, seed: number): PodContext {
  const hosts = new Map<string, HostPeer>();
  for (const node of pod.nodes) if (node.role === 'host') hosts.set(node.name, { name: node.name, ip: node.ip, mac: node.mac });
  const workloads = resolvedWorkloads(pod);
  const appRegionTable = pod.apps.length === 0 ? new Map<string, RegionEntry[]>() : appRegions(pod);
  return { pod, seed, wire: wireModelFor(pod.profile), workloads, hosts, qps: qpPlan(pod, seed, workloads, hosts), startPs: firstPostPs(pod, seed, workloads), appRegions: appRegionTable, appMachines: new Map() };
}

/** The machines of the apps among `hosted` (node indices), made before their engine is built. */
export async function prepareApps(pc: PodContext, hosted: readonly number[]): Promise<void> {
  if (pc.pod.apps.length === 0) return;
  const names = new Set(hosted.map((i) => pc.pod.nodes[i]!.name));
  for (const [node, machine] of await prepareAppMachines(pc.pod, names, pc.appRegions)) pc.appMachines.set(node, machine);
}

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

/** How a model is built: at pod start, or for a node that boots again after a `kill`. */
export interface ModelOptions {
  rebooted: boolean;
}

export function createModel(engine: Engine, pc: PodContext, index: number, options: ModelOptions = { rebooted: false }): NodeModel {
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
    // A host that booted again runs no app: its memory and its QPs are gone.
    const app = options.rebooted ? undefined : pod.apps.find((a) => a.node === node.name);
    const memory = app === undefined ? undefined : new MemoryRegions();
    const host = new Host(ctx, {
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
    });
    if (app !== undefined) {
      const machine = pc.appMachines.get(node.name);
      if (machine === undefined) throw new Error(`${node.name}: its app's machine was not prepared (prepareApps before the engine is built; a bug)`);
      pc.appMachines.delete(node.name);
      appHostOf.set(host, new AppHost(ctx, host, app, pc.appRegions, memory!, qps, pod, machine));
    }
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
    routes: routeTable(pod, index),
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
export type ModelFactory = (engine: Engine, pc: PodContext, index: number, options?: ModelOptions) => NodeModel;

/** An engine hosting `hosted` node indices of the pod, every model attached; restarted nodes get theirs from `factory` too. */
export function buildEngine(
  pc: PodContext,
  hosted: readonly number[],
  debugUncountedLoss: string | null = null,
  factory: ModelFactory = createModel,
  /** A member rejoining a running pod: its engine starts at `startPs`, its nodes booted afresh (`rebooted`). */
  start: { startPs: number; rebooted: boolean } = { startPs: 0, rebooted: false },
): Engine {
  const engine = new Engine({ seed: pc.seed, nodes: pc.pod.nodes, hosted, wire: pc.wire, startPs: start.startPs });
  for (const index of hosted) {
    const model = factory(engine, pc, index, { rebooted: start.rebooted });
    engine.attach(index, pc.pod.nodes[index]!.name === debugUncountedLoss ? leakEveryNth(model) : model);
  }
  engine.onRestart((index) => factory(engine, pc, index, { rebooted: true }));
  return engine;
}
