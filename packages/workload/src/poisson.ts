/**
 * A `poisson` item's traffic at one host: an open-loop Poisson process of messages.
 *
 * Each arrival draws, from the host's own stream `workload:<index>` and in this order:
 * (1) the gap since the previous arrival, exponential with mean 1/λ, rounded to whole
 * picoseconds (so the first arrival is one gap after start); (2) the destination, uniform among
 * the set's other hosts; (3) the size (no draw for a fixed size). Arrivals at or after `stop` end
 * the traffic. `Math.log1p` is V8's fdlibm port, the same on every platform, so the gaps are too.
 *
 * One connection per destination, opened for every other host of the set up front (the
 * destinations are unknown before the draws): a host's messages to one peer queue on it in order.
 */
import { expandHosts } from './host-set.js';
import type { PoissonWorkload } from './poisson-schema.js';
import { drawSizeBytes, meanSizeBytes } from './size-cdf.js';
import { connectionTo, noTraffic, workloadPurpose, writePost, type KindTraffic, type MessagePost, type TrafficContext } from './traffic.js';

const PS_PER_S = 1e12;

/** Mean gap between arrivals in ps: 1/λ with λ = load × rate / (8 × mean size) messages per second. */
export function meanGapPs(load: number, linkRateBps: number, meanBytes: number): number {
  return ((meanBytes * 8) / (load * linkRateBps)) * PS_PER_S;
}

/** An exponential gap of mean `meanPs` from one uniform draw, in whole picoseconds. */
export function exponentialPs(u: number, meanPs: number): number {
  return Math.round(-Math.log1p(-u) * meanPs);
}

export function poissonTraffic(poisson: PoissonWorkload, host: string, ctx: TrafficContext): KindTraffic {
  const hosts = expandHosts(poisson.hosts, ctx.hosts);
  const slot = hosts.indexOf(host);
  if (slot < 0 || hosts.length < 2) return noTraffic();
  const peers = hosts.filter((h) => h !== host);
  function* posts(): Generator<MessagePost, void> {
    const rng = ctx.rng(workloadPurpose(poisson.index));
    const gapPs = meanGapPs(poisson.load, ctx.linkRateBps(host), meanSizeBytes(poisson.sizes));
    let atPs = poisson.startPs;
    for (let seq = 0; ; seq++) {
      atPs += exponentialPs(rng.nextFloat(), gapPs);
      if (poisson.stopPs !== null && atPs >= poisson.stopPs) return;
      const to = peers[rng.uniformInt(0, peers.length - 1)]!;
      yield writePost(poisson.index, host, to, { atPs, sizeBytes: drawSizeBytes(poisson.sizes, rng), slot, seq });
    }
  }
  return { posts: posts(), connections: peers.map((to) => connectionTo(poisson.index, host, to, poisson)) };
}
