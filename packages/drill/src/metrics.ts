/**
 * A drill's `metric` expectation reads a node's metrics as `/metrics` would show them at the
 * end of the run, rebuilt from what every node reported (its `NodeReport`) and from the trace's
 * events: the same names and labels as the Prometheus series (DESIGN §6), summed over every
 * series that matches the given labels.
 */
import type { NodeReport, TraceTables } from '@rocelab/results';

type Series = { labels: Record<string, string>; value: number };

const PRIORITIES = [0, 1, 2, 3, 4, 5, 6, 7];

/** Every metric a drill may name, and how to read its series. */
const METRICS: Record<string, (nodes: readonly NodeReport[], tables: TraceTables) => Series[]> = {
  rocelab_pfc_pause_frames_sent_total: perPriority((p) => p.pfcSent),
  rocelab_pfc_pause_frames_received_total: perPriority((p) => p.pfcReceived),
  rocelab_pfc_paused_seconds_total: perPriority((p) => p.pausedPs.map((ps) => ps / 1e12)),
  rocelab_pfc_pausing_seconds_total: perPriority((p) => p.pausingPs.map((ps) => ps / 1e12)),
  rocelab_ecn_marked_packets_total: perPort((p) => p.ecnMarked),
  rocelab_transmitted_bytes_total: perPort((p) => p.txBytes),
  rocelab_received_bytes_total: perPort((p) => p.rxBytes),
  rocelab_dropped_packets_total: (nodes) =>
    nodes.flatMap((n) => n.ports.flatMap((p) => Object.entries(p.dropped).map(([reason, value]) => ({ labels: { node: n.node, role: n.role, port: p.port, reason }, value: value ?? 0 })))),
  rocelab_cnp_sent_total: perHost((h) => h.cnpsSent),
  rocelab_cnp_received_total: perHost((h) => h.cnpsReceived),
  rocelab_retransmitted_packets_total: perHost((h) => h.retransmittedPackets),
  rocelab_rto_expirations_total: perHost((h) => h.rtoExpirations),
  rocelab_goodput_bytes_total: perHost((h) => h.goodputBytes),
  rocelab_received_payload_bytes_total: perHost((h) => h.receivedPayloadBytes),
  rocelab_naks_sent_total: (nodes) => hosts(nodes).flatMap(([n, h]) => (['seq', 'rnr'] as const).map((type) => ({ labels: { node: n.node, role: n.role, type }, value: h.naksSent[type] }))),
  rocelab_naks_received_total: (nodes) => hosts(nodes).flatMap(([n, h]) => (['seq', 'rnr'] as const).map((type) => ({ labels: { node: n.node, role: n.role, type }, value: h.naksReceived[type] }))),
  rocelab_nic_pause_storm_events_total: (nodes) => hosts(nodes).flatMap(([n, h]) => (['warning', 'error'] as const).map((level) => ({ labels: { node: n.node, role: n.role, level }, value: h.stormEvents[level] }))),
  rocelab_tcp_segments_sent_total: perTcpHost((t) => t.segmentsSent),
  rocelab_tcp_retransmitted_segments_total: perTcpHost((t) => t.retransmittedSegments),
  rocelab_tcp_fast_retransmits_total: perTcpHost((t) => t.fastRetransmits),
  rocelab_tcp_rto_expirations_total: perTcpHost((t) => t.rtoExpirations),
  rocelab_tcp_window_cuts_total: perTcpHost((t) => t.cwndCuts),
  rocelab_tcp_out_of_order_segments_total: perTcpHost((t) => t.outOfOrder),
  rocelab_tagger_retagged_packets_total: perTagger((t) => t.retagged),
  rocelab_tagger_demoted_packets_total: perTagger((t) => t.demoted),
  rocelab_tagger_dropped_packets_total: perTagger((t) => t.dropped),
  rocelab_credit_wait_seconds_total: (nodes) =>
    nodes.flatMap((n) => n.ports.flatMap((p) => (p.credit === undefined ? [] : PRIORITIES.map((q) => ({ labels: { node: n.node, role: n.role, port: p.port, priority: String(q) }, value: (p.credit!.waitPs[q] ?? 0) / 1e12 }))))),
  rocelab_credit_updates_sent_total: perCreditPort((c) => c.updatesSent),
  rocelab_credit_updates_received_total: perCreditPort((c) => c.updatesReceived),
  rocelab_pfcwd_storms_detected_total: watchdogEvents('pfcwd_storm_detected'),
  rocelab_pfcwd_storms_restored_total: watchdogEvents('pfcwd_storm_restored'),
};

