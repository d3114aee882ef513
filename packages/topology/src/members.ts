/**
 * A pod's members: the processes (or containers, or Kubernetes pods) its nodes run in when
 * they do not all share one — one per node (`procs`: the switch and host services), or K
 * workers that each host a part (`--workers K`, `partitionPod`). Local processes, containers,
 * Swarm services and Kubernetes pods all plan their members here, so they agree.
 */
import { partitionPod } from './partition.js';
import type { PodSpec } from './pod.js';

/** What a member runs: the switch or the host service (one node), or a worker (several). */
export type MemberEntry = 'switch' | 'host' | 'worker';

export interface MemberPlan {
  id: string;
  nodes: string[];
  entry: MemberEntry;
}

/**
 * `procs`: every node its own process; `workers`: K parts that keep neighbours together and
 * share the load (`partitionPod`; fewer when the pod has fewer switches than K).
 */
export function planMembers(pod: PodSpec, workers: number | null): MemberPlan[] {
  if (workers === null) {
    return pod.nodes.map((n) => ({ id: n.name, nodes: [n.name], entry: n.role === 'host' ? 'host' : 'switch' }));
  }
  return partitionPod(pod, workers).map((part, w) => ({ id: `w${w + 1}`, nodes: part.map((i) => pod.nodes[i]!.name), entry: 'worker' }));
}
