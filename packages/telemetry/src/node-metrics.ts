/**
 * The metrics every node serves (names of DESIGN §6), read from the engine's plain counters.
 * Every label set that can exist is emitted from the start (zeros, not gaps) and the label
 * sets are bounded: node and role as default labels, then port, priority, reason.
 */
import { DROP_REASONS, type NodeStats } from '@rocelab/sim';
import { Registry } from 'prom-client';
import { readCounter, readGauge } from './collectors.js';

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
  /** Synchronization windows this node has run. */
  windows(): number;
  /** Bytes queued for `port` (switches). */
  queueDepthBytes?(port: number): number;
}

export interface NodeIdentity {
  node: string;
  role: string;
  version: string;
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
  if (source.queueDepthBytes !== undefined) {
    const depth = source.queueDepthBytes.bind(source);
    readGauge(registry, 'rocelab_queue_depth_bytes', 'Bytes queued for transmission on this port.', ['port'], (emit) => portNames.forEach((port, i) => emit({ port }, depth(i))));
  }
  readCounter(registry, 'rocelab_virtual_seconds_total', 'Virtual seconds this node has executed; divide rates by its rate for per-virtual-second rates.', [], (emit) => emit({}, source.virtualSeconds()));
  readCounter(registry, 'rocelab_events_processed_total', 'Model events this node processed.', [], (emit) => emit({}, source.events()));
  readCounter(registry, 'rocelab_causality_violations_total', 'Frames that arrived for a window already executed (a protocol bug; must stay 0).', [], (emit) => emit({}, stats.causalityViolations));
  readCounter(registry, 'rocelab_sync_windows_total', 'Synchronization windows this node has run.', [], (emit) => emit({}, source.windows()));
  readGauge(registry, 'rocelab_node_up', 'This node is running (1).', [], (emit) => emit({}, 1));
  readGauge(registry, 'rocelab_build_info', 'rocelab build; the value is always 1.', ['version'], (emit) => emit({ version: id.version }, 1));
  return registry;
}
