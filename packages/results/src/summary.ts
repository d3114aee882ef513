/**
 * The fabric part of a run's summary: which ports paused and were paused (per priority, how
 * often, for how long, first and last pause), ECN marks, drops by reason and peak queues, and
 * each host's transport counters. Bounded for large pods: totals over everything, then the
 * top ports and hosts by how much happened there; the trace has the full detail.
 */
import type { DropReason } from '@rocelab/sim';
import type { HostReport, NodeReport, PortReport, TcpReport } from './node-report.js';
import { mergeTcp } from './merge-reports.js';

export interface PriorityPfc {
  priority: number;
  pauseFramesSent: number;
  pauseFramesReceived: number;
  /** Time this port's transmitter was held on this priority. */
  pausedNs: number;
  /** Time this port held its peer paused on this priority. */
  pausingNs: number;
}

export interface PortSummary {
  /** `node:port` */
  port: string;
  role: string;
  /** Priorities with any PFC activity. */
  pfc: PriorityPfc[];
  firstPauseReceivedNs: number | null;
  lastPauseReceivedNs: number | null;
  firstPauseSentNs: number | null;
  lastPauseSentNs: number | null;
  ecnMarked: number;
  droppedByReason: Partial<Record<DropReason, number>>;
  peakQueueBytes: number;
}

export interface HostSummary extends HostReport {
  host: string;
}

export interface PortTotals {
  pauseFramesSent: number;
  pauseFramesReceived: number;
  /** Ports whose transmitter was held at some point / that held their peer. */
  pausedPorts: number;
  pausingPorts: number;
  ecnMarked: number;
  peakQueueBytes: number;
  /** Lossless frames dropped for lack of buffer anywhere (0 in a lossless fabric that works). */
  losslessDrops: number;
}

export type HostTotals = Omit<HostReport, never>;

export interface FabricSummary {
  portTotals: PortTotals;
  /** Ports with any PFC, ECN or drop activity, most paused first; at most `limit`. */
  ports: PortSummary[];
  portsOmitted: number;
  hostTotals: HostTotals;
  /** Hosts with any transport event (CNP, retransmission, NAK, RTO, storm), busiest first; at most `limit`. */
  hosts: HostSummary[];
  hostsOmitted: number;
}

/** How many ports and hosts the summary lists by name. */
export const SUMMARY_TOP = 20;

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);
const nsOrNull = (ps: number) => (ps < 0 ? null : ps / 1000);

function portSummary(node: NodeReport, p: PortReport): PortSummary {
  const pfc: PriorityPfc[] = [];
  for (let priority = 0; priority < 8; priority++) {
    const row = {
      priority,
      pauseFramesSent: p.pfcSent[priority] ?? 0,
      pauseFramesReceived: p.pfcReceived[priority] ?? 0,
      pausedNs: (p.pausedPs[priority] ?? 0) / 1000,
      pausingNs: (p.pausingPs[priority] ?? 0) / 1000,
    };
    if (row.pauseFramesSent + row.pauseFramesReceived + row.pausedNs + row.pausingNs > 0) pfc.push(row);
  }
  return {
    port: `${node.node}:${p.port}`,
    role: node.role,
    pfc,
    firstPauseReceivedNs: nsOrNull(p.firstPauseRxPs),
    lastPauseReceivedNs: nsOrNull(p.lastPauseRxPs),
    firstPauseSentNs: nsOrNull(p.firstPauseTxPs),
    lastPauseSentNs: nsOrNull(p.lastPauseTxPs),
    ecnMarked: p.ecnMarked,
    droppedByReason: p.dropped,
    peakQueueBytes: p.peakQueueBytes,
  };
}

const pausedNs = (s: PortSummary) => sum(s.pfc.map((r) => r.pausedNs));
const pausingNs = (s: PortSummary) => sum(s.pfc.map((r) => r.pausingNs));
const pfcFrames = (s: PortSummary) => sum(s.pfc.map((r) => r.pauseFramesSent + r.pauseFramesReceived));
const drops = (s: PortSummary) => sum(Object.values(s.droppedByReason));
const busyHost = (h: HostReport) =>
  h.cnpsSent + h.cnpsReceived + h.retransmittedPackets + h.naksSent.seq + h.naksSent.rnr + h.naksReceived.seq + h.naksReceived.rnr + h.rtoExpirations + h.stormEvents.warning + h.stormEvents.error;

export function fabricSummary(nodes: readonly NodeReport[], limit = SUMMARY_TOP): FabricSummary {
  const ports = nodes.flatMap((n) => n.ports.map((p) => portSummary(n, p)));
  const active = ports
    .filter((s) => s.pfc.length > 0 || s.ecnMarked > 0 || drops(s) > 0)
    // Most paused first, then most pausing, most PFC frames, most drops; by name at a tie.
    .sort((a, b) => pausedNs(b) - pausedNs(a) || pausingNs(b) - pausingNs(a) || pfcFrames(b) - pfcFrames(a) || drops(b) - drops(a) || (a.port < b.port ? -1 : 1));
  const hosts = nodes.flatMap((n) => (n.host === null ? [] : [{ host: n.node, ...n.host }]));
  const busy = hosts.filter((h) => busyHost(h) > 0).sort((a, b) => busyHost(b) - busyHost(a) || (a.host < b.host ? -1 : 1));
  const all = nodes.flatMap((n) => n.ports);
  return {
    portTotals: {
      pauseFramesSent: sum(all.map((p) => sum(p.pfcSent))),
      pauseFramesReceived: sum(all.map((p) => sum(p.pfcReceived))),
      pausedPorts: all.filter((p) => sum(p.pausedPs) > 0).length,
      pausingPorts: all.filter((p) => sum(p.pausingPs) > 0).length,
      ecnMarked: sum(all.map((p) => p.ecnMarked)),
      peakQueueBytes: Math.max(0, ...all.map((p) => p.peakQueueBytes)),
      losslessDrops: sum(all.map((p) => p.losslessDrops)),
    },
    ports: active.slice(0, limit),
    portsOmitted: Math.max(0, active.length - limit),
    hostTotals: hostTotals(hosts),
    hosts: busy.slice(0, limit),
    hostsOmitted: Math.max(0, busy.length - limit),
  };
}

function hostTotals(hosts: readonly HostReport[]): HostTotals {
  const t = (pick: (h: HostReport) => number) => sum(hosts.map(pick));
  return {
    cnpsSent: t((h) => h.cnpsSent),
    cnpsReceived: t((h) => h.cnpsReceived),
    retransmittedPackets: t((h) => h.retransmittedPackets),
    naksSent: { seq: t((h) => h.naksSent.seq), rnr: t((h) => h.naksSent.rnr) },
    naksReceived: { seq: t((h) => h.naksReceived.seq), rnr: t((h) => h.naksReceived.rnr) },
    rtoExpirations: t((h) => h.rtoExpirations),
    rnrWaits: t((h) => h.rnrWaits),
    stormEvents: { warning: t((h) => h.stormEvents.warning), error: t((h) => h.stormEvents.error) },
    goodputBytes: t((h) => h.goodputBytes),
    receivedPayloadBytes: t((h) => h.receivedPayloadBytes),
    ...(hosts.some((h) => h.tcp !== undefined) ? { tcp: hosts.reduce<TcpReport | undefined>((a, h) => (h.tcp === undefined ? a : mergeTcp(a, h.tcp)), undefined)! } : {}),
  };
}
