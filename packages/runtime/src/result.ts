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

export interface FlowResult {
  flow: number;
  from: string;
  to: string;
  sizeBytes: number;
  startNs: number;
  packetsDelivered: number;
  bytesDelivered: number;
  lastArrivalNs: number | null;
  completed: boolean;
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
    flows: flowResults(finals),
    rssMiBPerNode: Math.round((sum((f) => f.rssBytes) / Math.max(1, finals.length) / 2 ** 20) * 10) / 10,
  };
}

/** Exit status of `rocelab run`: 1 when conservation fails or any causality violation happened. */
export function exitCodeOf(result: RunResult): number {
  return result.conservation && result.causalityViolations === 0 ? 0 : 1;
}

interface HostResults {
  sent: Array<{ flow: number; to: string; sizeBytes: number; startPs: number }>;
  received: Array<{ flow: number; packets: number; bytes: number; lastPs: number }>;
}

function flowResults(finals: readonly NodeFinal[]): FlowResult[] {
  const received = new Map<number, HostResults['received'][number]>();
  for (const f of finals) for (const r of (f.results as HostResults | null)?.received ?? []) received.set(r.flow, r);
  const flows: FlowResult[] = [];
  for (const f of finals) {
    for (const s of (f.results as HostResults | null)?.sent ?? []) {
      const r = received.get(s.flow);
      flows.push({
        flow: s.flow,
        from: f.node,
        to: s.to,
        sizeBytes: s.sizeBytes,
        startNs: s.startPs < 0 ? -1 : s.startPs / 1000,
        packetsDelivered: r?.packets ?? 0,
        bytesDelivered: r?.bytes ?? 0,
        lastArrivalNs: r === undefined ? null : r.lastPs / 1000,
        completed: (r?.bytes ?? 0) === s.sizeBytes && s.startPs >= 0,
      });
    }
  }
  return flows.sort((a, b) => a.flow - b.flow);
}
