/**
 * What is known of a member process that died (kill -9, OOM, a container stopped): its nodes'
 * counters as of the last lease it reported, and its neighbours' counts of what crossed each
 * link since. At a lease end nothing is in flight between processes (every batch of the lease
 * has been received), so that report is a consistent cut; what happened inside the dead process
 * after it is unknowable, and is accounted from the outside:
 *
 * - frames its neighbours shipped to it after the cut (B) entered it;
 * - frames its neighbours accepted from it after the cut (A) left it;
 * - it held `queued` frames at the cut.
 *
 * Every frame that entered and did not come out is lost with the node (`node_lost`): queued + B
 * − A. More may come out than went in — a host originates frames — so the node is credited with
 * the fewest originations that explain it, max(0, A − queued − B). Per node this balances by
 * construction, so the pod's conservation audit still holds. Deliveries and drops inside the
 * dead process after the cut are indistinguishable from losses and are counted as `node_lost`.
 */
import { createHash } from 'node:crypto';
import { emptyHostReport, emptyPortReport, mergeNodeReports } from '@rocelab/results';
import type { PodSpec } from '@rocelab/topology';
import type { NodeFinal } from './result.js';

/** One end's cumulative count on a remote link direction `from-node:port>to-node:port`. */
export interface LinkTotal {
  link: string;
  /** true: frames this end shipped on the direction; false: frames it accepted from it. */
  sender: boolean;
  frames: number;
}

/** What a member reported at the end of a lease: its nodes' counters and its link totals. */
export interface MemberSnapshot {
  lease: number;
  nodes: readonly NodeFinal[];
  links: readonly LinkTotal[];
}

const nodeOf = (end: string): string => end.slice(0, end.indexOf(':'));

/**
 * The lost member's nodes, final. `last`: its last snapshot (lease 0: nothing happened yet);
 * `peersThen`/`peersNow`: the other members' link totals at that lease and now (after every
 * link to it stopped carrying frames).
 */
export function lostMemberFinals(last: MemberSnapshot, peersThen: readonly LinkTotal[], peersNow: readonly LinkTotal[]): NodeFinal[] {
  const lost = new Set(last.nodes.map((n) => n.node));
  const key = (t: LinkTotal) => `${t.sender ? 's' : 'a'}${t.link}`;
  const then = new Map(peersThen.map((t) => [key(t), t.frames]));
  const came = new Map<string, number>();
  const left = new Map<string, number>();
  for (const t of peersNow) {
    const [from, to] = t.link.split('>').map(nodeOf) as [string, string];
    const since = t.frames - (then.get(key(t)) ?? 0);
    if (since < 0) throw new Error(`member loss: ${t.link} count went back from ${then.get(key(t))} to ${t.frames}`);
    if (t.sender && lost.has(to) && !lost.has(from)) came.set(to, (came.get(to) ?? 0) + since);
    if (!t.sender && lost.has(from) && !lost.has(to)) left.set(from, (left.get(from) ?? 0) + since);
  }
  return last.nodes.map((n) => {
    const entered = n.queued + (came.get(n.node) ?? 0);
    const out = left.get(n.node) ?? 0;
    const originated = Math.max(0, out - entered);
    const lostFrames = entered + originated - out;
    return {
      ...n,
      sent: n.sent + originated,
      queued: 0,
      dropped: { ...n.dropped, node_lost: (n.dropped.node_lost ?? 0) + lostFrames },
      results: null,
    };
  });
}

/** A node's figures before its member reported any lease: nothing happened yet. */
export function emptyNodeFinal(pod: PodSpec, name: string): NodeFinal {
  const node = pod.nodes.find((n) => n.name === name)!;
  const host = node.role === 'host' ? emptyHostReport() : null;
  return { node: name, digest: createHash('sha256').digest(), events: 0, sent: 0, delivered: 0, queued: 0, dropped: {}, causalityViolations: 0, rssBytes: 0, pssBytes: 0, results: null, report: { node: name, role: node.role, ports: node.ports.map((p) => emptyPortReport(p.name)), host } };
}

/**
 * One node's figures over its lives (a member lost, then restarted with fresh counters): the
 * counters add, the summary figures merge (`mergeNodeReports`), the results are the last
 * life's that has any, and the trace digest is the one life's, or a digest of the lives'.
 */
export function mergeLives(lives: readonly NodeFinal[]): NodeFinal {
  if (lives.length === 1) return lives[0]!;
  const last = lives[lives.length - 1]!;
  const sum = (pick: (f: NodeFinal) => number) => lives.reduce((n, f) => n + pick(f), 0);
  const dropped: Record<string, number> = {};
  for (const f of lives) for (const [reason, n] of Object.entries(f.dropped)) dropped[reason] = (dropped[reason] ?? 0) + n;
  const digest = createHash('sha256');
  for (const f of lives) digest.update(f.digest);
  return {
    node: last.node,
    digest: digest.digest(),
    events: sum((f) => f.events),
    sent: sum((f) => f.sent),
    delivered: sum((f) => f.delivered),
    queued: sum((f) => f.queued),
    dropped,
    causalityViolations: sum((f) => f.causalityViolations),
    rssBytes: last.rssBytes,
    pssBytes: last.pssBytes,
    results: [...lives].reverse().find((f) => f.results !== null)?.results ?? null,
    report: mergeNodeReports(lives.map((f) => f.report)),
  };
}
