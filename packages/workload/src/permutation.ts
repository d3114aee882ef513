/**
 * A `permutation` item's traffic at one host: one WRITE to its image under the permutation.
 *
 * How hosts agree without talking: the permutation is the draw the set's first host (slot 0)
 * makes from its stream `workload:<index>`, and a stream is a pure function of (pod seed, node
 * name, purpose) (packages/sim rng.ts). So every host rebuilds that stream from `ctx.seed`, makes
 * the same draw and reads its own destination; the first host's own `ctx.rng` stream for that
 * purpose is left untouched.
 */
import { Rng } from '@rocelab/sim';
import { randomDerangement } from './derangement.js';
import { expandHosts } from './host-set.js';
import type { PermutationWorkload } from './permutation-schema.js';
import { connectionTo, noTraffic, workloadPurpose, writePost, type KindTraffic, type TrafficContext } from './traffic.js';

/**
 * Destination by slot: `hosts[i]` sends to `hosts[result[i]]`. Kept per host list: a process
 * hosting every host (inproc, a worker) asks the same question once per host, and drawing a
 * derangement each time would cost hosts² draws.
 */
export function permutationOf(workload: number, hosts: readonly string[], seed: number): readonly number[] {
  let byDraw = drawn.get(hosts);
  if (byDraw === undefined) drawn.set(hosts, (byDraw = new Map()));
  const key = `${seed}/${workload}`;
  let perm = byDraw.get(key);
  if (perm === undefined) byDraw.set(key, (perm = Object.freeze(randomDerangement(hosts.length, new Rng(seed, hosts[0]!, workloadPurpose(workload))))));
  return perm;
}

/** Per host list (`expandHosts` shares them), per seed and workload. */
const drawn = new WeakMap<readonly string[], Map<string, readonly number[]>>();

export function permutationTraffic(perm: PermutationWorkload, host: string, ctx: TrafficContext): KindTraffic {
  const hosts = expandHosts(perm.hosts, ctx.hosts);
  const slot = hosts.indexOf(host);
  if (slot < 0 || hosts.length < 2) return noTraffic();
  const to = hosts[permutationOf(perm.index, hosts, ctx.seed)[slot]!]!;
  return {
    posts: [writePost(perm.index, host, to, { atPs: perm.startPs, sizeBytes: perm.sizeBytes, slot, seq: 0 })][Symbol.iterator](),
    connections: [connectionTo(perm.index, host, to, perm)],
  };
}
