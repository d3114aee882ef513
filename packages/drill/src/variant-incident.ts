/**
 * A variant's incident for its report, taken as it ends (its tables then go): the timeline of
 * who paused whom (`incidentTimeline` over pfc.csv and events.csv, in virtual ns) and what
 * happened on each link (`linkStates`, which colours the topology picture).
 */
import { incidentTimeline, type NodeReport, type TimelineCable, type TimelineEntry } from '@rocelab/results';
import type { PodSpec } from '@rocelab/topology';
import type { VariantData } from './expectations.js';
import { linkStates } from './link-states.js';
import type { LinkOutcome, TimelineRow } from './report-model.js';

/** Rows of a variant's timeline the report keeps: enough for any incident a person reads row by row. */
export const TIMELINE_MAX_ROWS = 64;

/** A PFC frame on the wire (bytes): what its sent time is corrected by, with the link's latency. */
const PFC_FRAME_BYTES = 64;

/** The pod's links as the timeline reads them: each direction's delay for a PFC frame, in µs. */
export function podCables(pod: PodSpec): TimelineCable[] {
  const delayUs = (d: { latencyPs: number; rateBps: number }): number => (d.latencyPs + (PFC_FRAME_BYTES * 8 * 1e12) / d.rateBps) / 1e6;
  return pod.links.map((l) => ({ a: l.a, b: l.b, aToBUs: delayUs(l.aToB), bToAUs: delayUs(l.bToA) }));
}

export interface VariantIncident {
  timeline: TimelineRow[];
  timelineOmitted: number;
  links: LinkOutcome[];
}

export function variantIncident(v: Pick<VariantData, 'pod' | 'tables' | 'traceOriginPs' | 'durationPs'>, nodes: readonly NodeReport[] | undefined): VariantIncident {
  const endUs = (v.durationPs - v.traceOriginPs) / 1e6;
  const entries = incidentTimeline({ pfc: v.tables['pfc.csv'] ?? [], events: v.tables['events.csv'] ?? [], cables: podCables(v.pod), endUs });
  const drops = new Map<string, Record<string, number>>();
  for (const n of nodes ?? []) for (const p of n.ports) drops.set(`${n.node}:${p.port}`, p.dropped as Record<string, number>);
  const links = linkStates({
    links: v.pod.links.map((l) => ({ a: `${l.a.node}:${l.a.port}`, b: `${l.b.node}:${l.b.port}` })),
    timeline: entries,
    queue: v.tables['queue.csv'] ?? [],
    drops,
  });
  const originNs = v.traceOriginPs / 1000;
  return { timeline: entries.slice(0, TIMELINE_MAX_ROWS).map((e) => timelineRow(e, originNs)), timelineOmitted: Math.max(0, entries.length - TIMELINE_MAX_ROWS), links };
}

/** A timeline entry in virtual ns (trace µs count from the variant's first post). */
function timelineRow(e: TimelineEntry, originNs: number): TimelineRow {
  const at = (us: number | null): number | null => (us === null ? null : Math.round(us * 1000 + originNs));
  return {
    port: e.port,
    priority: e.priority,
    firstPauseSentNs: at(e.firstPauseSentUs),
    firstPauseReceivedNs: at(e.firstPauseReceivedUs),
    pausedNs: Math.round(e.pausedUs * 1000),
    pausedBy: e.pausedBy,
    cause: e.cause,
    watchdogDetectedNs: at(e.watchdogDetectedUs),
    watchdogRestoredNs: at(e.watchdogRestoredUs),
  };
}
