/**
 * The run's result, the contract of `rocelab run --json` (DESIGN §8), assembled from each
 * node's final numbers in node-index order — the same code for every mapping.
 *
 * Conservation is audited over every frame (data, ACK/NAK, CNP and PFC):
 * sent = delivered + dropped + queued, where `queued` is enumerated from queues, serializer
 * backlogs, pending arrivals and unshipped batches, never computed as a remainder.
 */
import {
  boundedFlows,
  fabricSummary,
  flowResult,
  flowTotals,
  probeSummary,
  slowdownBuckets,
  type FabricSummary,
  type SlowdownSample,
  type SlowdownSummary,
  type FlowResult,
  type FlowTotals,
  programEnding,
  programFailed,
  programName,
  type AppReport,
  type HostResults,
  type NodeReport,
  type ProbeSummary,
  type ProgramReport,
} from '@rocelab/results';
import type { MessageResult, ProbeResults } from '@rocelab/rnic';
import { combineTraceHashes, DROP_REASONS, type DropReason } from '@rocelab/sim';
import type { Profile, Timing } from '@rocelab/topology';
import type { NodeStats } from '@rocelab/wire';
import { nodeReport } from './node-report.js';
import type { PodEngine, PodModel } from './pod-model.js';
import type { FaultLogEntry } from './fault-wire.js';
import type { NodeMemory } from './memory.js';
import { lostNodesOf, mergeLostNodes, type LostNode } from './lost-nodes.js';

export { lostNodesOf, mergeLostNodes, type LostNode, type LostNodeCause } from './lost-nodes.js';

export type Mode = 'inproc' | 'threads' | 'procs' | 'workers' | 'docker';

/**
 * A node's counters, as its report carries them on the wire (NodeStats): frames sent, delivered,
 * queued and dropped by reason, causality violations, and its process's memory (`pssBytes` is 0
 * when not measured: lease reports, not Linux).
 */
export type NodeCounters = Pick<NodeStats, 'sent' | 'delivered' | 'queued' | 'dropped' | 'causalityViolations' | 'rssBytes' | 'pssBytes'>;

export interface NodeFinal extends NodeCounters {
  node: string;
  digest: Uint8Array;
  events: number;
  /** A host's messages and probes (null: a switch, or a report before the last). */
  results: HostResults | null;
  /** End-of-run figures for the summary (ports, transport counters). */
  report: NodeReport;
}

/** What the summary lists per flow; the trace's fct.csv has every message. */
export const MAX_RESULT_FLOWS = 1000;

export interface RunResult {
  traceHash: string;
  seed: number;
  profile: Profile;
  timing: Timing;
  mode: Mode;
  workers: number;
  virtualNs: number;
  /** Wall time of the run: inproc, the engine's events only; distributed, from the controller's start to the result. */
  wallMs: number;
  /**
   * Wall time before the first event could run: inproc, building the engine; distributed, from
   * the controller's start until every member had joined and the first lease went out.
   */
  startupMs: number;
  windows: number;
  /**
   * Pair messages (`PairBatch`, one per neighbouring member per window) and their encoded bytes shipped between members over the run (each member's
   * last report; a member that rejoined counts its last life): what the windows cost on the
   * wire. 0 in one process.
   */
  linkMessages: number;
  linkBytes: number;
  /** Distributed modes and threads: members (threads), crossing links and the window they allow. */
  placement?: Placement;
  /**
   * `--threads K`: each thread's wall ms running its engine and waiting for the others' messages
   * (the rest of its time is packing and unpacking frames): where a threaded run's time goes.
   */
  threadTimes?: { runMs: number; waitMs: number }[];
  events: number;
  packets: { sent: number; delivered: number; dropped: number; queued: number };
  droppedByReason: Record<DropReason, number>;
  causalityViolations: number;
  conservation: boolean;
  /** Messages posted (probes apart), at most MAX_RESULT_FLOWS: unfinished ones first. */
  flows: FlowResult[];
  flowsOmitted: number;
  flowTotals: FlowTotals;
  /**
   * FCT slowdown (FCT / ideal FCT) of every completed message by size group, as the HPCC paper
   * plots it (`slowdownBuckets`): per group of 5 % of the messages by size, the largest size and
   * the P50/P95/P99 slowdown.
   */
  slowdown: SlowdownSummary;
  probes: ProbeSummary;
  /** Pauses, marks, drops, peak queues per port; transport counters per host (top lists and totals). */
  summary: FabricSummary;
  /** Every node's end-of-run figures, when the run was asked for them (`RunMeta.detail`: drills). */
  nodes?: NodeReport[];
  /** The fault log: the topology's faults, live ones and their clears, as they applied (`rocelab run --faults` replays it). */
  faults: FaultLogEntry[];
  /** Nodes that died during the run (`kill` faults, and `RunMeta.lostNodes`), by time. */
  lostNodes: LostNode[];
  rssMiBPerNode: number;
  /** Proportional set size per node (`memory.ts`): what a node costs a machine running many; null where not measured. */
  pssMiBPerNode: number | null;
  /** The hosts' applications (issue 13), in node order; empty without any. */
  apps: AppReport[];
  /** The hosts' native programs (issue 25), in node order then each host's `programs` order; empty without any. */
  programs: ProgramReport[];
}

