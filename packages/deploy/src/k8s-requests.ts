/**
 * Resource requests of the Kubernetes manifests (`rocelab k8s`): what one member process costs,
 * from measurements of the run results' `rssMiBPerNode` (process RSS divided by the nodes it
 * hosts) and of CPU time, as a process base plus a cost per node it hosts.
 *
 * Measured on 2 shared cores, Node 20.20, `rocelab run … --duration 1ms --json` (200 µs for the Clos):
 *
 *   deploy/pods/default.yaml --mode procs (26 processes of 1 node)   rssMiBPerNode 72.2 (pss 31.8),
 *                                                                    33.9 CPU-s for 1 ms virtual
 *   deploy/pods/default.yaml --workers 2 (2 processes of 13 nodes)   rssMiBPerNode 6.5 = 84.5 MiB a process,
 *                                                                    5.7 CPU-s for 1 ms virtual
 *   128-host Clos (4×4×4×4×8) --workers 1 (1 process of 164 nodes)   rssMiBPerNode 0.7 = 115 MiB a process
 *
 * Memory: a process holding one node is 72 MiB; each further node adds (84.5 − 72.2) / 12 ≈ 1.0
 * MiB in the default pod (0.26 in the idler Clos; the larger is kept). RSS, not PSS: a container
 * is charged for every page it touches, shared or not. CPU, solving the two default-pod runs for
 * a per-process and a per-node cost (27 and 3 processes, 26 nodes, start-up included, so an
 * overestimate): ≈ 1.18 CPU-s per process and 0.13 CPU-s per node for each virtual millisecond
 * at full speed; at a dilation of D wall seconds per virtual second that is divided by D. A
 * member is one Node thread: no request above one core.
 *
 * Only requests, no limits: a memory limit that the OOM killer enforces loses the member's
 * nodes mid-run (the pod carries on without them); set limits with a LimitRange if needed.
 */

/** RSS of a member process hosting one node, MiB (the procs run above). */
export const MEMBER_BASE_MIB = 72;
/** RSS each further node adds to a member process, MiB (the workers run above). */
export const NODE_MIB = 1;
/** CPU-seconds a member process spends per virtual second at full speed, whatever it hosts. */
export const MEMBER_CPU_S_PER_VIRTUAL_S = 1180;
/** CPU-seconds each node adds per virtual second at full speed. */
export const NODE_CPU_S_PER_VIRTUAL_S = 130;

const MIN_MILLICORES = 10;
const MAX_MILLICORES = 1000;

export interface Requests {
  cpu: string;
  memory: string;
}

/**
 * Requests of a process hosting `nodes` nodes (0: the controller, which hosts none) at
 * `dilation` wall seconds per virtual second (0: as fast as it can, one core).
 */
export function processRequests(nodes: number, dilation: number): Requests {
  const mib = MEMBER_BASE_MIB + NODE_MIB * Math.max(0, nodes - 1);
  const cpuSPerVirtualS = MEMBER_CPU_S_PER_VIRTUAL_S + NODE_CPU_S_PER_VIRTUAL_S * nodes;
  const millicores = dilation <= 0 ? MAX_MILLICORES : Math.min(MAX_MILLICORES, Math.max(MIN_MILLICORES, Math.ceil((1000 * cpuSPerVirtualS) / dilation)));
  return { cpu: `${millicores}m`, memory: `${Math.ceil(mib)}Mi` };
}
