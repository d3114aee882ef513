/**
 * The metrics every node serves (names of DESIGN §6), read from the engine's plain counters.
 * Every label set that can exist is emitted from the start (zeros, not gaps) and the label
 * sets are bounded: node and role as default labels, then port, priority, reason.
 */
import { DROP_REASONS, type NodeStats } from '@rocelab/sim';
import { Registry } from 'prom-client';
import { readCounter, readGauge, readHistogram, type HistogramView } from './collectors.js';

const PRIORITIES = [0, 1, 2, 3, 4, 5, 6, 7];

export interface NodeMetricsSource {
  stats: NodeStats;
  portNames: readonly string[];
  /** Virtual time this node has executed, in seconds. */
  virtualSeconds(): number;
  /** Virtual seconds priority `p` of `port`'s transmitter was held by received pauses. */
  pausedSeconds(port: number, priority: number): number;
  /** Whether that priority is paused now. */
  paused(port: number, priority: number): boolean;
  /** Model events this node has processed. */
  events(): number;
  /** Credit flow control per port (issue 14): null for a PFC port. */
  credit?(port: number): { waitSeconds(priority: number): number; updatesSent: number; updatesReceived: number } | null;
  /** Synchronization windows this node has run. */
  windows(): number;
  /**
   * Each port's transmit direction now (issue 24): the rate it serializes at (below the configured
   * one while a `linkRate` fault holds), whether it carries nothing (`linkDown`, one-way or both),
   * and the largest IP packet it carries (0: no `mtuMismatch` limit).
   */
  linkDirection?(port: number): { rateBps: number; down: boolean; ipMtuBytes: number };
  /** Switches: queues, buffers, ECN, PFC generation and the watchdog. */
  switch?: SwitchMetricsSource;
  /** Hosts: the RDMA NIC. */
  nic?: NicMetricsSource;
}

export type NakType = 'seq' | 'rnr';
export type StormLevel = 'warning' | 'error';

/** What a host's NIC adds (DESIGN §6, NIC). */
export interface NicMetricsSource {
  cnpsSent(): number;
  cnpsReceived(): number;
  /** Frames a `dscpMisconfig` fault re-marked as they left this NIC (issue 24). */
  dscpRemarked?(): number;
  retransmittedPackets(): number;
  naksSent(type: NakType): number;
  naksReceived(type: NakType): number;
  rtoExpirations(): number;
  /** Payload this host's responders hold for good: in-order bytes go-back-N never takes back; under go-back-0 whole messages. */
  goodputBytes(): number;
  /** Payload of every data packet that reached the transport (duplicates and out-of-sequence ones too). */
  receivedPayloadBytes(): number;
  stormEvents(level: StormLevel): number;
  /** Virtual seconds this NIC held its ToR paused (port 0, its lossless priorities). */
  pausingSeconds(priority: number): number;
  messageCompletionSeconds: HistogramView;
  probeRttSeconds: HistogramView;
  /** Per-QP DCQCN state, only when the pod asks for it (bounded by the NIC). */
  qps?(): Array<{ qp: string; rateBps: number; targetBps: number; alpha: number }>;
  /** The host's TCP stack, when it has connections (issue 14). */
  tcp?(): { segmentsSent: number; retransmittedSegments: number; fastRetransmits: number; rtoExpirations: number; cwndCuts: number; outOfOrder: number };
}

