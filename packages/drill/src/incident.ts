/**
 * What an SRE measures of an incident (issue 24): the time from a fault to its first watchdog
 * detection (time to detect), and from the fault's end or its containment to the moment the
 * victims' goodput is back above a fraction of what it was before the fault (time to recover).
 * Pure functions of a variant's faults and trace tables; the expectations `timeToDetect` and
 * `timeToRecover` bound them, and the report prints them for every fault of every variant.
 *
 * Times here are absolute virtual ps; the trace's are µs from its origin (the first post).
 */
import type { EventRow, RateRow, TraceTables } from '@rocelab/results';
import type { FaultSpec } from '@rocelab/topology';

const PS_PER_US = 1e6;

/** The events that say a watchdog declared a storm: a switch's PFC watchdog, a NIC's stall prevention. */
export const DETECTION_EVENTS: ReadonlySet<string> = new Set(['pfcwd_storm_detected', 'nic_stall_error']);

export interface Detection {
  atPs: number;
  /** `tor2:p2 priority 3`, or `h4` for a NIC. */
  by: string;
}

/** The first watchdog detection at or after `fromPs` (of `node`, if given); null if none. */
export function firstDetection(tables: TraceTables, traceOriginPs: number, fromPs: number, node?: string): Detection | null {
  const rows = (tables['events.csv'] ?? []).filter((r: EventRow) => DETECTION_EVENTS.has(r.event) && (node === undefined || r.node === node));
  for (const r of rows) {
    const atPs = Math.round(r.timeUs * PS_PER_US) + traceOriginPs;
    if (atPs >= fromPs) return { atPs, by: r.port === '' ? r.node : `${r.node}:${r.port}${r.priority === null ? '' : ` priority ${r.priority}`}` };
  }
  return null;
}

export type RecoveryFrom = 'end' | 'containment' | 'either';

/** Where recovery is measured from: the fault's end, its containment, or the earlier (null: neither happened). */
export function recoveryStart(fault: FaultSpec, detection: Detection | null, from: RecoveryFrom): { atPs: number; what: 'end' | 'containment' } | null {
  const end = fault.forPs === null ? null : { atPs: fault.atPs + fault.forPs, what: 'end' as const };
  const contained = detection === null ? null : { atPs: detection.atPs, what: 'containment' as const };
  if (from === 'end') return end;
  if (from === 'containment') return contained;
  if (end === null || contained === null) return end ?? contained;
  return contained.atPs < end.atPs ? contained : end;
}

/** One flow of rates.csv (a sending QP): the bytes acknowledged at each sample, by time (trace µs). */
export interface FlowSeries {
  flow: string;
  samples: Array<{ timeUs: number; ackedBytes: number }>;
}

/** The sending QPs of rates.csv, each with its samples, from the hosts `from` to the hosts `to` (null: any). */
export function flowSeries(tables: TraceTables, from: readonly string[] | null, to: readonly string[] | null): FlowSeries[] {
  const byQp = new Map<string, Array<{ timeUs: number; ackedBytes: number }>>();
  for (const r of (tables['rates.csv'] ?? []) as RateRow[]) {
    if ((from !== null && !from.includes(r.node)) || (to !== null && !to.includes(r.dst))) continue;
    const key = `${r.node} qp${r.qp} → ${r.dst}`;
    const list = byQp.get(key) ?? [];
    list.push({ timeUs: r.timeUs, ackedBytes: r.ackedBytes });
    byQp.set(key, list);
  }
  return [...byQp].sort(([x], [y]) => (x < y ? -1 : 1)).map(([flow, samples]) => ({ flow, samples: samples.sort((a, b) => a.timeUs - b.timeUs) }));
}

/** Bytes acknowledged by `t` (trace µs): the last sample at or before it. */
function ackedAt(series: FlowSeries, t: number): number {
  let acked = 0;
  for (const s of series.samples) {
    if (s.timeUs > t) break;
    acked = s.ackedBytes;
  }
  return acked;
}

