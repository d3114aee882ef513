/**
 * L3 forwarding by destination IP (DESIGN §5): each host IP maps to its equal-cost next-hop
 * ports; among several, a hash of the flow's 5-tuple picks one, so one flow always takes the
 * same path (never reorders) while different UDP source ports spread.
 */

export interface Route {
  ip: number;
  /** Equal-cost next-hop ports, sorted. */
  ports: readonly number[];
}

export const NO_ROUTE = -1;

/** RoCEv2's UDP destination port (IANA). */
export const ROCE_UDP_PORT = 4791;

export class Forwarding {
  private readonly table = new Map<number, readonly number[]>();

  constructor(routes: readonly Route[]) {
    for (const route of routes) if (route.ports.length > 0) this.table.set(route.ip, route.ports);
  }

  /** The egress port for a packet, or NO_ROUTE. */
  egressPort(srcIp: number, dstIp: number, udpSrcPort: number): number {
    const ports = this.table.get(dstIp);
    if (ports === undefined) return NO_ROUTE;
    if (ports.length === 1) return ports[0]!;
    return ports[flowHash(srcIp, dstIp, udpSrcPort) % ports.length]!;
  }
}

/**
 * FNV-1a over the 5-tuple (src IP, dst IP, UDP, src port, dst port 4791), then murmur3's
 * finalizer: without it `hash mod 2^k` sees only the low k bits of each byte, and flows whose
 * ports differ by a multiple of 4 would all share one of 4 paths.
 */
export function flowHash(srcIp: number, dstIp: number, udpSrcPort: number): number {
  let h = 0x811c9dc5;
  const mix = (word: number, bytes: number) => {
    for (let i = 0; i < bytes; i++) {
      h ^= (word >>> (8 * i)) & 0xff;
      h = Math.imul(h, 0x01000193);
    }
  };
  mix(srcIp, 4);
  mix(dstIp, 4);
  mix(17, 1);
  mix(udpSrcPort, 2);
  mix(ROCE_UDP_PORT, 2);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