export const DRILL_METRIC_NAMES = Object.keys(METRICS).sort();

/** The sum of the series of `name` whose labels include `labels`. */
export function metricValue(name: string, labels: Readonly<Record<string, string>>, nodes: readonly NodeReport[], tables: TraceTables): number {
  const read = METRICS[name];
  if (read === undefined) throw new Error(`metric ${name} is not one a drill can read (${DRILL_METRIC_NAMES.join(', ')})`);
  return read(nodes, tables)
    .filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((n, s) => n + s.value, 0);
}

function perPriority(pick: (p: NodeReport['ports'][number]) => readonly number[]) {
  return (nodes: readonly NodeReport[]): Series[] =>
    nodes.flatMap((n) => n.ports.flatMap((p) => PRIORITIES.map((q) => ({ labels: { node: n.node, role: n.role, port: p.port, priority: String(q) }, value: pick(p)[q] ?? 0 }))));
}

function perPort(pick: (p: NodeReport['ports'][number]) => number) {
  return (nodes: readonly NodeReport[]): Series[] => nodes.flatMap((n) => n.ports.map((p) => ({ labels: { node: n.node, role: n.role, port: p.port }, value: pick(p) })));
}

function hosts(nodes: readonly NodeReport[]): Array<[NodeReport, NonNullable<NodeReport['host']>]> {
  return nodes.flatMap((n) => (n.host === null ? [] : [[n, n.host] as [NodeReport, NonNullable<NodeReport['host']>]]));
}

function perHost(pick: (h: NonNullable<NodeReport['host']>) => number) {
  return (nodes: readonly NodeReport[]): Series[] => hosts(nodes).map(([n, h]) => ({ labels: { node: n.node, role: n.role }, value: pick(h) }));
}

/** The TCP series exist on the hosts whose stack has connections, as in `/metrics`. */
function perTcpHost(pick: (t: NonNullable<NonNullable<NodeReport['host']>['tcp']>) => number) {
  return (nodes: readonly NodeReport[]): Series[] => hosts(nodes).flatMap(([n, h]) => (h.tcp === undefined ? [] : [{ labels: { node: n.node, role: n.role }, value: pick(h.tcp) }]));
}

function perTagger(pick: (t: NonNullable<NodeReport['tagger']>) => number) {
  return (nodes: readonly NodeReport[]): Series[] => nodes.flatMap((n) => (n.tagger === undefined ? [] : [{ labels: { node: n.node, role: n.role }, value: pick(n.tagger) }]));
}

function perCreditPort(pick: (c: NonNullable<NodeReport['ports'][number]['credit']>) => number) {
  return (nodes: readonly NodeReport[]): Series[] => nodes.flatMap((n) => n.ports.flatMap((p) => (p.credit === undefined ? [] : [{ labels: { node: n.node, role: n.role, port: p.port }, value: pick(p.credit) }])));
}

function watchdogEvents(event: string) {
  return (nodes: readonly NodeReport[], tables: TraceTables): Series[] => {
    const roles = new Map(nodes.map((n) => [n.node, n.role]));
    return (tables['events.csv'] ?? [])
      .filter((r) => r.event === event)
      .map((r) => ({ labels: { node: r.node, role: roles.get(r.node) ?? '', port: r.port, priority: String(r.priority ?? '') }, value: 1 }));
  };
}
