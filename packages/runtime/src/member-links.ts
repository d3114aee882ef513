/**
 * A member's links to nodes hosted by other members, grouped by the member at their far end: a
 * **pair** (this member and one neighbour) has one connection, and every window one message on
 * it (`PairBatch`) carries the frames of each of its links that carried any; idle links are
 * absent. What a node emits on a link that is no longer live never leaves and is counted
 * `link_down` here. The counts per link (frames shipped, frames accepted) are what the
 * controller accounts a lost member with (`member-loss.ts`), so they only grow; a broken link
 * is settled with the counts since it last connected, which a rejoined neighbour's fresh counts
 * match. A pair's connection breaking breaks every link of the pair.
 */
import type { Engine, Outbox } from '@rocelab/sim';
import type { LinkSpec, PodSpec } from '@rocelab/topology';
import { DEFAULT_DECODE_LIMITS, type LinkCount, type LinkFrames, type PairBatch } from '@rocelab/wire';
import { MessageTooLarge, type Connection } from './connection.js';
import { directionName, linkName } from './names.js';

export interface RemoteLink {
  name: string;
  spec: LinkSpec;
  localNode: number;
  localPort: number;
  /** This member hosts the link's `a` end. */
  aHere: boolean;
  /** The pair it belongs to, and its index among the pair's links (sorted by name): its number on the wire. */
  pair: Pair;
  index: number;
  /** Carries frames: its pair is connected and not failed, or it was brought back up by a grant. */
  live: boolean;
  /** Frames shipped and accepted over the run: they only grow (a lost neighbour is accounted from them). */
  sent: number;
  accepted: number;
  /** The counts when the link last connected: a broken link is settled with the counts since. */
  sentBase: number;
  acceptedBase: number;
  /** Direction names `from>to` as seen from this end. */
  outName: string;
  inName: string;
}

/** This member and one neighbouring member: one connection, one message per window. */
export interface Pair {
  /** The neighbour's member id. */
  peer: string;
  /** The links between the two, sorted by name (both ends number them alike). */
  links: RemoteLink[];
  /** This member dials the pair's connection when the pod starts (its id sorts first). */
  dialer: boolean;
  conn: Connection | null;
}

export class RemoteLinks {
  private readonly links = new Map<string, RemoteLink>();
  private readonly pairs = new Map<string, Pair>();
  private failedThisLease: RemoteLink[] = [];
  private readonly failedEver: RemoteLink[] = [];
  /** Pair messages shipped and their encoded bytes, over the run (what windows cost on the wire). */
  messages = 0;
  bytes = 0;

  /**
   * The links of `pod` with exactly one end on `hosted` (node indices), grouped by the member
   * `memberOf` says hosts the far end (its node and the link → member id); `self` is this member's id.
   */
  constructor(pod: PodSpec, hosted: ReadonlySet<number>, self: string, memberOf: (node: string, link: string) => string) {
    const byName = new Map(pod.nodes.map((n) => [n.name, n]));
    const specs = pod.links
      .map((spec) => ({ spec, name: linkName(spec) }))
      .sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
    for (const { spec, name } of specs) {
      const aNode = byName.get(spec.a.node)!;
      const bNode = byName.get(spec.b.node)!;
      const aHere = hosted.has(aNode.index);
      if (aHere === hosted.has(bNode.index)) continue;
      const [local, from, to] = aHere ? [aNode, spec.a, spec.b] : [bNode, spec.b, spec.a];
      const peer = memberOf(to.node, name);
      let pair = this.pairs.get(peer);
      if (pair === undefined) {
        pair = { peer, links: [], dialer: self < peer, conn: null };
        this.pairs.set(peer, pair);
      }
      const link: RemoteLink = {
        name,
        spec,
        localNode: local.index,
        localPort: local.ports.find((p) => p.name === from.port)!.index,
        aHere,
        pair,
        index: pair.links.length,
        live: true,
        sent: 0,
        accepted: 0,
        sentBase: 0,
        acceptedBase: 0,
        outName: directionName(from, to),
        inName: directionName(to, from),
      };
      pair.links.push(link);
      this.links.set(name, link);
    }
  }

  get names(): string[] {
    return [...this.links.keys()];
  }

  /** The neighbouring members' ids. */
  get peers(): string[] {
    return [...this.pairs.keys()];
  }

  get(name: string): RemoteLink | undefined {
    return this.links.get(name);
  }

  pair(peer: string): Pair | undefined {
    return this.pairs.get(peer);
  }

  all(): IterableIterator<RemoteLink> {
    return this.links.values();
  }

  allPairs(): IterableIterator<Pair> {
    return this.pairs.values();
  }

  /** The pairs that links named in a grant belong to (each once). */
  peersOf(names: readonly string[]): string[] {
    const peers = new Set<string>();
    for (const name of names) {
      const link = this.links.get(name);
      if (link !== undefined) peers.add(link.pair.peer);
    }
    return [...peers];
  }

  /** Whether every pair with a live link has a connection (the member may report ready). */
  get allConnected(): boolean {
    for (const pair of this.pairs.values()) if (pair.conn === null && pair.links.some((l) => l.live)) return false;
    return true;
  }

