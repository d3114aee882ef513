/**
 * The graph facts of an HPCC ns-3 topology the import needs (`import-hpcc-pod.ts`): the base RTT
 * the simulator's route BFS gives, tiers by distance from the hosts, host addresses; and the
 * texts of rates, durations and id lists as the pod and its warnings write them.
 */
import type { HpccTopology } from './import-hpcc-files.js';

export function rateText(bps: number): string | number {
  for (const [unit, scale] of [['G', 1e9], ['M', 1e6], ['K', 1e3]] as const) if (bps % scale === 0) return `${bps / scale}${unit}`;
  return bps;
}

export function durationText(ps: number): string {
  for (const [unit, scale] of [['s', 1e12], ['ms', 1e9], ['us', 1e6], ['ns', 1e3]] as const) if (ps % scale === 0) return `${ps / scale}${unit}`;
  return `${ps}ps`;
}

/** The simulator's BFS of third.cc `CalculateRoute` from each host: the largest base RTT over host pairs, in ns (`maxRtt`). */
export function hpccMaxRttNs(topo: HpccTopology, payloadBytes: number): number {
  const nbrs = Array.from({ length: topo.nodeCount }, () => [] as Array<{ peer: number; delayNs: number; bps: number }>);
  for (const l of topo.links) {
    nbrs[l.a]!.push({ peer: l.b, delayNs: l.delayPs / 1e3, bps: l.rateBps });
    nbrs[l.b]!.push({ peer: l.a, delayNs: l.delayPs / 1e3, bps: l.rateBps });
  }
  // nbr2if is a std::map keyed by node pointer, created in id order.
  for (const list of nbrs) list.sort((x, y) => x.peer - y.peer);
  let maxRtt = 0;
  for (let h = 0; h < topo.nodeCount; h++) {
    if (topo.switches.has(h)) continue;
    const delay = new Map<number, number>([[h, 0]]);
    const tx = new Map<number, number>([[h, 0]]);
    const queue = [h];
    for (let i = 0; i < queue.length; i++) {
      const now = queue[i]!;
      for (const { peer, delayNs, bps } of nbrs[now]!) {
        if (delay.has(peer)) continue;
        delay.set(peer, delay.get(now)! + delayNs);
        tx.set(peer, tx.get(now)! + Math.floor((payloadBytes * 1e9 * 8) / bps));
        if (topo.switches.has(peer)) queue.push(peer);
      }
    }
    for (const [node, d] of delay) if (!topo.switches.has(node)) maxRtt = Math.max(maxRtt, 2 * d + tx.get(node)!);
  }
  return maxRtt;
}

/** Tiers by distance from the hosts: next to hosts a ToR, then leaf, then spine; anything farther the generic `switch`. */
export function roles(topo: HpccTopology): string[] {
  const dist = new Array<number>(topo.nodeCount).fill(Infinity);
  const queue: number[] = [];
  for (let id = 0; id < topo.nodeCount; id++) {
    if (topo.switches.has(id)) continue;
    dist[id] = 0;
    queue.push(id);
  }
  const nbrs = Array.from({ length: topo.nodeCount }, () => [] as number[]);
  for (const l of topo.links) {
    nbrs[l.a]!.push(l.b);
    nbrs[l.b]!.push(l.a);
  }
  for (let i = 0; i < queue.length; i++) {
    for (const p of nbrs[queue[i]!]!) {
      if (dist[p] !== Infinity) continue;
      dist[p] = dist[queue[i]!]! + 1;
      queue.push(p);
    }
  }
  return dist.map((d, id) => (!topo.switches.has(id) ? 'host' : (['tor', 'leaf', 'spine'][d - 1] ?? 'switch')));
}

/** third.cc `node_id_to_ip`: 0x0b000001 + (id / 256) · 2¹⁶ + (id % 256) · 2⁸, i.e. 11.(id/256).(id%256).1. */
export function hpccHostIp(id: number): string {
  const ip = 0x0b000001 + Math.floor(id / 256) * 0x10000 + (id % 256) * 0x100;
  return [24, 16, 8, 0].map((s) => (ip >>> s) & 0xff).join('.');
}

