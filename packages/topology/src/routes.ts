/**
 * Static shortest-path routes with all equal-cost next hops (the ECMP sets of DESIGN §5), by
 * hop count over the link graph. Hosts are never transit, so the distances to a host are those
 * to the switch it hangs from plus one: one BFS per such switch (a ToR) serves all its hosts,
 * and a pod costs O(ToRs · (nodes + links) + hosts · nodes). Every switch's table is made in
 * that one pass and kept per pod (a process hosting many switches asks for each). Links are
 * taken as wired: `down` impairments and faults are runtime state, handled by whoever forwards.
 */
import type { EcmpOrder } from '@rocelab/switch';
import type { NodeSpec, PodSpec } from './pod.js';

export interface Route {
  /** Destination host IPv4 address (uint32). */
  ip: number;
  /** Indices of this node's ports on a shortest path to it: ascending, or in `hpcc-bfs` order (`routeTable`). */
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
 * made on its own. `order` `hpcc-bfs` lists each route's next hops as HPCC ns-3 does.
 */
export function routeTable(pod: PodSpec, nodeIndex: number, order: EcmpOrder = 'port'): Route[] {
  const node = pod.nodes[nodeIndex];
  if (!node) throw new RangeError(`no node with index ${nodeIndex} in pod ${pod.name}`);
  if (node.role === 'host') return tablesOf(pod, [nodeIndex]).get(nodeIndex)!;
  if (order === 'hpcc-bfs') return hpccOrdered(pod, node, routeTable(pod, nodeIndex));
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

/**
 * HPCC ns-3's next-hop order (PHYSICS §8.2; third.cc `CalculateRoute`, then `SetRoutingEntries`
 * and switch-node.cc `AddTableEntry`, which appends in list order): a BFS from each destination
 * host, in which every dequeued node `now` walks its neighbours in `std::map<Ptr<Node>, …>`
 * order and appends itself to `nextHop[next][host]` of each neighbour one hop farther. So a
 * switch's next hops toward a host are listed in the order the BFS dequeued them. The queue only
 * grows with switches (a host is reached but never enqueued).
 *
 * ASSUMPTION (hpcc-node-order): the map's order is that of the nodes' addresses, and in the
 * simulator as built (9f4be2a, glibc) they fall as node ids grow, so neighbours are walked in
 * DESCENDING node id: measured on its traces, every ECMP choice of 340 flows on mix/fat.txt, 200
 * on a 26-node Clos and a pod whose host and switch ids interleave (1,840 hops) agrees with this
 * order and none with ascending ids. rocelab takes the node index as the id (names sorting as
 * the ids, e.g. `n000`…).
 */
function hpccOrdered(pod: PodSpec, node: NodeSpec, routes: readonly Route[]): Route[] {
  const ranks = hpccRanks(pod);
  return routes.map((route) => {
    const rank = ranks(route.ip);
    if (rank === null || route.ports.length < 2) return route;
    // Parallel links to one peer tie (HPCC keeps one interface per neighbour pair): by port index.
    const key = (p: number) => rank[node.ports[p]!.peerNode]!;
    return { ip: route.ip, ports: [...route.ports].sort((a, b) => key(a) - key(b) || a - b) };
  });
}

const rankCache = new WeakMap<PodSpec, (ip: number) => Int32Array | null>();

/**
 * Per destination IP, each node's position in HPCC's BFS queue from that host (-1: not
 * enqueued). A host hanging from one switch shares its switch's ranks: from the host the queue
 * is [host, switch, …] and then the same as from the switch, the host being visited and never
 * enqueued either way, so the order among switches is the same.
 */
function hpccRanks(pod: PodSpec): (ip: number) => Int32Array | null {
  const cached = rankCache.get(pod);
  if (cached !== undefined) return cached;
  const neighbours = pod.nodes.map((n) => [...new Set(n.ports.map((p) => p.peerNode))].sort((a, b) => b - a));
  const bfs = (from: number): Int32Array => {
    const rank = new Int32Array(pod.nodes.length).fill(-1);
    const queue = [from];
    rank[from] = 0;
    for (let head = 0; head < queue.length; head++) {
      for (const next of neighbours[queue[head]!]!) {
        if (rank[next] !== -1 || pod.nodes[next]!.role === 'host') continue;
        rank[next] = queue.length;
        queue.push(next);
      }
    }
    return rank;
  };
  const byIp = new Map<number, NodeSpec>();
  for (const n of pod.nodes) if (n.role === 'host') byIp.set(n.ip, n);
  const byStart = new Map<number, Int32Array>();
  const ranks = (ip: number): Int32Array | null => {
    const host = byIp.get(ip);
    if (host === undefined) return null;
    const single = host.ports.length === 1 && pod.nodes[host.ports[0]!.peerNode]!.role !== 'host';
    const start = single ? host.ports[0]!.peerNode : host.index;
    let rank = byStart.get(start);
    if (rank === undefined) byStart.set(start, (rank = bfs(start)));
    return rank;
  };
  rankCache.set(pod, ranks);
  return ranks;
}