/** The flows' summed goodput (bit/s) over [a, b] trace µs. */
export function goodputOver(flows: readonly FlowSeries[], a: number, b: number): number {
  return (flows.reduce((n, f) => n + ackedAt(f, b) - ackedAt(f, a), 0) * 8) / ((b - a) / 1e6);
}

/**
 * The first sampling interval of rates.csv that starts at or after `startUs` in which the
 * flows' summed goodput is at least `targetBps`: its start (trace µs), or null when none is
 * by the end. Recovery is thus read to within one sampling interval, never before `startUs`.
 */
export function backAbove(flows: readonly FlowSeries[], startUs: number, targetBps: number): number | null {
  const times = [...new Set(flows.flatMap((f) => f.samples.map((s) => s.timeUs)))].sort((a, b) => a - b);
  for (let i = 1; i < times.length; i++) {
    const [a, b] = [times[i - 1]!, times[i]!];
    if (a < startUs) continue;
    if (goodputOver(flows, a, b) >= targetBps) return a;
  }
  return null;
}

/** The default baseline: the 1 ms before the fault (from the trace's origin if the fault is sooner), trace µs. */
export function defaultBaselineUs(fault: FaultSpec, traceOriginPs: number): [number, number] {
  const b = (fault.atPs - traceOriginPs) / PS_PER_US;
  return [Math.max(0, b - 1000), b];
}

/** A fault of a variant as the report tells its incident. */
export interface IncidentFigures {
  /** The fault's number (the report's fault table's #), kind and target. */
  fault: number;
  kind: string;
  target: string;
  atNs: number;
  /** The first watchdog detection at or after the fault's start; null: none. */
  detectedNs: number | null;
  detectedBy: string | null;
  timeToDetectNs: number | null;
  /** What recovery is measured from (the fault's end or its containment, the earlier); null: neither. */
  recoveryFrom: 'end' | 'containment' | null;
  recoveryFromNs: number | null;
  /** Each flow that ran before the fault: its goodput then, and when it was back above 90 % of it (null: not by the end). */
  flows: Array<{ flow: string; baselineGbps: number; backNs: number | null }>;
  /** From `recoveryFromNs` until every such flow was back; null when one never was, or nothing to recover from. */
  timeToRecoverNs: number | null;
}

/** The fraction of its pre-fault goodput a flow must be back above, in the report's figures. */
export const REPORT_RECOVERY_FRACTION = 0.9;

/** Every fault's incident figures, for the report (flows measured one by one, each against its own baseline). */
export function incidentFigures(faults: readonly FaultSpec[], tables: TraceTables, traceOriginPs: number): IncidentFigures[] {
  const all = flowSeries(tables, null, null);
  const ns = (ps: number) => ps / 1000;
  return faults.map((f) => {
    const detection = firstDetection(tables, traceOriginPs, f.atPs);
    const start = recoveryStart(f, detection, 'either');
    const [a, b] = defaultBaselineUs(f, traceOriginPs);
    const flows = b - a <= 0 ? [] : all.map((s) => ({ s, bps: goodputOver([s], a, b) })).filter((x) => x.bps > 0);
    const back = flows.map(({ s, bps }) => {
      const at = start === null ? null : backAbove([s], (start.atPs - traceOriginPs) / PS_PER_US, REPORT_RECOVERY_FRACTION * bps);
      return { flow: s.flow, baselineGbps: Number((bps / 1e9).toFixed(3)), backNs: at === null ? null : ns(Math.round(at * PS_PER_US) + traceOriginPs) };
    });
    const last = back.length === 0 || back.some((x) => x.backNs === null) ? null : Math.max(...back.map((x) => x.backNs!));
    return {
      fault: f.index,
      kind: f.kind,
      target: f.target,
      atNs: ns(f.atPs),
      detectedNs: detection === null ? null : ns(detection.atPs),
      detectedBy: detection?.by ?? null,
      timeToDetectNs: detection === null ? null : ns(detection.atPs - f.atPs),
      recoveryFrom: start?.what ?? null,
      recoveryFromNs: start === null ? null : ns(start.atPs),
      flows: back,
      timeToRecoverNs: start === null || last === null ? null : Math.max(0, last - ns(start.atPs)),
    };
  });
}
