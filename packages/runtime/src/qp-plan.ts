/**
 * Which queue pairs exist in the pod, numbered deterministically: every host's connections
 * (from its workloads, known before the run) sorted by (sender, key), numbered from FIRST_QPN. Both
 * ends of a connection use the same number; every process computes the same plan.
 */
import { Rng } from '@rocelab/sim';
import type { HostPeer, QpEnd } from '@rocelab/rnic';
import { HPCC_DPORT, HPCC_FIRST_SPORT, nicSettingsOf, type PodSpec } from '@rocelab/topology';
import { connectionWorkload, hostTraffic, type Connection, type ResolvedWorkload, type UdpPorts } from '@rocelab/workload';

export interface HostQps {
  requesters: QpEnd[];
  responders: QpEnd[];
}

/** The pod's host names, one frozen list per pod (workloads keep what they derive from it per list). */
export function hostNames(pod: PodSpec): readonly string[] {
  let names = hostNamesOf.get(pod);
  if (names === undefined) hostNamesOf.set(pod, (names = Object.freeze(pod.nodes.filter((n) => n.role === 'host').map((n) => n.name))));
  return names;
}

const hostNamesOf = new WeakMap<PodSpec, readonly string[]>();

/** A host's link rate (its single port), for the workloads that scale with it. */
export function linkRateOf(pod: PodSpec, host: string): number {
  return pod.nodes.find((n) => n.name === host)!.ports[0]!.out.rateBps;
}

/**
 * When the first message of the run is posted (any host, any workload): the time origin of the
 * trace files. Each host's first post is drawn from throwaway streams, as `qpPlan` lists
 * connections: the same (seed, host, purpose) streams the NIC draws from, so the same instant.
 */
export function firstPostPs(pod: PodSpec, seed: number, workloads: readonly ResolvedWorkload[]): number {
  const names = hostNames(pod);
  let first = Infinity;
  for (const from of names) {
    const traffic = hostTraffic(from, workloads, { hosts: names, seed, linkRateBps: (h) => linkRateOf(pod, h), rng: (p) => new Rng(seed, from, p) });
    first = Math.min(first, traffic.next()?.atPs ?? Infinity);
  }
  return Number.isFinite(first) ? first : 0;
}

/**
 * The first QP number: QP0 and QP1 are the InfiniBand management QPs (SMI and GSI, IBTA §3.5.5);
 * a capture tool decodes what is sent to them as management datagrams, so data QPs start at 2.
 */
export const FIRST_QPN = 2;

export function qpPlan(pod: PodSpec, seed: number, workloads: readonly ResolvedWorkload[], hosts: ReadonlyMap<string, HostPeer>): Map<string, HostQps> {
  const names = hostNames(pod);
  const plan = new Map<string, HostQps>(names.map((h) => [h, { requesters: [], responders: [] }]));
  const all: Array<{ from: string; c: Connection }> = [];
  for (const from of names) {
    // connections() draws nothing: a throwaway generator with fresh streams only lists them.
    const traffic = hostTraffic(from, workloads, { hosts: names, seed, linkRateBps: (h) => linkRateOf(pod, h), rng: (p) => new Rng(seed, from, p) });
    for (const c of traffic.connections()) all.push({ from, c });
  }
  all.sort((x, y) => (x.from < y.from ? -1 : x.from > y.from ? 1 : x.c.key < y.c.key ? -1 : x.c.key > y.c.key ? 1 : 0));
  const counted = hpccPorts(pod, all);
  all.forEach(({ from, c }, i) => {
    const qpn = FIRST_QPN + i;
    const common = { qpn, key: c.key, probe: c.probe, dscp: c.dscp, rateCapBps: c.rateBps, ...(c.transport === 'rdma' ? {} : { transport: c.transport }) };
    const ports = c.udpPorts ?? counted.get(c);
    plan.get(from)!.requesters.push({ ...common, peer: hosts.get(c.to)!, ...(ports === undefined ? {} : { udpPorts: { src: ports.src, dst: ports.dst } }) });
    plan.get(c.to)!.responders.push({ ...common, peer: hosts.get(from)!, ...(ports === undefined ? {} : { udpPorts: { src: ports.dst, dst: ports.src } }) });
  });
  // Applications (issue 13): a memory-backed connection each way between every two hosts that run one.
  let qpn = FIRST_QPN + all.length;
  for (const a of pod.apps) {
    for (const b of pod.apps) {
      if (a === b) continue;
      const common = { qpn: qpn++, key: appConnectionKey(b.node), probe: false, dscp: a.dscp, rateCapBps: null, memory: true };
      plan.get(a.node)!.requesters.push({ ...common, peer: hosts.get(b.node)! });
      plan.get(b.node)!.responders.push({ ...common, peer: hosts.get(a.node)! });
    }
  }
  return plan;
}

/**
 * The ports of RDMA connections without their own whose sender's NIC says `udpPorts: hpcc-ns3` (PHYSICS §8.1):
 * third.cc `ScheduleFlowInputs` gives each flow `portNumder[src][dst]++` (from 10000 per host
 * pair, in flow-file order) and the flow's destination port. Here a connection stands for a
 * flow, in workload order (then key): a `flow` item is one, listed in the flow file's order; a
 * generated workload's connection to a peer carries all its messages on one port pair.
 */
function hpccPorts(pod: PodSpec, all: ReadonlyArray<{ from: string; c: Connection }>): Map<Connection, UdpPorts> {
  const ports = new Map<Connection, UdpPorts>();
  const rule = new Map<string, boolean>();
  const wanted = all.filter(({ from, c }) => {
    if (c.udpPorts !== undefined || c.transport !== 'rdma') return false;
    let on = rule.get(from);
    if (on === undefined) rule.set(from, (on = nicSettingsOf(pod, pod.nodes.find((n) => n.name === from)!).udpPorts === 'hpcc-ns3'));
    return on;
  });
  const order = (x: { c: Connection }) => connectionWorkload(x.c.key) ?? Number.MAX_SAFE_INTEGER;
  wanted.sort((x, y) => order(x) - order(y) || (x.c.key < y.c.key ? -1 : x.c.key > y.c.key ? 1 : 0));
  const next = new Map<string, number>();
  for (const { from, c } of wanted) {
    const pair = `${from}->${c.to}`;
    const sport = next.get(pair) ?? HPCC_FIRST_SPORT;
    if (sport > 0xffff) throw new Error(`${from} opens more than ${0xffff - HPCC_FIRST_SPORT + 1} connections to ${c.to}: HPCC's port counter (from ${HPCC_FIRST_SPORT}) runs out of UDP ports`);
    next.set(pair, sport + 1);
    ports.set(c, { src: sport, dst: HPCC_DPORT });
  }
  return ports;
}

/** The key of an app's connection to `peer` (workload keys never start with `app:`). */
export function appConnectionKey(peer: string): string {
  return `app:${peer}`;
}
