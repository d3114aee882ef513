/**
 * The graph facts of an HPCC ns-3 topology the import needs (`import-hpcc-pod.ts`): tiers by
 * distance from the hosts, host addresses; and the
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

