/**
 * Per-message results of a run: what the application got, how fast, and whether a message still
 * pending has stalled. Goodput is payload the receiver holds for good over the time taken: for a
 * completed message its size over its FCT, for a pending one the bytes delivered so far over
 * the time since it was posted — so a flow frozen by a pause storm shows as such.
 */
import type { MessageResult } from '@rocelab/rnic';

export interface FlowResult {
  flow: number;
  /** The host that posted it, and its peer: a WRITE or SEND carries the bytes from → to, a READ to → from. */
  from: string;
  to: string;
  opcode: string;
  /** A TCP connection's message (`tcp` or `dctcp`); absent on RDMA. */
  transport?: string;
  sizeBytes: number;
  startNs: number;
  /** When its last packet was acknowledged; null if it did not complete within the run. */
  completionNs: number | null;
  fctNs: number | null;
  /** Bytes the receiver holds for good (the whole message once completed). */
  deliveredBytes: number;
  /** Completed: size over FCT; otherwise delivered bytes over the time since it was posted (so far). */
  goodputGbps: number | null;
  /** The last time it made progress (an acknowledgement moved it forward); null = never. */
  lastProgressNs: number | null;
  /** Pending with no progress during the last tenth of the run. */
  stalled: boolean;
  retransmittedPackets: number;
  cnps: number;
  status: string;
}

export interface FlowTotals {
  total: number;
  completed: number;
  pending: number;
  stalled: number;
  failed: number;
  deliveredBytes: number;
}

/** A pending message is stalled when it made no progress during this fraction of the run's end. */
export const STALL_FRACTION = 0.1;

export function flowResult(from: string, m: MessageResult, endPs: number): FlowResult {
  const done = m.status === 'success' && m.completedPs !== null;
  const fctPs = done ? m.completedPs! - m.postedPs : null;
  const elapsedPs = endPs - m.postedPs;
  const goodputGbps = fctPs !== null ? (fctPs === 0 ? null : (m.sizeBytes * 8 * 1000) / fctPs) : elapsedPs > 0 ? (m.deliveredBytes * 8 * 1000) / elapsedPs : null;
  const idleSincePs = Math.max(m.postedPs, m.lastProgressPs ?? m.postedPs);
  return {
    flow: m.flow,
    from,
    to: m.to,
    opcode: m.opcode,
    ...(m.transport === undefined ? {} : { transport: m.transport }),
    sizeBytes: m.sizeBytes,
    startNs: m.postedPs / 1000,
    completionNs: m.completedPs === null ? null : m.completedPs / 1000,
    fctNs: fctPs === null ? null : fctPs / 1000,
    deliveredBytes: m.deliveredBytes,
    goodputGbps,
    lastProgressNs: m.lastProgressPs === null ? null : m.lastProgressPs / 1000,
    stalled: m.status === 'pending' && endPs - idleSincePs >= STALL_FRACTION * endPs,
    retransmittedPackets: m.retransmittedPackets,
    cnps: m.cnps,
    status: m.status,
  };
}

export function flowTotals(flows: readonly FlowResult[]): FlowTotals {
  const count = (pick: (f: FlowResult) => boolean) => flows.filter(pick).length;
  return {
    total: flows.length,
    completed: count((f) => f.status === 'success'),
    pending: count((f) => f.status === 'pending'),
    stalled: count((f) => f.stalled),
    failed: count((f) => f.status !== 'success' && f.status !== 'pending'),
    deliveredBytes: flows.reduce((n, f) => n + f.deliveredBytes, 0),
  };
}

/**
 * At most `limit` flows for the JSON result, in flow order: the ones that did not complete
 * first (they are what a reader looks for), then completed ones. The trace's fct.csv has all.
 */
export function boundedFlows(flows: readonly FlowResult[], limit: number): { flows: FlowResult[]; omitted: number } {
  if (flows.length <= limit) return { flows: [...flows], omitted: 0 };
  const unfinished = flows.filter((f) => f.status !== 'success');
  const finished = flows.filter((f) => f.status === 'success');
  const kept = [...unfinished, ...finished].slice(0, limit).sort((a, b) => a.flow - b.flow);
  return { flows: kept, omitted: flows.length - kept.length };
}
