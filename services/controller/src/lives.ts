/**
 * The controller's ledger of nodes' lives when member processes die: every member's last few
 * lease-end snapshots, the finished lives of lost members (accounted with `lostMemberFinals`
 * once the loss is declared), and the list of losses with their virtual times. Pure: the
 * controller feeds it reports and the coordinator's grants.
 */
import { emptyNodeFinal, lostMemberFinals, type LostNode, type MemberSnapshot, type NodeFinal } from '@rocelab/runtime';
import type { PodSpec } from '@rocelab/topology';

/** Lease-end snapshots kept per member: a loss is declared within two leases of the last report. */
const SNAPSHOTS_KEPT = 4;

type Snapshots = Map<number, MemberSnapshot>;

export class Lives {
  private readonly snapshots = new Map<string, Snapshots>();
  /** Snapshots of a lost member that came back before its loss was declared. */
  private readonly departed = new Map<string, Snapshots>();
  /** Members lost (connection gone) whose loss is not accounted yet. */
  private readonly unaccounted = new Set<string>();
  private readonly lives = new Map<string, NodeFinal[]>();
  /** Nodes lost with their member, when, and when they came back. */
  readonly losses: LostNode[] = [];

  constructor(
    private readonly pod: PodSpec,
    private readonly nodesOf: (member: string) => readonly string[],
  ) {}

  /** A member's report at a lease end. */
  report(member: string, snapshot: MemberSnapshot): void {
    const kept = this.snapshots.get(member) ?? new Map<number, MemberSnapshot>();
    kept.set(snapshot.lease, snapshot);
    kept.delete(snapshot.lease - SNAPSHOTS_KEPT);
    this.snapshots.set(member, kept);
  }

  /** Its process is gone: the loss is accounted when declared (`declared`), or at the end. */
  gone(member: string): void {
    this.unaccounted.add(member);
  }

  /** A lost member's new process joined: its old life, if not yet accounted, is kept aside for that. */
  back(member: string): void {
    if (this.unaccounted.has(member)) this.departed.set(member, this.snapshots.get(member) ?? new Map());
    this.snapshots.set(member, new Map());
  }

  /**
   * The grant that declares `member` lost starts at `atPs`: its nodes' figures as of its last
   * report, with what its neighbours saw cross their links since, become a finished life of
   * each node. Every member still there has reported the lease in which the loss was noticed,
   * so their counts toward it are final. Returns the lease of its last report.
   */
  declared(member: string, atPs: number): number {
    const own = this.departed.get(member) ?? this.snapshots.get(member) ?? new Map<number, MemberSnapshot>();
    const lastLease = Math.max(0, ...own.keys());
    const last = own.get(lastLease) ?? { lease: 0, nodes: this.nodesOf(member).map((n) => emptyNodeFinal(this.pod, n)), links: [] };
    const others = [...this.snapshots].filter(([m]) => m !== member).map(([, s]) => s);
    const peersThen = others.flatMap((s) => s.get(lastLease)?.links ?? []);
    const peersNow = others.flatMap((s) => s.get(Math.max(0, ...s.keys()))?.links ?? []);
    for (const f of lostMemberFinals(last, peersThen, peersNow)) {
      this.lives.set(f.node, [...(this.lives.get(f.node) ?? []), f]);
      this.losses.push({ node: f.node, atNs: atPs / 1000, cause: 'lost', restartedAtNs: null });
    }
    if (this.departed.delete(member)) {
      // Its new process runs already: keep what it reported.
    } else {
      this.snapshots.get(member)?.clear();
    }
    this.unaccounted.delete(member);
    return lastLease;
  }

  /** The grant that brings `member` back starts at `atPs`. */
  rejoined(member: string, atPs: number): void {
    for (const node of this.nodesOf(member)) {
      const loss = this.losses.findLast((l) => l.node === node);
      if (loss !== undefined) loss.restartedAtNs = atPs / 1000;
    }
  }

  /**
   * At the run's end, `finals` being the final reports received: a member lost in the last
   * lease, before its final report, has no grant left to declare it, so it is accounted now.
   */
  settle(endPs: number, finals: ReadonlyMap<string, NodeFinal>): void {
    for (const member of [...this.unaccounted]) {
      if (this.nodesOf(member).some((n) => !finals.has(n))) this.declared(member, endPs);
      else this.unaccounted.delete(member);
    }
  }

  /** A node's lives: its finished ones and, when its member reported at the end, the last. */
  of(node: string, final: NodeFinal | undefined): NodeFinal[] {
    return [...(this.lives.get(node) ?? []), ...(final === undefined ? [] : [final])];
  }
}
