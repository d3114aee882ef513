/**
 * L3 forwarding by destination IP (DESIGN §5): each host IP maps to its equal-cost next-hop
 * ports; among several, a hash of the flow's 5-tuple picks one, so one flow always takes the
 * same path (never reorders) while different UDP source ports spread.
 *
 * Two hashes: rocelab's (`flowHash`) and HPCC ns-3's (`hpccEcmpHash`, the `hpcc-ns3`
 * profile), each with a per-switch seed. Both index the route's next-hop ports in ascending
 * port index, i.e. by port name (topology `routeTables`). HPCC's list is in another order — the
 * order its route BFS (third.cc `CalculateRoute`, from the destination host, neighbours taken
 * in `std::map<Ptr<Node>, …>` order, i.e. by object address ≈ creation order = node id)
 * reached each next hop — so the same hash picks the same neighbour only where the port-name
 * order of a switch's next hops equals that order (e.g. uplinks named in HPCC node-id order).
 */
import { fmix32, hpccEcmpHash } from './ecmp-hash-hpcc.js';

export interface Route {
  ip: number;
  /** Equal-cost next-hop ports, sorted. */
  ports: readonly number[];
}

export const NO_ROUTE = -1;

/** Which ECMP hash a switch uses: rocelab's FNV-1a + murmur3 finalizer, or HPCC ns-3's `EcmpHash`. */
export type EcmpHashKind = 'rocelab' | 'hpcc-ns3';

/** The header fields an ECMP hash may read (the 5-tuple's variable part: protocol and destination port are fixed). */
export type EcmpField = 'srcIp' | 'dstIp' | 'srcPort';
export const ECMP_FIELDS: readonly EcmpField[] = ['srcIp', 'dstIp', 'srcPort'];

export interface EcmpConfig {
  hash: EcmpHashKind;
  /** Unsigned 32-bit seed; 0 with the `rocelab` hash is the unseeded hash of earlier runs. */
  seed: number;
  /**
   * The fields hashed (an `ecmpMisconfig` fault, issue 24: a hash of fewer fields polarizes);
   * absent: all three. An omitted field hashes as 0.
   */
  fields?: readonly EcmpField[];
}

/**
 * The seed when the settings name none. `rocelab`: 0, so paths (and trace hashes) stay those
 * of runs before seeds existed. `hpcc-ns3`: HPCC's rule `m_ecmpSeed = m_id`, the node's number
 * in the simulator's numbering — in rocelab the node index (position of its name in the sorted
 * names; hosts count too, as in HPCC). A pod whose names sort in the order of an HPCC topology
 * file's node ids (e.g. `n000`…) gets HPCC's seeds; `ecmpSeed` sets any other.
 */
export function defaultEcmpSeed(hash: EcmpHashKind, nodeIndex: number): number {
  return hash === 'hpcc-ns3' ? nodeIndex >>> 0 : 0;
}

/** RoCEv2's UDP destination port (IANA). */
export const ROCE_UDP_PORT = 4791;

export class Forwarding {
  private readonly table = new Map<number, readonly number[]>();
  private hash: (srcIp: number, dstIp: number, udpSrcPort: number) => number;
  private current: EcmpConfig;

  constructor(routes: readonly Route[], ecmp: EcmpConfig = { hash: 'rocelab', seed: 0 }) {
    for (const route of routes) if (route.ports.length > 0) this.table.set(route.ip, route.ports);
    this.current = ecmp;
    this.hash = hashOf(ecmp);
  }

  /** The hash and seed now (the settings', or an `ecmpMisconfig` fault's). */
  get ecmp(): EcmpConfig {
    return this.current;
  }

  /** Hash with another function, seed or fields from now on (an `ecmpMisconfig` fault, or its end). */
  setEcmp(ecmp: EcmpConfig): void {
    this.current = ecmp;
    this.hash = hashOf(ecmp);
  }

  /** The egress port for a packet, or NO_ROUTE. */
  egressPort(srcIp: number, dstIp: number, udpSrcPort: number): number {
    const ports = this.table.get(dstIp);
    if (ports === undefined) return NO_ROUTE;
    if (ports.length === 1) return ports[0]!;
    return ports[this.hash(srcIp, dstIp, udpSrcPort) % ports.length]!;
  }
}

function hashOf(ecmp: EcmpConfig): (srcIp: number, dstIp: number, udpSrcPort: number) => number {
  const seed = ecmp.seed;
  // Every RoCEv2 packet (data, ACK, CNP) goes to UDP port 4791: HPCC's `sport | dport << 16` word.
  const full = ecmp.hash === 'hpcc-ns3' ? (s: number, d: number, p: number) => hpccEcmpHash(s, d, p, ROCE_UDP_PORT, seed) : (s: number, d: number, p: number) => flowHash(s, d, p, seed);
  const fields = ecmp.fields;
  if (fields === undefined || ECMP_FIELDS.every((f) => fields.includes(f))) return full;
  const [s, d, p] = ECMP_FIELDS.map((f) => fields.includes(f));
  return (srcIp, dstIp, port) => full(s ? srcIp : 0, d ? dstIp : 0, p ? port : 0);
}

/**
 * FNV-1a over the 5-tuple (src IP, dst IP, UDP, src port, dst port 4791), then murmur3's
 * finalizer: without it `hash mod 2^k` sees only the low k bits of each byte, and flows whose
 * ports differ by a multiple of 4 would all share one of 4 paths. The seed is XORed into the
 * offset basis (each FNV step is a bijection of the state, so distinct seeds never collide on a
 * tuple); seed 0 is the hash of runs before seeds existed.
 */
export function flowHash(srcIp: number, dstIp: number, udpSrcPort: number, seed = 0): number {
  let h = 0x811c9dc5 ^ seed;
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
  return fmix32(h);
}

/** A switch's ECMP hash and seed from its settings (the seed defaulting by its node index). */
export function ecmpConfigOf(settings: { ecmpHash: EcmpHashKind; ecmpSeed: number | null }, nodeIndex: number): EcmpConfig {
  return { hash: settings.ecmpHash, seed: settings.ecmpSeed ?? defaultEcmpSeed(settings.ecmpHash, nodeIndex) };
}
