/**
 * Static shortest-path routes with all equal-cost next hops (the ECMP sets of DESIGN §5), by
 * hop count over the link graph. Hosts are never transit, so the distances to a host are those
 * to the switch it hangs from plus one: one BFS per such switch (a ToR) serves all its hosts,
 * and a pod costs O(ToRs · (nodes + links) + hosts · nodes). Every switch's table is made in
 * that one pass and kept per pod (a process hosting many switches asks for each). Links are
 * taken as wired: `down` impairments and faults are runtime state, handled by whoever forwards.
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

/**
 * Calls `visit` with each host (ascending IP) and every node's hop distance to it. A host with
 * one link is reached through its neighbour: the neighbour's distances (one BFS, shared by all
 * the hosts there) plus one, and 0 for the host itself — exactly what a BFS from the host gives.
 */
function forEachDestination(pod: PodSpec, visit: (ip: number, dist: Int32Array) => void): void {
  const hosts = pod.nodes.filter((n) => n.role === 'host').sort((x, y) => x.ip - y.ip);
  const fromNeighbour = new Map<number, Int32Array>();
  const dist = new Int32Array(pod.nodes.length);
  for (const dst of hosts) {
    if (dst.ports.length !== 1 || pod.nodes[dst.ports[0]!.peerNode]!.role === 'host') {
      visit(dst.ip, distancesTo(pod, dst.index));
      continue;
    }
    const neighbour = dst.ports[0]!.peerNode;
    let base = fromNeighbour.get(neighbour);
    if (base === undefined) fromNeighbour.set(neighbour, (base = distancesTo(pod, neighbour)));
    for (let i = 0; i < dist.length; i++) dist[i] = base[i]! < 0 ? -1 : base[i]! + 1;
    dist[dst.index] = 0;
    visit(dst.ip, dist);
  }
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

const switchTables = new WeakMap<PodSpec, Map<number, Route[]>>();

/**
 * One node's routes. A switch's comes from the tables of every switch, made in one pass the
 * first time any is asked for and kept for the pod; a host's (a route to every other host) is
 * made on its own.
 */
export function routeTable(pod: PodSpec, nodeIndex: number): Route[] {
  const node = pod.nodes[nodeIndex];
  if (!node) throw new RangeError(`no node with index ${nodeIndex} in pod ${pod.name}`);
  if (node.role === 'host') return tablesOf(pod, [nodeIndex]).get(nodeIndex)!;
  let tables = switchTables.get(pod);
  if (tables === undefined) {
    tables = tablesOf(pod, pod.nodes.filter((n) => n.role !== 'host').map((n) => n.index));
    switchTables.set(pod, tables);
  }
  return tables.get(nodeIndex)!;
}

function tablesOf(pod: PodSpec, indices: readonly number[]): Map<number, Route[]> {
  const tables = new Map(indices.map((i) => [i, [] as Route[]]));
  forEachDestination(pod, (ip, dist) => {
    for (const [i, table] of tables) {
      const route = routeFrom(pod, i, ip, dist);
      if (route) table.push(route);
    }
  });
  return tables;
}