/** What a switch adds, per (port, priority) unless noted. */
export interface SwitchMetricsSource {
  queueDepthBytes(port: number, priority: number): number;
  ingressBytes(port: number, priority: number): number;
  headroomBytes(port: number, priority: number): number;
  /** Whole switch. */
  sharedUsedBytes(): number;
  ecnMarked(port: number, priority: number): number;
  /** Virtual seconds this switch held the upstream of (port, priority) paused. */
  pausingSeconds(port: number, priority: number): number;
  /** 1 stormed, 0 operational (also 0 where no watchdog runs). */
  stormed(port: number, priority: number): number;
  stormsDetected(port: number, priority: number): number;
  stormsRestored(port: number, priority: number): number;
  /** Per port: copies this switch made by flooding out of it. */
  floodCopies(port: number): number;
  /** Tagger's live counters (issue 14), or null when it is off. */
  tagger: { readonly retagged: number; readonly demoted: number; readonly dropped: number } | null;
  /** Issue 24's switch faults, per (port, priority): the queue is stuck now (1/0), and for how long so far. */
  egressStuck(port: number, priority: number): number;
  egressStuckSeconds(port: number, priority: number): number;
  /** The rate a slow egress holds the queue to, bit/s; 0 when it is not slow. */
  egressSlowBps(port: number, priority: number): number;
  /** This port storms its neighbour on the priority now (1/0), and for how long so far. */
  pauseStorm(port: number, priority: number): number;
  pauseStormSeconds(port: number, priority: number): number;
  /** (ingress port, DSCP) pairs a `dscpMisconfig` fault classifies otherwise than the settings (issue 24). */
  dscpRemapped?(): number;
  /** The ECMP seed in force (an `ecmpMisconfig` fault may have changed it, issue 24). */
  ecmpSeed?(): number;
}

export interface NodeIdentity {
  node: string;
  role: string;
  version: string;
}

/** One of an app's own metrics (issue 13): a counter's value or a histogram, read at each scrape. */
export interface AppMetricView {
  name: string;
  help: string;
  counter: { value: number } | null;
  histogram: HistogramView | null;
}

/**
 * Register the app's metrics this registry does not have yet: an app creates them as it runs,
 * so each scrape calls this first. `rocelab_app_<name>_total` for counters, `rocelab_app_<name>`
 * for histograms, with the app's module as the `app` label.
 */
export function syncAppMetrics(registry: Registry, app: string, metrics: readonly AppMetricView[]): void {
  for (const m of metrics) {
    const name = m.counter !== null ? `rocelab_app_${m.name}_total` : `rocelab_app_${m.name}`;
    if (registry.getSingleMetric(name) !== undefined) continue;
    if (m.counter !== null) readCounter(registry, name, m.help, ['app'], (emit) => emit({ app }, m.counter!.value));
    else readHistogram(registry, name, m.help, ['app'], (emit) => emit({ app }, m.histogram!));
  }
}

