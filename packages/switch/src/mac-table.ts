/**
 * A ToR's ARP and MAC tables and the flood decision for directly attached hosts (DESIGN §5).
 * Mechanism (Guo et al., "RDMA over Commodity Ethernet at Scale", SIGCOMM 2016): ARP entries
 * (4 h) outlive MAC entries (5 min), so a ToR can still resolve a quiet host's IP while it has
 * forgotten that host's port; it floods, the flood breaks up-down routing, and PFC turns the
 * cyclic buffer dependency into a deadlock. Their fix: drop lossless packets instead of flooding.
 * Expiry is lazy (compared with `nowPs` when read): no timers, and idle tables cost nothing (DESIGN §3).
 * Ageing defaults: `ARP_AGEING_PS` (4 h) and `MAC_AGEING_PS` (5 min) in defaults.ts.
 */
export interface L2Config {
  arpAgeingPs: number;
  macAgeingPs: number;
  /** On a MAC miss for a lossless packet: flood it (unknown-unicast flooding, what a commodity switch does) or drop it (Guo et al.'s fix). */
  losslessFlood: 'flood' | 'drop';
}

export type L2Decision = { kind: 'unicast'; port: number } | { kind: 'flood' } | { kind: 'floodBlocked' } | { kind: 'noArp' };

// Decisions are immutable, made once (unicast ones once per port): a ToR looks up every packet for its hosts, and allocates nothing for it.
const FLOOD: L2Decision = Object.freeze({ kind: 'flood' });
const FLOOD_BLOCKED: L2Decision = Object.freeze({ kind: 'floodBlocked' });
const NO_ARP: L2Decision = Object.freeze({ kind: 'noArp' });

/** A port (MAC table) or a MAC (ARP table), and when it was last learned. */
interface Entry {
  value: number;
  learnedAtPs: number;
}

export class L2Tables {
  private readonly arp = new Map<number, Entry>();
  private readonly macs = new Map<number, Entry>();
  /** `unicast` decisions by port, made on first use. */
  private readonly unicast: L2Decision[] = [];

  constructor(private readonly config: L2Config) {
    // Integers, not safe integers: 4 h of ps is above 2^53 (MAX_TIME_PS ≈ 2.5 h) but exact, and `live`
    // compares it with `now − learnedAt` instead of adding it to a time, so no sum ever rounds.
    for (const field of ['arpAgeingPs', 'macAgeingPs'] as const) {
      if (!(Number.isInteger(config[field]) && config[field] > 0)) throw new RangeError(`L2 ${field} must be a positive integer number of ps, got ${config[field]}`);
    }
    if (config.losslessFlood !== 'flood' && config.losslessFlood !== 'drop') throw new RangeError(`L2 losslessFlood must be flood or drop, got ${String(config.losslessFlood)}`);
  }

  /** Install an ARP entry (IP → MAC) valid until now + arpAgeing. */
  setArp(nowPs: number, ip: number, mac: number): void {
    this.arp.set(ip, { value: mac, learnedAtPs: nowPs });
  }

  /** Learn (or refresh) MAC → port from a frame's source MAC, valid until now + macAgeing; a host that moved is relearned. */
  learn(nowPs: number, mac: number, port: number): void {
    // Every frame refreshes its source's entry: update it in place rather than allocate anew.
    const entry = this.macs.get(mac);
    if (entry === undefined) this.macs.set(mac, { value: port, learnedAtPs: nowPs });
    else {
      entry.value = port;
      entry.learnedAtPs = nowPs;
    }
  }

  /** Remove every MAC entry, or one (the `macFlush` fault) — ARP entries stay: that is the incident's shape. */
  flushMacs(mac: number | null = null): void {
    if (mac === null) this.macs.clear();
    else this.macs.delete(mac);
  }

  /** Remove every ARP entry, or the one for `ip` (the `arpExpire` fault): packets for it are then unroutable. */
  expireArp(ip: number | null = null): void {
    if (ip === null) this.arp.clear();
    else this.arp.delete(ip);
  }

  /** Where a packet for a directly attached host goes: ARP (IP → MAC), then MAC (MAC → port). */
  lookup(nowPs: number, dstIp: number, lossless: boolean): L2Decision {
    const mac = this.arpMac(nowPs, dstIp);
    if (mac === null) return NO_ARP;
    const port = this.live(this.macs, mac, nowPs, this.config.macAgeingPs);
    if (port !== null) return (this.unicast[port] ??= Object.freeze({ kind: 'unicast', port }));
    return lossless && this.config.losslessFlood === 'drop' ? FLOOD_BLOCKED : FLOOD;
  }

  /** The MAC the ARP table holds for `ip` (for rewriting dstMac), or null. */
  arpMac(nowPs: number, ip: number): number | null {
    return this.live(this.arp, ip, nowPs, this.config.arpAgeingPs);
  }

  /** Live MAC entries (for metrics and tests). */
  macEntries(nowPs: number): number {
    let count = 0;
    for (const mac of [...this.macs.keys()]) if (this.live(this.macs, mac, nowPs, this.config.macAgeingPs) !== null) count++;
    return count;
  }

  /** An entry is valid while nowPs < learnedAt + ageing; an expired one is deleted when first seen. */
  private live(table: Map<number, Entry>, key: number, nowPs: number, ageingPs: number): number | null {
    const entry = table.get(key);
    if (entry === undefined) return null;
    if (nowPs - entry.learnedAtPs < ageingPs) return entry.value;
    table.delete(key);
    return null;
  }
}
