/**
 * A member's links to nodes hosted by other members: which end it hosts, its connection, and
 * what crossed it. Each link carries one batch per window; what a node emits on a link that
 * is no longer live never leaves and is counted `link_down` here. The counts (frames shipped,
 * frames accepted) are what the controller accounts a lost member with (`member-loss.ts`), so
 * they only grow; a broken link is settled with the counts since it last connected, which a
 * rejoined neighbour's fresh counts match.
 */
import type { Engine, Outbox } from '@rocelab/sim';
import type { LinkSpec, PodSpec } from '@rocelab/topology';
import type { LinkBatch, LinkCount } from '@rocelab/wire';
import type { Connection } from './connection.js';
import { directionName, linkName } from './names.js';

export interface RemoteLink {
  name: string;
  spec: LinkSpec;
  localNode: number;
  localPort: number;
  /** This member dials it (it hosts the link's `a` end) when the pod starts. */
  dialer: boolean;
  conn: Connection | null;
  /** Carries batches: connected and not failed, or brought back up by a grant. */
  live: boolean;
  /** Frames shipped and accepted over the run: they only grow (a lost neighbour is accounted from them). */
  sent: number;
  accepted: number;
  /** Batch messages shipped on it and their encoded bytes, over the run (what a window costs on the wire). */
  messages: number;
  bytes: number;
  /** The counts when the link last connected: a broken link is settled with the counts since. */
  sentBase: number;
  acceptedBase: number;
  /** Direction names `from>to` as seen from this end. */
  outName: string;
  inName: string;
}

export class RemoteLinks {
  private readonly links = new Map<string, RemoteLink>();
  private failedThisLease: RemoteLink[] = [];
  private readonly failedEver: RemoteLink[] = [];

  /** The links of `pod` with exactly one end on `hosted` (node indices). */
  constructor(pod: PodSpec, hosted: ReadonlySet<number>) {
    const byName = new Map(pod.nodes.map((n) => [n.name, n]));
    for (const spec of pod.links) {
      const aNode = byName.get(spec.a.node)!;
      const bNode = byName.get(spec.b.node)!;
      const aHere = hosted.has(aNode.index);
      if (aHere === hosted.has(bNode.index)) continue;
      const [local, from, to] = aHere ? [aNode, spec.a, spec.b] : [bNode, spec.b, spec.a];
      const name = linkName(spec);
      this.links.set(name, {
        name,
        spec,
        localNode: local.index,
        localPort: local.ports.find((p) => p.name === from.port)!.index,
        dialer: aHere,
        conn: null,
        live: true,
        sent: 0,
        accepted: 0,
        messages: 0,
        bytes: 0,
        sentBase: 0,
        acceptedBase: 0,
        outName: directionName(from, to),
        inName: directionName(to, from),
      });
    }
  }

  get names(): string[] {
    return [...this.links.keys()];
  }

  get(name: string): RemoteLink | undefined {
    return this.links.get(name);
  }

  all(): IterableIterator<RemoteLink> {
    return this.links.values();
  }

  /** Whether every link has a connection (the member may report ready). */
  get allConnected(): boolean {
    for (const link of this.links.values()) if (link.live && link.conn === null) return false;
    return true;
  }

  /** A batch arrived: its frames enter the engine and count as accepted. */
  deliver(engine: Engine, link: RemoteLink, batch: LinkBatch): void {
    engine.deliverRemote(link.localNode, link.localPort, batch);
    link.accepted += batch.frames.length;
  }

  /** One batch per link for the window just run; on a dead link the frames are lost. */
  ship(engine: Engine, lease: number, window: number): void {
    for (const link of this.links.values()) {
      const out: Outbox = engine.takeOutbox(link.localNode, link.localPort);
      if (!link.live || link.conn === null) {
        // Emitted before the link broke, never shipped: lost on the dead link.
        engine.context(link.localNode).stats.countDrops('link_down', link.localPort, out.frames.length);
        continue;
      }
      link.bytes += link.conn.send({ type: 'batch', batch: { lease, window, ...out } });
      link.conn.flush();
      link.messages++;
      link.sent += out.frames.length;
    }
  }

  /** The link stopped carrying batches: the node's port is down from now on. False if it already was. */
  fail(engine: Engine, link: RemoteLink): boolean {
    if (!link.live) return false;
    link.live = false;
    engine.setRemoteBroken(link.localNode, link.localPort);
    this.failedThisLease.push(link);
    return true;
  }

  /** A rejoining neighbour connected again: a new epoch of counts; live once a grant brings it up. */
  reconnect(link: RemoteLink, conn: Connection): void {
    link.conn = conn;
    link.sentBase = link.sent;
    link.acceptedBase = link.accepted;
    // Its earlier failure was settled with the old counts; a later one is a new matter.
    const i = this.failedEver.indexOf(link);
    if (i >= 0) this.failedEver.splice(i, 1);
  }

  /** A grant brought the links back up (their neighbour rejoined). */
  bringUp(names: readonly string[]): void {
    for (const name of names) {
      const link = this.links.get(name);
      if (link !== undefined && link.conn !== null) link.live = true;
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
    { link: l.outName, sender: true, frames: l.sent - sentBase, messages: l.messages, bytes: l.bytes },
    { link: l.inName, sender: false, frames: l.accepted - acceptedBase, messages: 0, bytes: 0 },
  ];
}
