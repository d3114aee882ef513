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
import { RemoteLinks, type RemoteLink } from './member-links.js';
import { podContext, type PodContext } from './pod-context.js';

export interface MemberSetup {
  readonly pc: PodContext;
  readonly links: RemoteLinks;
  readonly sync: MemberSync;
  /** A restarted member joining a running pod: its nodes boot with fresh state at its first grant. */
  readonly rejoin: boolean;
  /**
   * The links this member dials, with the link URL of the member hosting the far end: at the
   * start those whose `a` end it hosts (the other end dials the rest); when it rejoins, every link.
   */
  readonly dials: ReadonlyArray<{ readonly link: RemoteLink; readonly url: string }>;
}

/** The end of `link` this member hosts. */
export function nearNode(link: RemoteLink): string {
  return link.dialer ? link.spec.a.node : link.spec.b.node;
}

/** The end of `link` another member hosts. */
export function farNode(link: RemoteLink): string {
  return link.dialer ? link.spec.b.node : link.spec.a.node;
}

/**
 * The setup of the member hosting `hosted` (node indices of `pod`) that `directory` makes. A
 * directory that names no member for the far end of a link this member dials is refused: the
 * controller lists every member of the pod, the lost ones included.
 */
export function memberSetup(pod: PodSpec, hosted: ReadonlySet<number>, directory: Directory): MemberSetup {
  const pc = podContext(pod, directory.seed);
  const links = new RemoteLinks(pod, hosted);
  const sync = new MemberSync(links.names, { rejoin: directory.rejoin });
  const urlOf = new Map<string, string>();
  for (const m of directory.members) for (const n of m.nodes) urlOf.set(n, m.linkUrl);
  const dials = [...links.all()]
    .filter((link) => directory.rejoin || link.dialer)
    .map((link) => {
      const url = urlOf.get(farNode(link));
      if (url === undefined) throw new Error(`the directory names no member hosting ${farNode(link)}, the far end of link ${link.name}: expected every node of pod ${pod.name} in it`);
      return Object.freeze({ link, url });
    });
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
