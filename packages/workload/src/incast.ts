/** An `incast` item's traffic at one sender: one WRITE to the receiver at its staggered start. */
import { expandHosts } from './host-set.js';
import type { IncastWorkload } from './incast-schema.js';
import { connectionTo, noTraffic, writePost, type KindTraffic, type TrafficContext } from './traffic.js';

/** The senders in slot order: the list as written, or every host but the receiver. */
export function incastSenders(incast: IncastWorkload, podHosts: readonly string[]): string[] {
  return expandHosts(incast.from, podHosts).filter((h) => incast.from !== 'all' || h !== incast.to);
}

export function incastTraffic(incast: IncastWorkload, host: string, ctx: TrafficContext): KindTraffic {
  const slot = incastSenders(incast, ctx.hosts).indexOf(host);
  if (slot < 0) return noTraffic();
  const atPs = incast.startPs + slot * incast.staggerPs;
  return {
    posts: [writePost(incast.index, host, incast.to, { atPs, sizeBytes: incast.sizeBytes, slot, seq: 0 })][Symbol.iterator](),
    connections: [connectionTo(incast.index, host, incast.to, incast)],
  };
}
