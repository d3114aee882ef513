/**
 * Who paused whom, when and for how long: one row per transmitter (`node:port`, priority) that
 * took part in an incident, from a run's trace tables alone — pfc.csv (every PAUSE and RESUME
 * reaching a transmitter) and events.csv (watchdog detections and restorations, NIC stall
 * prevention). A drill report prints it per variant; `rocelab drill run` prints it too.
 *
 * pfc.csv records where a PAUSE arrived, so a row's *received* time is read directly, and its
 * *sent* time is the arrival at its peer minus that direction's latency and the PAUSE frame's
 * serialization (the time it started to leave). The *cause* of the PAUSE a port sent is the
 * earliest-paused other transmitter of the same node and priority still paused at that instant
 * (head-of-line back-pressure: the frames that filled this ingress wait behind it); with none,
 * the pausing starts here (a storming NIC, an incast, a stuck egress that is not PFC-paused).
 * Pure: the same tables give the same rows.
 */
import { naturalCompare } from './measurements.js';
import { pauseIntervals, type PfcEvent } from './pause-intervals.js';

/** One direction's far end and its delay, per `node:port` (the topology's links). */
export interface TimelineCable {
  a: { node: string; port: string };
  b: { node: string; port: string };
  /** How long a PFC frame takes from a to b and from b to a (latency plus its serialization), µs. */
  aToBUs: number;
  bToAUs: number;
}

export interface TimelineEvent {
  timeUs: number;
  node: string;
  port: string;
  priority: number | null;
  event: string;
}

export interface TimelineInput {
  pfc: readonly PfcEvent[];
  events: readonly TimelineEvent[];
  cables: readonly TimelineCable[];
  /** The run's end in trace µs: paused intervals are clipped there. */
  endUs: number;
}

export interface TimelineEntry {
  /** The transmitter, `node:port`. */
  port: string;
  /** Its priority; null for a row of NIC stall events only (they name no priority). */
  priority: number | null;
  /** When it first sent a PAUSE of this priority to its peer (trace µs), null if never. */
  firstPauseSentUs: number | null;
  /** When a PAUSE first reached it (trace µs), null if never. */
  firstPauseReceivedUs: number | null;
  /** How long it was held paused in all (µs, clipped at the run's end). */
  pausedUs: number;
  /** The peer port whose PAUSE held it, null if never paused. */
  pausedBy: string | null;
  /** The node's own paused transmitter behind the PAUSE it sent; null if it sent none or the pausing starts here. */
  cause: string | null;
  /** The first storm detection at it (switch watchdog, or NIC stall prevention), and the first restoration after it (trace µs). */
  watchdogDetectedUs: number | null;
  watchdogRestoredUs: number | null;
}

/** Events that mean a storm was detected at (or restored on) a transmitter. */
const DETECTED = new Set(['pfcwd_storm_detected', 'nic_stall_error']);
const RESTORED = new Set(['pfcwd_storm_restored']);

const key = (node: string, port: string, priority: number | null): string => `${node}:${port}:${priority ?? ''}`;

/** The timeline's rows, ordered by when each transmitter first took part, then by name. */
export function incidentTimeline(input: TimelineInput): TimelineEntry[] {
  const peers = new Map<string, { node: string; port: string; latencyUs: number }>();
  for (const c of input.cables) {
    peers.set(`${c.a.node}:${c.a.port}`, { ...c.b, latencyUs: c.aToBUs });
    peers.set(`${c.b.node}:${c.b.port}`, { ...c.a, latencyUs: c.bToAUs });
  }
  const intervals = pauseIntervals(input.pfc)
    .map((i) => ({ ...i, endUs: Math.min(i.endUs, input.endUs) }))
    .filter((i) => i.endUs >= i.startUs);
  const rows = new Map<string, TimelineEntry>();
  const row = (node: string, port: string, priority: number | null): TimelineEntry => {
    const k = key(node, port, priority);
    let r = rows.get(k);
    if (r === undefined) {
      r = { port: `${node}:${port}`, priority, firstPauseSentUs: null, firstPauseReceivedUs: null, pausedUs: 0, pausedBy: null, cause: null, watchdogDetectedUs: null, watchdogRestoredUs: null };
      rows.set(k, r);
    }
    return r;
  };
  const min = (a: number | null, b: number): number => (a === null ? b : Math.min(a, b));
  for (const e of input.pfc) {
    if (e.event !== 'pause' || e.pauseUs === 0) continue;
    const paused = row(e.node, e.port, e.priority);
    paused.firstPauseReceivedUs = min(paused.firstPauseReceivedUs, e.timeUs);
    const peer = peers.get(`${e.node}:${e.port}`);
    if (peer === undefined) continue;
    paused.pausedBy = `${peer.node}:${peer.port}`;
    const sender = row(peer.node, peer.port, e.priority);
    sender.firstPauseSentUs = min(sender.firstPauseSentUs, Math.max(0, e.timeUs - peer.latencyUs));
  }
  for (const i of intervals) row(i.node, i.port, i.priority).pausedUs += Math.max(0, i.endUs - i.startUs);
  for (const e of [...input.events].sort((a, b) => a.timeUs - b.timeUs)) {
    if (!DETECTED.has(e.event) && !RESTORED.has(e.event)) continue;
    if (e.port === '') continue;
    // NIC stall events name no priority: they go to the port's row of its lowest paused priority, if it has one.
    const priority = e.priority ?? [...rows.values()].filter((x) => x.port === `${e.node}:${e.port}` && x.priority !== null).map((x) => x.priority!).sort((a, b) => a - b)[0] ?? null;
    const r = row(e.node, e.port, priority);
    if (DETECTED.has(e.event)) r.watchdogDetectedUs = min(r.watchdogDetectedUs, e.timeUs);
    else if (r.watchdogDetectedUs !== null && r.watchdogRestoredUs === null && e.timeUs >= r.watchdogDetectedUs) r.watchdogRestoredUs = e.timeUs;
  }
  for (const r of rows.values()) {
    if (r.firstPauseSentUs === null || r.priority === null) continue;
    const [node] = splitPort(r.port);
    const at = r.firstPauseSentUs;
    const behind = intervals
      .filter((i) => i.node === node && `${i.node}:${i.port}` !== r.port && i.priority === r.priority && i.startUs <= at && i.endUs >= at)
      .sort((a, b) => a.startUs - b.startUs || cmp(a.port, b.port))[0];
    r.cause = behind === undefined ? null : `${behind.node}:${behind.port}`;
  }
  const first = (r: TimelineEntry): number => Math.min(r.firstPauseSentUs ?? Infinity, r.firstPauseReceivedUs ?? Infinity, r.watchdogDetectedUs ?? Infinity);
  return [...rows.values()].sort((a, b) => first(a) - first(b) || cmp(a.port, b.port) || (a.priority ?? -1) - (b.priority ?? -1));
}

/** `node:port` as [node, port]; a node name may not hold a colon, a port name may. */
function splitPort(p: string): [string, string] {
  const at = p.indexOf(':');
  return [p.slice(0, at), p.slice(at + 1)];
}

const cmp = naturalCompare;