export interface RunMeta {
  seed: number;
  profile: Profile;
  timing: Timing;
  mode: Mode;
  workers: number;
  durationPs: number;
  wallMs: number;
  startupMs: number;
  windows: number;
  /** Each host's ToR, for probe latency per ToR pair. */
  torOf: Readonly<Record<string, string>>;
  /** Include every node's report (`nodes`): unbounded, so only on request. */
  detail?: boolean;
  faultLog?: readonly FaultLogEntry[];
  /** Lost nodes the fault log does not show (e.g. `cause: 'lost'`: the process hosting them died). */
  lostNodes?: readonly LostNode[];
  /** Messages and bytes members shipped to each other (none in one process). */
  linkTraffic?: { messages: number; bytes: number };
  /** How the nodes were spread over members (distributed modes). */
  placement?: Placement;
  threadTimes?: { runMs: number; waitMs: number }[];
  /** A message's ideal FCT, ps (`idealFctLookup`), for the slowdown summary; absent: no message is measured. */
  idealFctPs?: (from: string, m: MessageResult) => number | null;
}

/**
 * The mapping of nodes to members, and what it costs: every link between two members carries a
 * batch message per window each way, and the window is the smallest lookahead of those links.
 */
export interface Placement {
  members: number;
  /** Links whose ends live in different members, of all links. */
  crossLinks: number;
  links: number;
  /** The window: the shortest crossing link's lookahead, ns (1 ms when none crosses). */
  windowNs: number;
}

/** A hosted node's final numbers, read from its engine. */
export function nodeFinal(engine: PodEngine, index: number, role: string, memory: NodeMemory, options: { results: boolean } = { results: true }): NodeFinal {
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
    rssBytes: memory.rssBytes,
    pssBytes: memory.pssBytes,
    // A lease report leaves them out: a host's messages and probes are large and only the end's count.
    results: options.results ? resultsOverLives(engine, index) : null,
    report: nodeReport(engine, index, role, options.results),
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
    startupMs: Math.round(meta.startupMs),
    windows: meta.windows,
    linkMessages: meta.linkTraffic?.messages ?? 0,
    linkBytes: meta.linkTraffic?.bytes ?? 0,
    ...(meta.placement === undefined ? {} : { placement: meta.placement }),
    ...(meta.threadTimes === undefined ? {} : { threadTimes: meta.threadTimes }),
    events: sum((f) => f.events),
    packets,
    droppedByReason,
    causalityViolations,
    conservation: packets.sent === packets.delivered + packets.dropped + packets.queued,
    ...flowResults(finals, meta),
    summary: fabricSummary(finals.map((f) => f.report)),
    ...(meta.detail === true ? { nodes: finals.map((f) => f.report) } : {}),
    faults: [...(meta.faultLog ?? [])],
    lostNodes: mergeLostNodes(lostNodesOf(meta.faultLog ?? [], meta.durationPs), meta.lostNodes ?? []),
    rssMiBPerNode: meanMiB(finals.map((f) => f.rssBytes)) ?? 0,
    pssMiBPerNode: meanMiB(finals.map((f) => f.pssBytes)),
    apps: finals.flatMap((f) => (f.report.app === undefined ? [] : [f.report.app])),
    programs: finals.flatMap((f) => f.report.programs ?? []),
  };
}

/** The mean of the measured (non-zero) values in MiB, one decimal; null when none was measured. */
function meanMiB(bytes: readonly number[]): number | null {
  const measured = bytes.filter((b) => b > 0);
  return measured.length === 0 ? null : Math.round((measured.reduce((a, b) => a + b, 0) / measured.length / 2 ** 20) * 10) / 10;
}

/**
 * Exit status of `rocelab run`: 1 when conservation fails, any causality violation happened, or
 * a node was lost that no fault asked for (its process died); a `kill` fault's loss is the drill.
 */
export function exitCodeOf(result: RunResult): number {
  if (!(result.conservation && result.causalityViolations === 0 && unplannedLosses(result).length === 0)) return 1;
  return failedApps(result).length > 0 || failedPrograms(result).length > 0 ? APP_FAILED_EXIT : 0;
}

/**
 * `rocelab run` and `up` when the pod ran and held its audit, but an app or a native program
 * failed (docs/errors.md): the code a user wrote is what went wrong, not the fabric.
 */
export const APP_FAILED_EXIT = 3;

/** The apps that failed: each names its node and its error. */
export function failedApps(result: RunResult): AppReport[] {
  return result.apps.filter((a) => a.status === 'failed');
}

/** One line per failed app for stderr, and why the exit code is what it is. */
export function failedAppsText(command: string, result: RunResult): string {
  const failed = failedApps(result);
  if (failed.length === 0) return '';
  const lines = failed.slice(0, 10).map((a) => `${command}: ${a.error} (failed at ${((a.finishedPs ?? 0) / 1e6).toFixed(3)} us)\n`);
  if (failed.length > 10) lines.push(`${command}: and ${failed.length - 10} more apps failed (the result lists them)\n`);
  return `${lines.join('')}${command}: ${failed.length} app${failed.length === 1 ? '' : 's'} failed, so the run exits ${APP_FAILED_EXIT}\n`;
}

