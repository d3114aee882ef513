/**
 * A `shuffle` item's traffic at one host: one WRITE to every other host of the set, all at the
 * start time. The host in slot i posts to slots i+1, i+2, … (mod n), numbered seq 0, 1, …, so at
 * each position of the post order the hosts target distinct receivers rather than all hitting
 * the first host first.
 */
import { expandHosts } from './host-set.js';
import type { ShuffleWorkload } from './shuffle-schema.js';
import { connectionTo, noTraffic, writePost, type KindTraffic, type TrafficContext } from './traffic.js';

export function shuffleTraffic(shuffle: ShuffleWorkload, host: string, ctx: TrafficContext): KindTraffic {
  const hosts = expandHosts(shuffle.hosts, ctx.hosts);
  const slot = hosts.indexOf(host);
  if (slot < 0) return noTraffic();
  const n = hosts.length;
  const peers = Array.from({ length: n - 1 }, (_, j) => hosts[(slot + 1 + j) % n]!);
  return {
    posts: peers.map((to, seq) => writePost(shuffle.index, host, to, { atPs: shuffle.startPs, sizeBytes: shuffle.sizeBytes, slot, seq }))[Symbol.iterator](),
    connections: peers.map((to) => connectionTo(shuffle.index, host, to, shuffle)),
  };
}
