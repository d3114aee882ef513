/**
 * Which queue pairs exist in the pod, numbered deterministically: every host's connections
 * (from its workloads, known before the run) sorted by (sender, key), numbered from 1. Both
 * ends of a connection use the same number; every process computes the same plan.
 */
import { Rng } from '@rocelab/sim';
import type { HostPeer, QpEnd } from '@rocelab/rnic';
import type { PodSpec } from '@rocelab/topology';
import { hostTraffic, type ResolvedWorkload } from '@rocelab/workload';

export interface HostQps {
  requesters: QpEnd[];
  responders: QpEnd[];
}

export function hostNames(pod: PodSpec): string[] {
  return pod.nodes.filter((n) => n.role === 'host').map((n) => n.name);
}

/** A host's link rate (its single port), for the workloads that scale with it. */
export function linkRateOf(pod: PodSpec, host: string): number {
  return pod.nodes.find((n) => n.name === host)!.ports[0]!.out.rateBps;
}

export function qpPlan(pod: PodSpec, seed: number, workloads: readonly ResolvedWorkload[], hosts: ReadonlyMap<string, HostPeer>): Map<string, HostQps> {
  const names = hostNames(pod);
  const plan = new Map<string, HostQps>(names.map((h) => [h, { requesters: [], responders: [] }]));
  const all: Array<{ from: string; c: ReturnType<ReturnType<typeof hostTraffic>['connections']>[number] }> = [];
  for (const from of names) {
    // connections() draws nothing: a throwaway generator with fresh streams only lists them.
    const traffic = hostTraffic(from, workloads, { hosts: names, seed, linkRateBps: (h) => linkRateOf(pod, h), rng: (p) => new Rng(seed, from, p) });
    for (const c of traffic.connections()) all.push({ from, c });
  }
  all.sort((x, y) => (x.from < y.from ? -1 : x.from > y.from ? 1 : x.c.key < y.c.key ? -1 : x.c.key > y.c.key ? 1 : 0));
  all.forEach(({ from, c }, i) => {
    const qpn = i + 1;
    const common = { qpn, key: c.key, probe: c.probe, dscp: c.dscp, rateCapBps: c.rateBps };
    plan.get(from)!.requesters.push({ ...common, peer: hosts.get(c.to)! });
    plan.get(c.to)!.responders.push({ ...common, peer: hosts.get(from)! });
  });
  return plan;
}
