/**
 * Helpers for this package's tests (not exported from the package): a traffic context like the
 * one a host's NIC builds (streams cached per purpose, as NodeContext.rng does), and draining.
 */
import { Rng } from '@rocelab/sim';
import { hostTraffic } from './host-traffic.js';
import type { MessagePost, TrafficContext } from './traffic.js';
import type { ResolvedWorkload } from './workloads.js';

export function contextFor(host: string, hosts: readonly string[], options: { seed?: number; rateBps?: number } = {}): TrafficContext {
  const seed = options.seed ?? 1;
  const streams = new Map<string, Rng>();
  return {
    hosts,
    seed,
    linkRateBps: () => options.rateBps ?? 40_000_000_000,
    rng(purpose) {
      let stream = streams.get(purpose);
      if (stream === undefined) streams.set(purpose, (stream = new Rng(seed, host, purpose)));
      return stream;
    },
  };
}

/** Every post of `host` (at most `limit`, for kinds that never end). */
export function drain(host: string, workloads: readonly ResolvedWorkload[], hosts: readonly string[], options: { seed?: number; rateBps?: number; limit?: number } = {}): MessagePost[] {
  const traffic = hostTraffic(host, workloads, contextFor(host, hosts, options));
  const out: MessagePost[] = [];
  const limit = options.limit ?? 1_000_000;
  while (out.length < limit) {
    const post = traffic.next();
    if (post === null) break;
    out.push(post);
  }
  return out;
}
