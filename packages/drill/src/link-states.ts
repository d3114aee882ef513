/**
 * What happened on each link of a variant's pod, for its topology picture: a link is `paused`
 * when either transmitter was held by PFC (the incident timeline), `stuck` when either stopped —
 * a storm detected there (switch watchdog, NIC stall prevention) or a switch queue on it that held
 * bytes and sent nothing for STUCK_US (queue.csv, the deadlock detector's rule without the
 * pause) — and `dropping` when either end port dropped frames (the node reports). Pure.
 */
import type { QueueRow, TimelineEntry } from '@rocelab/results';
import type { LinkOutcome, LinkState } from './report-model.js';
import { formatNs } from './report-text.js';

/** A queue holding bytes that sends nothing this long is stuck: the deadlock detector's default stall. */
export const STUCK_US = 100;

export interface LinkStatesInput {
  /** The pod's links, `node:port` at each end, in pod order. */
  links: ReadonlyArray<{ a: string; b: string }>;
  timeline: readonly TimelineEntry[];
  queue: ReadonlyArray<Pick<QueueRow, 'timeUs' | 'node' | 'port' | 'priority' | 'queueBytes' | 'txPackets'>>;
  /** Frames dropped at each `node:port`, by reason (the node reports); absent ports dropped nothing. */
  drops: ReadonlyMap<string, Readonly<Record<string, number>>>;
}

export function linkStates(input: LinkStatesInput): LinkOutcome[] {
  const paused = new Map<string, number>();
  const detected = new Set<string>();
  for (const r of input.timeline) {
    if (r.pausedUs > 0) paused.set(r.port, (paused.get(r.port) ?? 0) + r.pausedUs);
    if (r.watchdogDetectedUs !== null) detected.add(r.port);
  }
  const stalled = stalledPorts(input.queue);
  return input.links.map(({ a, b }) => {
    const states = new Set<LinkState>();
    const notes: string[] = [];
    for (const [from, to] of [[a, b], [b, a]] as const) {
      const us = paused.get(from);
      if (us !== undefined) {
        states.add('paused');
        notes.push(`${from} → ${to} paused ${formatUs(us)}`);
      }
      if (detected.has(from)) {
        states.add('stuck');
        notes.push(`storm detected at ${from}`);
      }
      const stall = stalled.get(from);
      if (stall !== undefined) {
        states.add('stuck');
        notes.push(`${from} sent nothing for ${formatUs(stall)} with bytes queued`);
      }
      const dropped = Object.entries(input.drops.get(from) ?? {}).filter(([, n]) => n > 0);
      if (dropped.length > 0) {
        states.add('dropping');
        notes.push(`${from} dropped ${dropped.map(([reason, n]) => `${n} ${reason}`).join(', ')}`);
      }
    }
    const order: LinkState[] = ['stuck', 'dropping', 'paused'];
    return { a, b, states: order.filter((s) => states.has(s)), notes };
  });
}

/** Per `node:port`, the longest time one of its queues held bytes without sending a packet, when at least STUCK_US. */
function stalledPorts(rows: LinkStatesInput['queue']): Map<string, number> {
  const byQueue = new Map<string, Array<LinkStatesInput['queue'][number]>>();
  for (const r of rows) {
    const k = `${r.node}:${r.port}:${r.priority}`;
    const list = byQueue.get(k);
    if (list === undefined) byQueue.set(k, [r]);
    else list.push(r);
  }
  const out = new Map<string, number>();
  for (const list of byQueue.values()) {
    let since: number | null = null;
    let tx = -1;
    let longest = 0;
    for (const r of [...list].sort((x, y) => x.timeUs - y.timeUs)) {
      if (r.queueBytes === 0) since = null;
      else if (since === null || r.txPackets !== tx) since = r.timeUs;
      tx = r.txPackets;
      if (since !== null) longest = Math.max(longest, r.timeUs - since);
    }
    if (longest >= STUCK_US) {
      const port = `${list[0]!.node}:${list[0]!.port}`;
      out.set(port, Math.max(out.get(port) ?? 0, longest));
    }
  }
  return out;
}

const formatUs = (us: number): string => formatNs(Math.round(us * 1000));
