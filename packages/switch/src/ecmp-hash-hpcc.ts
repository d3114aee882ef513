/**
 * HPCC ns-3's ECMP hash, bit for bit (alibaba-edu/High-Precision-Congestion-Control,
 * `simulation/src/point-to-point/model/switch-node.cc` at 99dccf92):
 *
 * - `SwitchNode::EcmpHash(key, len, seed)` (lines 138–174) is MurmurHash3_x86_32: 32-bit words
 *   read in host order (x86, little-endian), a tail of 1–3 bytes, `h ^= len`, murmur3's finalizer.
 * - `GetOutDev` (lines 74–88) fills a 12-byte union with three host-order words — source IP,
 *   destination IP, then `sport | dport << 16` (UDP, and the ACK/NACK header's ports; TCP too) —
 *   and takes `nexthops[EcmpHash(buf, 12, m_ecmpSeed) % nexthops.size()]`. IPs and ports are
 *   the header's values (CustomHeader reads them with ReadNtoh), so words stored and read back
 *   natively make the hash independent of byte order: only their numeric values count.
 * - `m_ecmpSeed = m_id` in the constructor (line 47): the node's ns-3 id (NodeList index,
 *   0-based, in creation order = the node numbering of HPCC's topology file, third.cc's `main`);
 *   third.cc never calls `SetEcmpSeed`.
 */

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

/** One body round of MurmurHash3_x86_32 (`h += (h << 2) + 0xe6546b64` is `h·5 + 0xe6546b64`). */
function round(h: number, k: number): number {
  k = Math.imul(k, C1);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, C2);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** The tail's scramble, `h ^= len`, and the finalizer; an unsigned 32-bit result. */
function finish(h: number, len: number): number {
  return fmix32(h ^ len);
}

/** MurmurHash3's finalizer (`fmix32`): every input bit reaches every output bit; unsigned 32-bit. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * `EcmpHash(key, len, seed)` over any bytes, words read little-endian as on the x86 machines
 * HPCC runs on. Equal to the published MurmurHash3_x86_32 vectors (tests).
 */
export function murmur3x86_32(key: Uint8Array, seed: number): number {
  let h = seed | 0;
  const words = key.length >>> 2;
  for (let i = 0; i < words; i++) {
    const at = 4 * i;
    h = round(h, key[at]! | (key[at + 1]! << 8) | (key[at + 2]! << 16) | (key[at + 3]! << 24));
  }
  const rest = key.length & 3;
  if (rest > 0) {
    let k = 0;
    for (let i = rest - 1; i >= 0; i--) k = (k << 8) | key[4 * words + i]!;
    k = Math.imul(k, C1);
    k = (k << 15) | (k >>> 17);
    h ^= Math.imul(k, C2);
  }
  return finish(h, key.length);
}

/**
 * `EcmpHash` of the key `GetOutDev` builds: words `srcIp`, `dstIp`, `srcPort | dstPort << 16`,
 * length 12 (no tail). The switch takes this modulo its number of next hops.
 */
export function hpccEcmpHash(srcIp: number, dstIp: number, srcPort: number, dstPort: number, seed: number): number {
  let h = seed | 0;
  h = round(h, srcIp | 0);
  h = round(h, dstIp | 0);
  h = round(h, (srcPort & 0xffff) | ((dstPort & 0xffff) << 16));
  return finish(h, 12);
}
