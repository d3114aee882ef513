/**
 * What a member learns from the controller's directory, made once: its pod context (the run's
 * seed), its links to nodes hosted elsewhere, its side of the window protocol, whether it
 * rejoins a running pod, and which links it dials to whom. `memberSetup` builds it from the
 * directory without any I/O; `SetupSlot` holds it for the member's life. A member is set up by
 * one directory: a second is refused, and nothing reads a setup that is not there yet.
 */
import { MemberSync } from '@rocelab/sync';
import type { PodSpec } from '@rocelab/topology';
import type { Directory } from '@rocelab/wire';
import { RemoteLinks, type Pair, type RemoteLink } from './member-links.js';
import { podContext, type PodContext } from './pod-context.js';

export interface MemberSetup {
  readonly pc: PodContext;
  readonly links: RemoteLinks;
  readonly sync: MemberSync;
  /** A restarted member joining a running pod: its nodes boot with fresh state at its first grant. */
  readonly rejoin: boolean;
  /**
   * The pairs whose connection this member dials, with the link URL of the neighbour: at the
   * start those with a neighbour whose id sorts after this member's (the neighbour dials the
   * rest); when it rejoins, every pair.
   */
  readonly dials: ReadonlyArray<{ readonly pair: Pair; readonly url: string }>;
}

/** The end of `link` this member hosts. */
export function nearNode(link: RemoteLink): string {
  return link.aHere ? link.spec.a.node : link.spec.b.node;
}

/** The end of `link` another member hosts. */
export function farNode(link: RemoteLink): string {
  return link.aHere ? link.spec.b.node : link.spec.a.node;
}

/**
 * The setup of member `self`, hosting `hosted` (node indices of `pod`), that `directory` makes.
 * A directory that names no member for the far end of one of its links is refused: the
 * controller lists every member of the pod, the lost ones included.
 */
export function memberSetup(pod: PodSpec, self: string, hosted: ReadonlySet<number>, directory: Directory): MemberSetup {
  const pc = podContext(pod, directory.seed);
  const memberOf = new Map<string, { id: string; url: string }>();
  for (const m of directory.members) for (const n of m.nodes) memberOf.set(n, { id: m.id, url: m.linkUrl });
  const member = (node: string, link: string): { id: string; url: string } => {
    const m = memberOf.get(node);
    if (m === undefined) throw new Error(`the directory names no member hosting ${node}, the far end of link ${link}: expected every node of pod ${pod.name} in it`);
    return m;
  };
  const links = new RemoteLinks(pod, hosted, self, (node, link) => member(node, link).id);
  const sync = new MemberSync(links.peers, { rejoin: directory.rejoin });
  const dials = [...links.allPairs()]
    .filter((pair) => directory.rejoin || pair.dialer)
    .map((pair) => Object.freeze({ pair, url: member(farNode(pair.links[0]!), pair.links[0]!.name).url }));
  return Object.freeze({ pc, links, sync, rejoin: directory.rejoin, dials: Object.freeze(dials) });
}

/** A member's setup: set once, by its directory; read only once set. */
export class SetupSlot {
  private value: MemberSetup | null = null;

  constructor(private readonly member: string) {}

  set(setup: MemberSetup): void {
    if (this.value !== null) throw new Error(`member ${this.member}: a second directory from the controller: a member is set up once`);
    this.value = setup;
  }

  /** The setup; asking before the directory came is a bug. */
  get(): MemberSetup {
    if (this.value === null) throw new Error(`member ${this.member}: not set up yet (no directory from the controller)`);
    return this.value;
  }

  /** The setup, or null before the directory (stopping, diagnostics). */
  get orNull(): MemberSetup | null {
    return this.value;
  }
}