/** The native programs that fail the run (`programFailed`: could not run, killed, or exited non-zero). */
export function failedPrograms(result: Pick<RunResult, 'programs'>): ProgramReport[] {
  // A result from an older rocelab has no programs.
  return (result.programs ?? []).filter(programFailed);
}

/** One line per failed program for stderr, and why the exit code is what it is; empty when none failed. */
export function failedProgramsText(command: string, result: Pick<RunResult, 'programs'>): string {
  const failed = failedPrograms(result);
  if (failed.length === 0) return '';
  const lines = failed.slice(0, 10).map((p) => `${command}: ${programName(p)} ${programEnding(p)}${p.exitedPs === null ? '' : ` (at ${(p.exitedPs / 1e6).toFixed(3)} us)`}\n`);
  if (failed.length > 10) lines.push(`${command}: and ${failed.length - 10} more programs failed (the result lists them)\n`);
  return `${lines.join('')}${command}: ${failed.length} program${failed.length === 1 ? '' : 's'} failed or exited non-zero, so the run exits ${APP_FAILED_EXIT}\n`;
}

/** Nodes lost because the process hosting them died, not because a fault killed them. */
export function unplannedLosses(result: RunResult): LostNode[] {
  return (result.lostNodes ?? []).filter((n) => n.cause === 'lost');
}

/**
 * A node's results over all its lives: a host killed and restarted keeps the messages it had
 * posted, those still pending when it died marked `lost` (its probes still out count as failed).
 * A switch has none. One life: the model's results as they are.
 */
function resultsOverLives(engine: PodEngine, index: number): HostResults | null {
  const resultsOf = (model: PodModel | null) => (model?.kind === 'host' ? model.results() : null);
  const now = resultsOf(engine.model(index));
  const lives = engine.retiredModels(index).flatMap((m) => resultsOf(m) ?? []);
  if (lives.length === 0) return now;
  const sent = lives.flatMap((r) => r.sent.map((m): MessageResult => (m.status === 'pending' ? { ...m, status: 'lost' } : m)));
  const probes: ProbeResults = { sent: 0, failed: 0, pending: 0, rttPs: {}, rttOmitted: 0 };
  for (const r of lives) {
    probes.sent += r.probes.sent;
    probes.failed += r.probes.failed + r.probes.pending;
    probes.rttOmitted += r.probes.rttOmitted;
    for (const [peer, rtts] of Object.entries(r.probes.rttPs)) (probes.rttPs[peer] ??= []).push(...rtts);
  }
  const last = now;
  if (last !== null) {
    sent.push(...last.sent);
    probes.sent += last.probes.sent;
    probes.failed += last.probes.failed;
    probes.pending += last.probes.pending;
    probes.rttOmitted += last.probes.rttOmitted;
    for (const [peer, rtts] of Object.entries(last.probes.rttPs)) (probes.rttPs[peer] ??= []).push(...rtts);
  }
  return { sent, probes } satisfies HostResults;
}

function flowResults(finals: readonly NodeFinal[], meta: RunMeta): { flows: FlowResult[]; flowsOmitted: number; flowTotals: FlowTotals; slowdown: SlowdownSummary; probes: ProbeSummary } {
  const all: FlowResult[] = [];
  const probes: Array<{ host: string; probes: ProbeResults }> = [];
  const samples: SlowdownSample[] = [];
  let notMeasured = 0;
  for (const f of finals) {
    const results = f.results;
    if (results === null) continue;
    for (const m of results.sent) {
      all.push(flowResult(f.node, m, meta.durationPs));
      const sample = slowdownSample(f.node, m, meta);
      if (sample === null) notMeasured++;
      else samples.push(sample);
    }
    probes.push({ host: f.node, probes: results.probes });
  }
  all.sort((a, b) => a.flow - b.flow);
  const { flows, omitted } = boundedFlows(all, MAX_RESULT_FLOWS);
  return { flows, flowsOmitted: omitted, flowTotals: flowTotals(all), slowdown: slowdownBuckets(samples, notMeasured), probes: probeSummary(probes, (h) => meta.torOf[h] ?? h) };
}

/**
 * A completed message's slowdown, rounded to the six decimals fct.csv prints, so the summary
 * and `rocelab compare` over the trace see the same numbers; null when not measured.
 */
function slowdownSample(from: string, m: MessageResult, meta: RunMeta): SlowdownSample | null {
  if (m.status !== 'success' || m.completedPs === null) return null;
  const idealPs = meta.idealFctPs?.(from, m) ?? null;
  if (idealPs === null || idealPs <= 0) return null;
  return { flow: String(m.flow), sizeBytes: m.sizeBytes, slowdown: Number(((m.completedPs - m.postedPs) / idealPs).toFixed(6)) };
}
