/**
 * The run's result, the contract of `rocelab run --json` (DESIGN §8), assembled from each
 * node's final numbers in node-index order — the same code for every mapping.
 *
 * Conservation is audited over every frame (data, ACK/NAK, CNP and PFC):
 * sent = delivered + dropped + queued, where `queued` is enumerated from queues, serializer
 * backlogs, pending arrivals and unshipped batches, never computed as a remainder.
 */
import { combineTraceHashes, DROP_REASONS, type DropReason, type Engine } from '@rocelab/sim';
import type { Profile, Timing } from '@rocelab/topology';

export type Mode = 'inproc' | 'procs' | 'workers' | 'docker';

export interface NodeFinal {
  node: string;
  digest: Uint8Array;
  events: number;
  sent: number;
  delivered: number;
  queued: number;
  dropped: Record<string, number>;
  causalityViolations: number;
  rssBytes: number;
  /** Role-specific results (a host's flows). */
  results: unknown;
}

/** One message a host posted (a `flow` workload posts one or more). */
export interface FlowResult {
  flow: number;
  from: string;
  to: string;
  sizeBytes: number;
  startNs: number;
  /** When its last packet was acknowledged; null if it did not complete within the run. */
  completionNs: number | null;
  /** Flow completion time and goodput (payload over completion time). */
  fctNs: number | null;
  goodputGbps: number | null;
  status: string;
}

/** Pingmesh probes: how many, how many came back, and their round trips. */
export interface ProbeSummary {
  sent: number;
  completed: number;
  meanRttNs: number | null;
  maxRttNs: number | null;
}

export interface RunResult {
  traceHash: string;
  seed: number;
  profile: Profile;
  timing: Timing;
  mode: Mode;
  workers: number;
  virtualNs: number;
  wallMs: number;
  windows: number;
  events: number;
  packets: { sent: number; delivered: number; dropped: number; queued: number };
  droppedByReason: Record<DropReason, number>;
  causalityViolations: number;
  conservation: boolean;
  flows: FlowResult[];
  probes: ProbeSummary;
  rssMiBPerNode: number;
}

export interface RunMeta {
  seed: number;
  profile: Profile;
  timing: Timing;
  mode: Mode;
  workers: number;
  durationPs: number;
  wallMs: number;
  windows: number;
}

/** A hosted node's final numbers, read from its engine. */
export function nodeFinal(engine: Engine, index: number, rssBytes: number): NodeFinal {
  const ctx = engine.context(index);
  const stats = ctx.stats;
  return {
    node: ctx.name,
    digest: engine.digest(index),
    events: engine.eventsProcessed(index),
    sent: stats.sent,
    delivered: stats.delivered,
    queued: engine.heldFrames(index),
    dropped: stats.droppedByReason(),
    causalityViolations: stats.causalityViolations,
    rssBytes,
    results: engine.model(index)?.results?.(engine.nowPs) ?? null,
  };
}

export function assembleResult(finals: readonly NodeFinal[], meta: RunMeta): RunResult {
  const sum = (pick: (f: NodeFinal) => number) => finals.reduce((n, f) => n + pick(f), 0);
  const droppedByReason = Object.fromEntries(DROP_REASONS.map((r) => [r, sum((f) => f.dropped[r] ?? 0)])) as Record<DropReason, number>;
  const packets = {
    sent: sum((f) => f.sent),
    delivered: sum((f) => f.delivered),
    dropped: Object.values(droppedByReason).reduce((a, b) => a + b, 0),
    queued: sum((f) => f.queued),
  };
  const causalityViolations = sum((f) => f.causalityViolations);
  return {
    traceHash: combineTraceHashes(finals.map((f) => ({ name: f.node, digest: f.digest }))),
    seed: meta.seed,
    profile: meta.profile,
    timing: meta.timing,
    mode: meta.mode,
    workers: meta.workers,
    virtualNs: meta.durationPs / 1000,
    wallMs: Math.round(meta.wallMs),
    windows: meta.windows,
    events: sum((f) => f.events),
    packets,
    droppedByReason,
    causalityViolations,
    conservation: packets.sent === packets.delivered + packets.dropped + packets.queued,
    ...flowResults(finals),
    rssMiBPerNode: Math.round((sum((f) => f.rssBytes) / Math.max(1, finals.length) / 2 ** 20) * 10) / 10,
  };
}

/** Exit status of `rocelab run`: 1 when conservation fails or any causality violation happened. */
export function exitCodeOf(result: RunResult): number {
  return result.conservation && result.causalityViolations === 0 ? 0 : 1;
}

interface HostResults {
  sent: Array<{ flow: number; to: string; sizeBytes: number; postedPs: number; completedPs: number | null; status: string; probe: boolean }>;
}

function flowResults(finals: readonly NodeFinal[]): { flows: FlowResult[]; probes: ProbeSummary } {
  const flows: FlowResult[] = [];
  const rtts: number[] = [];
  let probes = 0;
  for (const f of finals) {
    for (const m of (f.results as HostResults | null)?.sent ?? []) {
      const fctPs = m.completedPs === null || m.status !== 'success' ? null : m.completedPs - m.postedPs;
      if (m.probe) {
        probes++;
        if (fctPs !== null) rtts.push(fctPs / 1000);
        continue;
      }
      flows.push({
        flow: m.flow,
        from: f.node,
        to: m.to,
        sizeBytes: m.sizeBytes,
        startNs: m.postedPs / 1000,
        completionNs: m.completedPs === null ? null : m.completedPs / 1000,
        fctNs: fctPs === null ? null : fctPs / 1000,
        goodputGbps: fctPs === null || fctPs === 0 ? null : (m.sizeBytes * 8) / fctPs * 1000,
        status: m.status,
      });
    }
  }
  flows.sort((a, b) => a.flow - b.flow);
  return {
    flows,
    probes: {
      sent: probes,
      completed: rtts.length,
      meanRttNs: rtts.length === 0 ? null : rtts.reduce((a, b) => a + b, 0) / rtts.length,
      maxRttNs: rtts.length === 0 ? null : Math.max(...rtts),
    },
  };
}