  /**
   * What is wrong with a pair message's link indices for this pair (the wire checked that they
   * increase), or null: an index must name one of the pair's links.
   */
  misnumbered(pair: Pair, batch: PairBatch): string | null {
    const last = batch.links[batch.links.length - 1];
    if (last === undefined || last.link < pair.links.length) return null;
    return `link index ${last.link} in the pair message for lease ${batch.lease} window ${batch.window}: the pair with ${pair.peer} has ${pair.links.length} links (0..${pair.links.length - 1})`;
  }

  /** A pair message arrived: each link's frames enter the engine and count as accepted. */
  deliver(engine: Engine, pair: Pair, batch: PairBatch): void {
    for (const frames of batch.links) {
      const link = pair.links[frames.link]!;
      engine.deliverRemote(link.localNode, link.localPort, frames);
      link.accepted += frames.frames.length;
    }
  }

  /**
   * One message per connected pair for the window just run, carrying the links that have
   * frames; on a dead link the frames are lost.
   */
  ship(engine: Engine, lease: number, window: number): void {
    for (const pair of this.pairs.values()) {
      const connected = pair.conn !== null;
      const carried = packPair(engine, pair.links, connected, lease, window, DEFAULT_DECODE_LIMITS.maxFramesPerBatch);
      // No live link left: the pair is down, and its neighbour waits for no message on it.
      if (!connected || !pair.links.some((l) => l.live)) continue;
      this.bytes += pair.conn!.send({ type: 'pair', pair: { lease, window, links: carried } });
      pair.conn!.flush();
      this.messages++;
    }
  }

  /** The link stopped carrying frames: the node's port is down from now on. False if it already was. */
  fail(engine: Engine, link: RemoteLink): boolean {
    if (!link.live) return false;
    link.live = false;
    engine.setRemoteBroken(link.localNode, link.localPort);
    this.failedThisLease.push(link);
    return true;
  }

  /** The pair's connection broke: every link of the pair fails. False if none was live. */
  failPair(engine: Engine, pair: Pair): boolean {
    let any = false;
    for (const link of pair.links) any = this.fail(engine, link) || any;
    return any;
  }

  /** A rejoining neighbour connected again: a new epoch of counts; its links are live once a grant brings them up. */
  reconnect(pair: Pair, conn: Connection): void {
    pair.conn = conn;
    for (const link of pair.links) {
      link.sentBase = link.sent;
      link.acceptedBase = link.accepted;
      // Its earlier failure was settled with the old counts; a later one is a new matter.
      const i = this.failedEver.indexOf(link);
      if (i >= 0) this.failedEver.splice(i, 1);
    }
  }

  /** A grant brought the links back up (their neighbour rejoined). */
  bringUp(names: readonly string[]): void {
    for (const name of names) {
      const link = this.links.get(name);
      if (link !== undefined && link.pair.conn !== null) link.live = true;
    }
  }

  /** The links that failed since the last report (for the report's `linksFailed`). */
  takeFailed(): RemoteLink[] {
    const failed = this.failedThisLease.splice(0);
    this.failedEver.push(...failed);
    return failed;
  }

  /** Counts of failed links to settle, since each connected: this lease's, or in the final report every one (each is settled once). */
  failedCounts(failed: readonly RemoteLink[], final: boolean): LinkCount[] {
    return (final ? this.failedEver : failed).flatMap((l) => countsOf(l, l.sentBase, l.acceptedBase));
  }

  /** Every link's counts over the run. */
  totals(): LinkCount[] {
    return [...this.links.values()].flatMap((l) => countsOf(l, 0, 0));
  }
}

function countsOf(l: RemoteLink, sentBase: number, acceptedBase: number): LinkCount[] {
  return [
    { link: l.outName, sender: true, frames: l.sent - sentBase },
    { link: l.inName, sender: false, frames: l.accepted - acceptedBase },
  ];
}

/**
 * A pair's frames of the window just run, taken from its `links`' outboxes: the `LinkFrames` of
 * each link that emitted any, numbered by its index among the pair's links, counted as sent. What
 * a link that no longer carries frames (not live, or its pair not `connected`) emitted never
 * leaves: it is counted `link_down`. Members and threads both ship with it, so both number and
 * bound a pair's links alike.
 *
 * A link with more than `maxFrames` (what the receiver decodes per link) is refused here, by the
 * sender, which can name the link and window; the receiver could only drop the message.
 */
export function packPair(engine: Engine, links: readonly RemoteLink[], connected: boolean, lease: number, window: number, maxFrames: number): LinkFrames[] {
  const carried: LinkFrames[] = [];
  for (const link of links) {
    const out: Outbox = engine.takeOutbox(link.localNode, link.localPort);
    if (!link.live || !connected) {
      // Emitted before the link broke, never shipped: lost on the dead link.
      engine.context(link.localNode).stats.countDrops('link_down', link.localPort, out.frames.length);
      continue;
    }
    if (out.frames.length === 0) continue;
    if (out.frames.length > maxFrames) {
      throw new MessageTooLarge(`link ${link.name} carried ${out.frames.length} frames in window ${window} of lease ${lease}: a pair message may carry at most ${maxFrames} per link (a shorter lookahead on the links between two members makes fewer per window)`);
    }
    carried.push({ link: link.index, ...out });
    link.sent += out.frames.length;
  }
  return carried;
}
