/**
 * A lease report as it travels (`Report` of @rocelab/wire) and as the controller and the sync
 * protocol read it: one mapping, used by members to write reports and by the controller to read
 * them, so the two never drift.
 */
import type { HostResults } from '@rocelab/host';
import type { NodeReport } from '@rocelab/results';
import type { Report as SyncReport } from '@rocelab/sync';
import type { NodeStats, NodeReport as WireNodeReport, Report } from '@rocelab/wire';
import type { NodeFinal } from './result.js';

/** A node's counters in a report; its results (messages, probes: large) only in the final one. */
export function toWireNode(f: NodeFinal, final: boolean): WireNodeReport {
  const stats: NodeStats = {
    sent: f.sent,
    delivered: f.delivered,
    queued: f.queued,
    dropped: f.dropped,
    causalityViolations: f.causalityViolations,
    rssBytes: Math.round(f.rssBytes),
    pssBytes: Math.round(f.pssBytes),
    resultsJson: final ? JSON.stringify(f.results) : '',
    reportJson: JSON.stringify(f.report),
  };
  return { node: f.node, hash: f.digest, events: f.events, stats };
}

/** The node's counters from a report; null when the report carried none. */
export function fromWireNode(n: WireNodeReport): NodeFinal | null {
  if (n.stats === null) return null;
  return {
    node: n.node,
    digest: n.hash,
    events: n.events,
    sent: n.stats.sent,
    delivered: n.stats.delivered,
    queued: n.stats.queued,
    dropped: n.stats.dropped,
    causalityViolations: n.stats.causalityViolations,
    rssBytes: n.stats.rssBytes,
    pssBytes: n.stats.pssBytes,
    results: n.stats.resultsJson === '' ? null : (JSON.parse(n.stats.resultsJson) as HostResults),
    report: JSON.parse(n.stats.reportJson) as NodeReport,
  };
}

/** What the coordinator reads of a member's report. */
export function toSyncReport(member: string, r: Report): SyncReport {
  return {
    member,
    lease: r.lease,
    nextEventPs: r.hasNextEvent ? r.nextEventPs : null,
    linksFailed: r.linksFailed,
    linkCounts: r.links.map((l) => ({ link: l.link, side: l.sender ? 'sender' : 'receiver', frames: l.frames })),
  };
}
