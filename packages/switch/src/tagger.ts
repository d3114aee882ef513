/**
 * Tagger (Hu et al., "Tagger: Practical PFC Deadlock Prevention in Data Center Networks",
 * CoNEXT 2017; issue 14), for a Clos: the expected lossless paths are up-down ones (up from the
 * source's ToR, then down to the destination). A packet carries a tag, 1 when its ToR first
 * takes it from a host. A switch that would forward it against its path — up again after it has
 * come down, as a flooded packet or one rerouted around a failure does — increments the tag
 * before the packet is queued. Each tag has its own lossless priority, so the buffers of the two
 * segments of a bounced path never wait on each other and no cyclic buffer dependency can close;
 * past the last lossless tag the packet goes to a lossy priority (or is dropped, as configured).
 *
 * Pure: a switch asks `retag` with the packet's tag and which ways its ingress and egress face.
 */

/** Which way a port faces in the Clos: toward a higher tier (`up`) or a lower one or a host (`down`). */
export type PortDirection = 'up' | 'down';

/** Tiers of the roles that have one: a port faces up when its peer's tier is higher. */
const TIER: Readonly<Record<string, number>> = { host: 0, tor: 1, leaf: 2, spine: 3 };

/** The direction of each port of a switch of `role`, from its peers' roles. */
export function portDirections(role: string, peerRoles: readonly string[]): PortDirection[] {
  const own = TIER[role];
  if (own === undefined) throw new RangeError(`Tagger: a ${role} has no tier in a Clos (tor, leaf or spine)`);
  return peerRoles.map((peer) => {
    const tier = TIER[peer];
    if (tier === undefined) throw new RangeError(`Tagger: a ${role}'s peer is a ${peer}, which has no tier in a Clos`);
    if (tier === own) throw new RangeError(`Tagger: a ${role} linked to another ${peer} is not a Clos`);
    return tier > own ? 'up' : 'down';
  });
}

export interface TaggerConfig {
  /** The lossless priority of each tag: `[3, 4]` puts tag 1 on 3 and tag 2 (one bounce) on 4. */
  losslessByTag: readonly number[];
  /** Where a packet goes past the last lossless tag: a lossy priority, or `drop`. */
  beyond: { lossy: number } | 'drop';
}

export type TagVerdict = { tag: number; priority: number; lossless: boolean } | { tag: number; drop: true };

export class Tagger {
  readonly stats = { retagged: 0, demoted: 0, dropped: 0 };

  constructor(
    private readonly config: TaggerConfig,
    /** This switch's ports' directions (`portDirections`). */
    private readonly directions: readonly PortDirection[],
  ) {
    if (config.losslessByTag.length === 0) throw new RangeError('Tagger: at least one lossless priority (tag 1)');
    for (const p of [...config.losslessByTag, ...(config.beyond === 'drop' ? [] : [config.beyond.lossy])]) {
      if (!(Number.isInteger(p) && p >= 0 && p <= 7)) throw new RangeError(`Tagger: priorities must be 0..7, got ${p}`);
    }
  }

  /**
   * The tag and priority of a packet with `tag` (0: it comes from a host, untagged) that arrived
   * on `ingress` and leaves on `egress`. Arriving on a port that faces up means it came down; going
   * out on one that faces up again is a bounce against the up-down path: the tag goes up by one.
   */
  retag(tag: number, ingress: number, egress: number): TagVerdict {
    let next = tag === 0 ? 1 : tag;
    if (tag !== 0 && this.directions[ingress] === 'up' && this.directions[egress] === 'up') {
      next = tag + 1;
      this.stats.retagged++;
    }
    const priority = this.config.losslessByTag[next - 1];
    if (priority !== undefined) return { tag: next, priority, lossless: true };
    if (this.config.beyond === 'drop') {
      this.stats.dropped++;
      return { tag: next, drop: true };
    }
    this.stats.demoted++;
    return { tag: next, priority: this.config.beyond.lossy, lossless: false };
  }
}
