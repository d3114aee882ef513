/**
 * A lease report as it travels (`Report` of @rocelab/wire) and as the controller and the sync
 * protocol read it: one mapping, used by members to write reports and by the controller to read
 * them, so the two never drift. The node's report and results travel as JSON (`reportJson`,
 * `resultsJson`); this is the one module that writes and reads them, and it checks what it reads
 * against their schemas (@rocelab/results payload-schemas.ts, precompiled), so the controller gets
 * a typed `NodeReport` and `HostResults` or a `ReportPayloadError` naming the node and the field.
 */
import { hostResultsSchema, nodeReportSchema, type HostResults, type NodeReport } from '@rocelab/results';
import { schemaValidator, validateWith, type JsonSchema } from '@rocelab/topology';
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
    results: n.stats.resultsJson === '' ? null : hostResults(n.node, n.stats.resultsJson),
    report: nodeReport(n.node, n.stats.reportJson),
  };
}

/** A node's report or results that is not what a node reports: a member of another build, or a bug. */
export class ReportPayloadError extends Error {}

const NODE_REPORT_SCHEMA: JsonSchema = nodeReportSchema();
const HOST_RESULTS_SCHEMA: JsonSchema = hostResultsSchema();

function isNodeReport(data: unknown): data is NodeReport {
  return schemaValidator(NODE_REPORT_SCHEMA).validate(data);
}

function isHostResults(data: unknown): data is HostResults {
  return schemaValidator(HOST_RESULTS_SCHEMA).validate(data);
}

function nodeReport(node: string, json: string): NodeReport {
  const data = parsed(node, 'reportJson', json);
  if (!isNodeReport(data)) throw refused(node, 'reportJson', NODE_REPORT_SCHEMA, data);
  return data;
}

/** A switch's results are `null`; a host's are its messages and probes. */
function hostResults(node: string, json: string): HostResults | null {
  const data = parsed(node, 'resultsJson', json);
  if (data === null) return null;
  if (!isHostResults(data)) throw refused(node, 'resultsJson', HOST_RESULTS_SCHEMA, data);
  return data;
}

function parsed(node: string, field: string, json: string): unknown {
  try {
    return JSON.parse(json) as unknown;
  } catch {
    throw new ReportPayloadError(`node ${node}: stats.${field}: expected JSON, got ${JSON.stringify(json.slice(0, 80))}`);
  }
}

function refused(node: string, field: string, schema: JsonSchema, data: unknown): ReportPayloadError {
  const lines = validateWith(schema, data, `stats.${field}`).map((p) => `${p.path}: expected ${p.expected}, got ${p.actual}`);
  return new ReportPayloadError(`node ${node}: ${lines.join('; ')}`);
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
