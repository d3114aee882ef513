/**
 * What every model of a pod may need, computed once per process from the pod file and the run's
 * seed: the wire model of its profile, the resolved workloads, the hosts' addresses and queue
 * pairs, the run's start, and the apps' regions and machines.
 */
import { DEFAULT_WIRE_MODEL, type WireModel } from '@rocelab/sim';
import type { Machine } from '@rocelab/app';
import type { HostPeer } from '@rocelab/rnic';
import { resolvedWorkloads, type PodSpec, type Profile } from '@rocelab/topology';
import type { ResolvedWorkload } from '@rocelab/workload';
import { appRegions, prepareAppMachines, type RegionEntry } from './app-host.js';
import { firstPostPs, qpPlan, type HostQps } from './qp-plan.js';

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

