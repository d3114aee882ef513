/**
 * A `pingmesh` item's traffic at one host: every interval, one probe to each other host of the
 * set, spread evenly over the interval. With n hosts, the host in slot i sends its j-th probe of
 * round r (j = 0..n−2) to slot (i + 1 + j) mod n at
 *
 *     start + r·interval + ⌊j·interval / (n−1)⌋,       flow seq r·(n−1) + j
 *
 * so at each instant the probing hosts target distinct receivers (a rotation), never an incast
 * of probes on one host. Probes stop at `stop`, or never.
 */
import { expandHosts } from './host-set.js';
import type { PingmeshWorkload } from './pingmesh-schema.js';
import { connectionTo, noTraffic, writePost, type KindTraffic, type MessagePost, type TrafficContext } from './traffic.js';

export function pingmeshTraffic(mesh: PingmeshWorkload, host: string, ctx: TrafficContext): KindTraffic {
  const hosts = expandHosts(mesh.hosts, ctx.hosts);
  const slot = hosts.indexOf(host);
  if (slot < 0 || hosts.length < 2) return noTraffic();
  const n = hosts.length;
  const peers = Array.from({ length: n - 1 }, (_, j) => hosts[(slot + 1 + j) % n]!);
  const offsets = peers.map((_, j) => Math.floor((j * mesh.intervalPs) / (n - 1)));
  function* posts(): Generator<MessagePost, void> {
    for (let round = 0; ; round++) {
      for (let j = 0; j < peers.length; j++) {
        const atPs = mesh.startPs + round * mesh.intervalPs + offsets[j]!;
        if (mesh.stopPs !== null && atPs >= mesh.stopPs) return;
        yield writePost(mesh.index, host, peers[j]!, { atPs, sizeBytes: mesh.sizeBytes, slot, seq: round * (n - 1) + j, probe: true });
      }
    }
  }
  return { posts: posts(), connections: peers.map((to) => connectionTo(mesh.index, host, to, mesh, true)) };
}
