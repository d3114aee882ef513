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
 * With `qpPerMessage` every message has a QP of its own, as every flow of HPCC ns-3 does
 * (third.cc `ScheduleFlowInputs` installs an RdmaClient, a new QP, per flow): no message waits
 * behind another to the same peer. QPs are set up before the run, so the arrivals up to `stop`
 * are drawn once more from a fresh copy of the stream to list them (the schema requires `stop`).
 */
import { expandHosts } from './host-set.js';
import type { PoissonWorkload } from './poisson-schema.js';
import { drawSizeBytes, meanSizeBytes } from './size-cdf.js';
import { connectionKey } from './flow-id.js';
import { connectionTo, noTraffic, workloadPurpose, writePost, type Connection, type KindTraffic, type MessagePost, type TrafficContext } from './traffic.js';

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
    for (const a of arrivals(poisson, host, peers, ctx)) {
      const post = writePost(poisson.index, host, a.to, { atPs: a.atPs, sizeBytes: a.sizeBytes, slot, seq: a.seq });
      yield poisson.qpPerMessage ? { ...post, connection: messageConnectionKey(poisson.index, host, a.to, a.seq) } : post;
    }
  }
  return {
    posts: posts(),
    // A getter: only the QP plan lists connections, from throwaway streams; the NIC's stream is never drawn twice.
    get connections(): Connection[] {
      if (!poisson.qpPerMessage) return peers.map((to) => connectionTo(poisson.index, host, to, poisson));
      return [...arrivals(poisson, host, peers, ctx)].map((a) => ({ ...connectionTo(poisson.index, host, a.to, poisson), key: messageConnectionKey(poisson.index, host, a.to, a.seq) }));
    },
  };
}

/** The key of message `seq`'s own QP (`qpPerMessage`): the workload's key to that peer, numbered. */
export function messageConnectionKey(workload: number, from: string, to: string, seq: number): string {
  return `${connectionKey(workload, from, to)}#${seq}`;
}

/** The arrivals of one host, drawn in the order the module comment gives, up to `stop`. */
function* arrivals(poisson: PoissonWorkload, host: string, peers: readonly string[], ctx: TrafficContext): Generator<{ atPs: number; to: string; sizeBytes: number; seq: number }, void> {
  const rng = ctx.rng(workloadPurpose(poisson.index));
  const gapPs = meanGapPs(poisson.load, ctx.linkRateBps(host), meanSizeBytes(poisson.sizes));
  let atPs = poisson.startPs;
  for (let seq = 0; ; seq++) {
    atPs += exponentialPs(rng.nextFloat(), gapPs);
    if (poisson.stopPs !== null && atPs >= poisson.stopPs) return;
    const to = peers[rng.uniformInt(0, peers.length - 1)]!;
    yield { atPs, to, sizeBytes: drawSizeBytes(poisson.sizes, rng), seq };
  }
}