export function createNodeRegistry(id: NodeIdentity, source: NodeMetricsSource): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ node: id.node, role: id.role });
  const { stats, portNames } = source;
  const perPort = (name: string, help: string, value: (port: number) => number) =>
    readCounter(registry, name, help, ['port'], (emit) => portNames.forEach((port, i) => emit({ port }, value(i))));
  const perPriority = (name: string, help: string, value: (port: number, p: number) => number, gauge = false) =>
    (gauge ? readGauge : readCounter)(registry, name, help, ['port', 'priority'], (emit) =>
      portNames.forEach((port, i) => PRIORITIES.forEach((p) => emit({ port, priority: String(p) }, value(i, p)))),
    );

  perPort('rocelab_transmitted_packets_total', 'Frames this port started transmitting (every frame kind).', (i) => stats.ports[i]!.txFrames);
  perPort('rocelab_transmitted_bytes_total', 'Bytes of the frames this port transmitted, preamble and gap excluded.', (i) => stats.ports[i]!.txBytes);
  perPort('rocelab_received_packets_total', 'Frames this port received intact.', (i) => stats.ports[i]!.rxFrames);
  perPort('rocelab_received_bytes_total', 'Bytes of the frames this port received intact.', (i) => stats.ports[i]!.rxBytes);
  readCounter(registry, 'rocelab_dropped_packets_total', 'Frames dropped here, by port and reason (the closed list of DESIGN §6).', ['port', 'reason'], (emit) =>
    portNames.forEach((port, i) => DROP_REASONS.forEach((reason, r) => emit({ port, reason }, stats.ports[i]!.dropped[r]!))),
  );
  perPriority('rocelab_pfc_pause_frames_sent_total', 'PFC frames sent with this priority enabled (SAI PFC_n_TX_PKTS).', (i, p) => stats.ports[i]!.pfcTx[p]!);
  perPriority('rocelab_pfc_pause_frames_received_total', 'PFC frames received with this priority enabled (SAI PFC_n_RX_PKTS).', (i, p) => stats.ports[i]!.pfcRx[p]!);
  perPriority('rocelab_pfc_paused_seconds_total', 'Virtual seconds this transmitter priority was held by received pauses.', (i, p) => source.pausedSeconds(i, p));
  perPriority('rocelab_pfc_paused', 'Whether this transmitter priority is paused now (0/1).', (i, p) => (source.paused(i, p) ? 1 : 0), true);
  const credit = source.credit;
  const creditPorts = credit === undefined ? [] : portNames.flatMap((port, i) => (credit(i) === null ? [] : [{ port, i }]));
  if (creditPorts.length > 0) {
    const view = (i: number) => credit!(i)!;
    readCounter(registry, 'rocelab_credit_wait_seconds_total', 'Virtual seconds this transmitter lane (priority) of a credit link waited for credit (like paused time under PFC).', ['port', 'priority'], (emit) =>
      creditPorts.forEach(({ port, i }) => PRIORITIES.forEach((p) => emit({ port, priority: String(p) }, view(i).waitSeconds(p)))),
    );
    readCounter(registry, 'rocelab_credit_updates_sent_total', 'Credit update frames this port of a credit link sent (buffer given back to the peer).', ['port'], (emit) => creditPorts.forEach(({ port, i }) => emit({ port }, view(i).updatesSent)));
    readCounter(registry, 'rocelab_credit_updates_received_total', 'Credit update frames this port of a credit link received.', ['port'], (emit) => creditPorts.forEach(({ port, i }) => emit({ port }, view(i).updatesReceived)));
  }
  const link = source.linkDirection;
  if (link !== undefined) {
    const perPortGauge = (name: string, help: string, value: (port: number) => number) => readGauge(registry, name, help, ['port'], (emit) => portNames.forEach((port, i) => emit({ port }, value(i))));
    perPortGauge('rocelab_link_rate_bytes_per_second', 'The rate this port transmits at now, bytes per virtual second (lower than configured while a linkRate fault holds).', (i) => link(i).rateBps / 8);
    perPortGauge('rocelab_link_transmit_down', 'Whether this port transmit direction carries nothing now (0/1): linkDown, one-way or both.', (i) => (link(i).down ? 1 : 0));
    perPortGauge('rocelab_link_ip_mtu_bytes', 'The largest IP packet this port transmits while an mtuMismatch fault holds (0: no such limit).', (i) => link(i).ipMtuBytes);
  }
  const sw = source.switch;
  if (sw !== undefined) {
    perPriority('rocelab_queue_depth_bytes', 'Bytes waiting in this egress queue (SAI_QUEUE_STAT_CURR_OCCUPANCY_BYTES).', (i, p) => sw.queueDepthBytes(i, p), true);
    perPriority('rocelab_ingress_buffer_bytes', 'Bytes this ingress priority group holds in reserve and shared buffer.', (i, p) => sw.ingressBytes(i, p), true);
    perPriority('rocelab_headroom_buffer_bytes', 'Bytes this lossless ingress priority group holds in headroom (arrived after XOFF).', (i, p) => sw.headroomBytes(i, p), true);
    readGauge(registry, 'rocelab_shared_buffer_used_bytes', 'Bytes of the shared pool in use on this switch.', [], (emit) => emit({}, sw.sharedUsedBytes()));
    perPriority('rocelab_ecn_marked_packets_total', 'Packets marked CE at dequeue from this egress queue.', (i, p) => sw.ecnMarked(i, p));
    perPriority('rocelab_pfc_pausing_seconds_total', 'Virtual seconds this ingress held its upstream paused.', (i, p) => sw.pausingSeconds(i, p));
    perPriority('rocelab_pfcwd_stormed', 'PFC watchdog state of this queue: 1 stormed, 0 operational (SONiC PFC_WD_STATUS).', (i, p) => sw.stormed(i, p), true);
    perPriority('rocelab_pfcwd_storms_detected_total', 'PFC storms the watchdog declared on this queue.', (i, p) => sw.stormsDetected(i, p));
    perPriority('rocelab_pfcwd_storms_restored_total', 'PFC storms the watchdog restored on this queue.', (i, p) => sw.stormsRestored(i, p));
    perPort('rocelab_flooded_packets_total', 'Copies this switch made by flooding a packet out of this port (unknown destination MAC).', (i) => sw.floodCopies(i));
    perPriority('rocelab_egress_stuck', 'Whether a fault holds this egress queue stopped (egressStuck): 1 stuck, 0 running.', (i, p) => sw.egressStuck(i, p), true);
    perPriority('rocelab_egress_stuck_seconds_total', 'Virtual seconds this egress queue was held stopped by a fault (egressStuck).', (i, p) => sw.egressStuckSeconds(i, p));
    perPriority('rocelab_egress_slow_rate_bytes_per_second', 'The drain rate a fault holds this egress queue to (egressSlow), bytes per virtual second; 0 when none.', (i, p) => sw.egressSlowBps(i, p) / 8, true);
    perPriority('rocelab_switch_pause_storm', 'Whether this port pauses its neighbour on this priority whatever its buffer says (switchPauseStorm): 1 storming, 0 not.', (i, p) => sw.pauseStorm(i, p), true);
    perPriority('rocelab_switch_pause_storm_seconds_total', 'Virtual seconds this port stormed its neighbour with pauses on this priority (switchPauseStorm).', (i, p) => sw.pauseStormSeconds(i, p));
    const tagger = sw.tagger;
    if (tagger !== null) {
      const one = (name: string, help: string, value: () => number) => readCounter(registry, name, help, [], (emit) => emit({}, value()));
      one('rocelab_tagger_retagged_packets_total', 'Packets Tagger moved to the next lossless tag: forwarded against up-down (a bounce).', () => tagger.retagged);
      one('rocelab_tagger_demoted_packets_total', 'Packets past the last lossless tag that Tagger moved to its lossy priority.', () => tagger.demoted);
      one('rocelab_tagger_dropped_packets_total', 'Packets past the last lossless tag that Tagger dropped (beyond: drop).', () => tagger.dropped);
    }
    if (sw.dscpRemapped !== undefined) {
      const remapped = sw.dscpRemapped.bind(sw);
      readGauge(registry, 'rocelab_dscp_remapped_entries', 'Ingress (port, DSCP) pairs a dscpMisconfig fault classifies to another priority than the settings.', [], (emit) => emit({}, remapped()));
    }
    if (sw.ecmpSeed !== undefined) {
      const seed = sw.ecmpSeed.bind(sw);
      readGauge(registry, 'rocelab_ecmp_seed', 'The ECMP hash seed this switch uses now (an ecmpMisconfig fault may have changed it).', [], (emit) => emit({}, seed()));
    }
  }
  const nic = source.nic;
  if (nic !== undefined) {
    const one = (name: string, help: string, value: () => number) => readCounter(registry, name, help, [], (emit) => emit({}, value()));
    one('rocelab_cnp_sent_total', 'CNPs this NIC sent as notification point.', () => nic.cnpsSent());
    one('rocelab_cnp_received_total', 'CNPs this NIC received as reaction point.', () => nic.cnpsReceived());
    if (nic.dscpRemarked !== undefined) {
      const remarked = nic.dscpRemarked.bind(nic);
      one('rocelab_dscp_remarked_packets_total', 'Frames this NIC sent with another DSCP than configured (a dscpMisconfig fault).', () => remarked());
    }
    one('rocelab_retransmitted_packets_total', 'Data packets sent again: by go-back-N/0, selective repeat or after a timeout, and TCP segments sent again.', () => nic.retransmittedPackets());
    const types: NakType[] = ['seq', 'rnr'];
    readCounter(registry, 'rocelab_naks_sent_total', 'NAKs this NIC sent, by type (PSN sequence error, RNR).', ['type'], (emit) => types.forEach((type) => emit({ type }, nic.naksSent(type))));
    readCounter(registry, 'rocelab_naks_received_total', 'NAKs this NIC received, by type.', ['type'], (emit) => types.forEach((type) => emit({ type }, nic.naksReceived(type))));
    one('rocelab_rto_expirations_total', 'Local ACK timeouts that expired, and TCP retransmission timeouts.', () => nic.rtoExpirations());
    one('rocelab_goodput_bytes_total', 'Payload bytes delivered for good: in order and never taken back (go-back-0: whole messages only).', () => nic.goodputBytes());
    one('rocelab_received_payload_bytes_total', 'Payload bytes of every data packet that reached the transport, duplicates and out-of-sequence ones included.', () => nic.receivedPayloadBytes());
    const levels: StormLevel[] = ['warning', 'error'];
    readCounter(registry, 'rocelab_nic_pause_storm_events_total', 'NIC stall prevention events (mlx5 tx_pause_storm_warning/error_events).', ['level'], (emit) =>
      levels.forEach((level) => emit({ level }, nic.stormEvents(level))),
    );
    perPriority('rocelab_pfc_pausing_seconds_total', 'Virtual seconds this NIC held its ToR paused.', (i, p) => (i === 0 ? nic.pausingSeconds(p) : 0));
    readHistogram(registry, 'rocelab_message_completion_seconds', 'Message completion time (post to last ACK), virtual seconds.', [], (emit) => emit({}, nic.messageCompletionSeconds));
    readHistogram(registry, 'rocelab_probe_rtt_seconds', 'Pingmesh probe round-trip time, virtual seconds.', [], (emit) => emit({}, nic.probeRttSeconds));
    if (nic.tcp !== undefined) {
      const tcp = nic.tcp.bind(nic);
      one('rocelab_tcp_segments_sent_total', 'TCP segments this host sent, retransmissions included.', () => tcp().segmentsSent);
      one('rocelab_tcp_retransmitted_segments_total', 'TCP segments sent again (fast retransmit, partial ACKs, timeouts).', () => tcp().retransmittedSegments);
      one('rocelab_tcp_fast_retransmits_total', 'TCP losses detected by three duplicate ACKs.', () => tcp().fastRetransmits);
      one('rocelab_tcp_rto_expirations_total', 'TCP retransmission timeouts that expired.', () => tcp().rtoExpirations);
      one('rocelab_tcp_window_cuts_total', 'DCTCP window cuts for ECN-marked windows.', () => tcp().cwndCuts);
      one('rocelab_tcp_out_of_order_segments_total', 'TCP segments this host received ahead of a hole.', () => tcp().outOfOrder);
    }
    if (nic.qps !== undefined) {
      const qps = nic.qps.bind(nic);
      readGauge(registry, 'rocelab_qp_rate_bytes_per_second', 'DCQCN current rate of a QP, bytes per virtual second.', ['qp'], (emit) => qps().forEach((q) => emit({ qp: q.qp }, q.rateBps / 8)));
      readGauge(registry, 'rocelab_qp_target_rate_bytes_per_second', 'DCQCN target rate of a QP, bytes per virtual second.', ['qp'], (emit) => qps().forEach((q) => emit({ qp: q.qp }, q.targetBps / 8)));
      readGauge(registry, 'rocelab_dcqcn_alpha_ratio', 'DCQCN α of a QP (0–1).', ['qp'], (emit) => qps().forEach((q) => emit({ qp: q.qp }, q.alpha)));
    }
  }
  readCounter(registry, 'rocelab_virtual_seconds_total', 'Virtual seconds this node has executed; divide rates by its rate for per-virtual-second rates.', [], (emit) => emit({}, source.virtualSeconds()));
  readCounter(registry, 'rocelab_events_processed_total', 'Model events this node processed.', [], (emit) => emit({}, source.events()));
  readCounter(registry, 'rocelab_causality_violations_total', 'Frames that arrived for a window already executed (a protocol bug; must stay 0).', [], (emit) => emit({}, stats.causalityViolations));
  readCounter(registry, 'rocelab_sync_windows_total', 'Synchronization windows this node has run.', [], (emit) => emit({}, source.windows()));
  readGauge(registry, 'rocelab_node_up', 'This node is running (1).', [], (emit) => emit({}, 1));
  readGauge(registry, 'rocelab_build_info', 'rocelab build; the value is always 1.', ['version'], (emit) => emit({ version: id.version }, 1));
  return registry;
}
