/**
 * Static shortest-path routes with all equal-cost next hops (the ECMP sets of DESIGN §5), by
 * hop count over the link graph. One BFS per destination host, so a whole pod costs
 * O(hosts · (nodes + links)). Links are taken as wired: `down` impairments and faults are
 * runtime state, handled by whoever forwards.
 */
import type { PodSpec } from './pod.js';

export interface Route {
  /** Destination host IPv4 address (uint32). */
  ip: number;
  /** Indices of this node's ports on a shortest path to it, ascending. */
  ports: number[];
}

/** Hop distance of every node to `dst`; -1 when unreachable. Hosts other than `dst` are not transit. */
function distancesTo(pod: PodSpec, dst: number): Int32Array {
  const dist = new Int32Array(pod.nodes.length).fill(-1);
  const queue = [dst];
  dist[dst] = 0;
  for (let head = 0; head < queue.length; head++) {
    const node = pod.nodes[queue[head]!]!;
    if (node.role === 'host' && node.index !== dst) continue;
    for (const port of node.ports) {
      if (dist[port.peerNode] === -1) {
        dist[port.peerNode] = dist[node.index]! + 1;
        queue.push(port.peerNode);
      }
    }
  }
  return dist;
}

/** Calls `visit` with each host (ascending IP) and every node's hop distance to it. */
function forEachDestination(pod: PodSpec, visit: (ip: number, dist: Int32Array) => void): void {
  const hosts = pod.nodes.filter((n) => n.role === 'host').sort((x, y) => x.ip - y.ip);
  for (const dst of hosts) visit(dst.ip, distancesTo(pod, dst.index));
}

/** Node `index`'s route to a destination given the distances to it; null for itself or unreachable. */
function routeFrom(pod: PodSpec, index: number, ip: number, dist: Int32Array): Route | null {
  const d = dist[index]!;
  if (d <= 0) return null;
  const ports: number[] = [];
  for (const p of pod.nodes[index]!.ports) if (dist[p.peerNode] === d - 1) ports.push(p.index);
  return { ip, ports };
}

/**
 * Every node's routes, indexed by node index; each table sorted by destination IP. A host's
 * table lists its one port for every other reachable host; an unreachable host has no entry.
 */
export function routeTables(pod: PodSpec): Route[][] {
  const tables: Route[][] = pod.nodes.map(() => []);
  forEachDestination(pod, (ip, dist) => {
    for (let i = 0; i < tables.length; i++) {
      const route = routeFrom(pod, i, ip, dist);
      if (route) tables[i]!.push(route);
    }
  });
  return tables;
}

/** One node's routes (the same BFS work as `routeTables`, without building every other table). */
export function routeTable(pod: PodSpec, nodeIndex: number): Route[] {
  if (!pod.nodes[nodeIndex]) throw new RangeError(`no node with index ${nodeIndex} in pod ${pod.name}`);
  const table: Route[] = [];
  forEachDestination(pod, (ip, dist) => {
    const route = routeFrom(pod, nodeIndex, ip, dist);
    if (route) table.push(route);
  });
  return table;
}
