/**
 * L3 forwarding by destination IP (DESIGN §5): each host IP maps to its equal-cost next-hop
 * ports; among several, a hash of the flow's 5-tuple picks one, so one flow always takes the
 * same path (never reorders) while different UDP source ports spread.
 *
 * Two hashes: rocelab's (`flowHash`) and HPCC ns-3's (`hpccEcmpHash`, the `hpcc-ns3`
 * profile), each with a per-switch seed. Both index the route's next-hop list as topology
 * `routeTables` ordered it: by port name (`ecmpOrder: port`, the default), or in the order
 * HPCC's route BFS reached the next hops (`ecmpOrder: hpcc-bfs`, PHYSICS §8), with which the
 * `hpcc-ns3` hash over the same ports picks HPCC's next hop.
 */
import { fmix32, hpccEcmpHash } from './ecmp-hash-hpcc.js';

export interface Route {
  ip: number;
  /** Equal-cost next-hop ports, in the order the hash indexes (topology `routeTables`). */
  ports: readonly number[];
}

export const NO_ROUTE = -1;

/** Which ECMP hash a switch uses: rocelab's FNV-1a + murmur3 finalizer, or HPCC ns-3's `EcmpHash`. */
export type EcmpHashKind = 'rocelab' | 'hpcc-ns3';

/**
 * The order of a switch's equal-cost next hops, which the hash indexes (topology `routeTable`):
 * by port index, i.e. port name (`port`), or as HPCC ns-3 lists them (`hpcc-bfs`, PHYSICS §8).
 */
export type EcmpOrder = 'port' | 'hpcc-bfs';

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
  private hash: HashFn;
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

  /** The egress port for a packet, or NO_ROUTE. `udpDstPort` 0 is RoCEv2's 4791 (the frame field's convention). */
  egressPort(srcIp: number, dstIp: number, udpSrcPort: number, udpDstPort = 0): number {
    const ports = this.table.get(dstIp);
    if (ports === undefined) return NO_ROUTE;
    if (ports.length === 1) return ports[0]!;
    return ports[this.hash(srcIp, dstIp, udpSrcPort, udpDstPort) % ports.length]!;
  }
}

type HashFn = (srcIp: number, dstIp: number, udpSrcPort: number, udpDstPort: number) => number;

function hashOf(ecmp: EcmpConfig): HashFn {
  const seed = ecmp.seed;
  // HPCC's word is `sport | dport << 16` (switch-node.cc GetOutDev); rocelab's hash keeps 4791 so its paths never move.
  const full: HashFn = ecmp.hash === 'hpcc-ns3'
    ? (s, d, p, dp) => hpccEcmpHash(s, d, p, dp === 0 ? ROCE_UDP_PORT : dp, seed)
    : (s, d, p) => flowHash(s, d, p, seed);
  const fields = ecmp.fields;
  if (fields === undefined || ECMP_FIELDS.every((f) => fields.includes(f))) return full;
  const [s, d, p] = ECMP_FIELDS.map((f) => fields.includes(f));
  return (srcIp, dstIp, port, dstPort) => full(s ? srcIp : 0, d ? dstIp : 0, p ? port : 0, dstPort);
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
