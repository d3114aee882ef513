/**
 * A host's application wired to its NIC (issue 13): the sandboxed app (@rocelab/app) posts work
 * on the NIC's memory-backed QPs, one per peer that runs an app, and hears of completions and
 * receives through the NIC's `AppEvents`, after the event that caused them. The app is untrusted
 * (issue 22): it runs in a machine of its own (`Machine`, prepared before the engine is built by
 * `prepareAppMachines`), and everything it asks of the NIC is checked here; a failed app stops,
 * and the rest of the pod runs on.
 */
import { AppSandbox, Machine, extraBytesOf, type RegionInfo, type SandboxEvent, type SandboxHost, type SandboxWork } from '@rocelab/app';
import { LATENCY_BUCKETS, LATENCY_BUCKETS_FACTOR, LATENCY_BUCKETS_START_S, MemoryRegions, type AppEvents, type AppWork, type Completion, type CompletionStatus, type RegionHandle, type RemoteAccess } from '@rocelab/rnic';
import type { Host } from '@rocelab/host';
import type { NodeContext } from '@rocelab/sim';
import type { AppSpec, PodSpec } from '@rocelab/topology';
import type { AppReport } from '@rocelab/results';
import { FixedHistogram, exponentialBounds } from '@rocelab/sim';
import type { HostQps } from './qp-plan.js';

/** A region as every process knows it: name, place, size, allowed remote accesses. */
export interface RegionEntry extends RegionHandle {
  name: string;
  access: RemoteAccess[];
}

/**
 * Every app host's regions where its NIC will register them: the same table in every process,
 * from what the pod carries. Apps whose regions were not declared (a controller that only books
 * faults never declares them) are left out; building their host refuses (`prepareAppMachines`).
 */
export function appRegions(pod: PodSpec): Map<string, RegionEntry[]> {
  const table = new Map<string, RegionEntry[]>();
  for (const app of pod.apps) {
    if (app.regions === null) continue;
    const handles = MemoryRegions.layout(app.regions.map((r) => r.bytes));
    table.set(app.node, app.regions.map((r, i) => ({ ...handles[i]!, name: r.name, access: [...r.access] })));
  }
  return table;
}

/**
 * A machine for each app among `nodes`, made before the engine is built (making one is
 * asynchronous, building the engine is not): the engine takes them as it makes the hosts' NICs.
 */
export async function prepareAppMachines(pod: PodSpec, nodes: ReadonlySet<string>, table: ReadonlyMap<string, RegionEntry[]>): Promise<Map<string, Machine>> {
  const machines = new Map<string, Machine>();
  for (const app of pod.apps) {
    if (!nodes.has(app.node)) continue;
    if (!table.has(app.node)) throw new Error(`app ${app.module} on ${app.node}: its regions were never declared (declareAppRegions before the pod runs; a bug)`);
    machines.set(app.node, await Machine.create({ memoryBytes: app.memoryBytes, extraBytes: extraBytesOf(table.get(app.node) ?? []) }));
  }
  return machines;
}

const LOG_LINES = 100;
const METRIC_NAME = /^[a-z_][a-z0-9_]*$/;

/** An app's own counters and histograms, exported into its node's /metrics (node-metrics.ts). */
export interface AppMetric {
  name: string;
  help: string;
  counter: { value: number } | null;
  histogram: FixedHistogram | null;
}

/** Completion statuses in words, for the app's error; their order is the code the sandbox carries. */
const STATUS_TEXT: Record<CompletionStatus, string> = {
  success: 'success',
  retryExceeded: 'transport retries exhausted (retry_cnt): the peer never acknowledged',
  rnrRetryExceeded: 'RNR retries exhausted: the peer had no receive posted',
  remoteInvalidRequest: 'remote invalid request (a SEND longer than the receive, or a misaligned atomic)',
  remoteAccessError: 'remote access error (the peer refused the rkey, the bounds or the access)',
  remoteOperationalError: 'remote operational error',
  flushed: 'flushed: the QP was already in error',
};
const STATUSES = Object.keys(STATUS_TEXT) as CompletionStatus[];

const hostsOfPod = new WeakMap<PodSpec, string[]>();

export class AppHost implements AppEvents {
  private readonly sandbox: AppSandbox;
  private readonly events: SandboxEvent[] = [];
  private readonly peerOfQpn = new Map<number, string>();
  private readonly sendQpn = new Map<string, number>();
  private readonly recvQpn = new Map<string, number>();
  private readonly label: string;
  private readonly outcome: AppReport;
  private started = false;
  readonly metrics: AppMetric[] = [];

  constructor(
    private readonly ctx: NodeContext,
    private readonly host: Host<AppHost>,
    readonly spec: AppSpec,
    table: ReadonlyMap<string, RegionEntry[]>,
    memory: MemoryRegions,
    qps: HostQps,
    pod: PodSpec,
    machine: Machine,
  ) {
    this.label = `app ${spec.module} on ${ctx.name}`;
    this.outcome = { node: ctx.name, module: spec.module, digest: spec.digest, status: 'running', error: null, finishedPs: null, reports: {}, log: [], workRequests: { posted: 0, completed: 0, failed: 0 } };
    for (const end of qps.requesters) if (end.memory === true) this.sendQpn.set(end.peer.name, end.qpn);
    for (const end of qps.responders) {
      if (end.memory !== true) continue;
      this.recvQpn.set(end.peer.name, end.qpn);
      this.peerOfQpn.set(end.qpn, end.peer.name);
    }
    let hosts = hostsOfPod.get(pod);
    if (hosts === undefined) hostsOfPod.set(pod, (hosts = pod.apps.map((a) => a.node)));
    const regions = new Map<string, RegionInfo[]>();
    for (const [node, entries] of table) regions.set(node, entries.map((e) => ({ name: e.name, address: e.address, rkey: e.rkey, lengthBytes: e.lengthBytes, access: e.access })));
    this.sandbox = new AppSandbox(machine, spec.source, this.sandboxHost(hosts, regions), { memoryBytes: spec.memoryBytes, steps: spec.steps });
    const own = table.get(ctx.name) ?? [];
    this.sandbox.regionBytes.forEach((bytes, i) => {
      const handle = memory.register(bytes, own[i]!.access);
      if (handle.address !== own[i]!.address || handle.rkey !== own[i]!.rkey) throw new Error(`${this.label}: region ${own[i]!.name} registered at another place than its layout says (a bug)`);
    });
    host.app.wakeAt(ctx.nowPs);
  }

  report(): AppReport {
    return { ...this.outcome, reports: { ...this.outcome.reports }, log: [...this.outcome.log], workRequests: { ...this.outcome.workRequests } };
  }

  // --- AppEvents (from the NIC) ------------------------------------------------------------

  onCompletion(_qpn: number, wrId: number, c: Completion): void {
    if (c.status === 'success') {
      this.outcome.workRequests.completed++;
      const base = { kind: 'completion' as const, id: wrId, ok: true as const, opcode: c.opcode, bytes: c.sizeBytes, postedPs: c.postedPs, completedPs: c.completedPs };
      this.events.push(c.atomicOriginal === undefined ? base : { ...base, original: c.atomicOriginal });
    } else {
      this.outcome.workRequests.failed++;
      this.events.push({ kind: 'completion', id: wrId, ok: false, status: STATUSES.indexOf(c.status) });
    }
  }

  onReceive(qpn: number, r: { opcode: 'send' | 'writeImmediate'; bytes: number; immediate: number | null }): void {
    this.events.push({ kind: 'receive', peer: this.peerOfQpn.get(qpn)!, opcode: r.opcode, bytes: r.bytes, immediate: r.immediate });
  }

  run(_nowPs: number): void {
    if (this.outcome.status === 'failed') return;
    if (!this.started) {
      this.started = true;
      this.sandbox.start();
    }
    this.sandbox.dispatch();
  }

  // --- what the app's calls reach (everything it hands in is checked: the app is untrusted) ---

  private sandboxHost(hosts: readonly string[], regions: ReadonlyMap<string, RegionInfo[]>): SandboxHost {
    const rng = this.ctx.rng('app');
    return {
      label: this.label,
      module: this.spec.module,
      info: { node: this.ctx.name, hosts, args: this.spec.args },
      peers: [...this.sendQpn.keys()],
      regions,
      statusText: STATUSES.map((s) => STATUS_TEXT[s]),
      nowPs: () => this.ctx.nowPs,
      random: () => rng.nextFloat(),
      post: (peer, w) => {
        const qpn = this.sendQpn.get(peer);
        if (qpn === undefined) throw new Error(`no QP to ${peer}`);
        const id = this.host.postAppWork(qpn, this.appWork(w));
        this.outcome.workRequests.posted++;
        return id;
      },
      postRecv: (peer, buffer) => {
        const qpn = this.recvQpn.get(peer);
        if (qpn === undefined) throw new Error(`no QP from ${peer}`);
        this.host.postAppReceive(qpn, buffer);
      },
      wakeAt: (ps) => {
        if (!Number.isFinite(ps)) throw new Error(`a wake-up time must be a number, got ${ps}`);
        this.host.app.wakeAt(ps < 0 ? null : Math.max(Math.round(ps), this.ctx.nowPs));
      },
      takeEvents: () => this.events.splice(0),
      log: (message) => this.log(message),
      report: (key, value) => void (this.outcome.reports[key] = value),
      metric: (kind, name, help, bounds) => this.metric(name, help, kind === 0 ? 'counter' : 'histogram', bounds),
      inc: (index, by) => {
        const m = this.metrics[index];
        if (m?.counter == null || !Number.isFinite(by)) throw new Error(`no counter ${index}, or ${by} is not a number`);
        m.counter.value += by;
      },
      observe: (index, value) => {
        const m = this.metrics[index];
        if (m?.histogram == null || !Number.isFinite(value)) throw new Error(`no histogram ${index}, or ${value} is not a number`);
        m.histogram.observe(value);
      },
      finished: () => {
        this.outcome.status = 'finished';
        this.outcome.finishedPs = this.ctx.nowPs;
      },
      failed: (message) => {
        if (this.outcome.status === 'failed') return;
        this.outcome.status = 'failed';
        this.outcome.error = message;
        this.outcome.finishedPs = this.ctx.nowPs;
        this.log(`error: ${message}`);
        this.host.app.wakeAt(null);
      },
    };
  }

  /** The sandbox's work request as the NIC takes it (the sandbox checked the buffers and ranges). */
  private appWork(w: SandboxWork): AppWork {
    const atomic = w.opcode === 'fetchAdd' || w.opcode === 'compareSwap';
    if (w.immediate !== null && w.opcode !== 'write' && w.opcode !== 'send') throw new Error('immediate data goes with a WRITE or SEND only');
    if (atomic && w.local !== null && w.local.length !== 8) throw new Error(`an atomic's local buffer holds exactly 8 bytes, got ${w.local.length}`);
    const work: AppWork = { opcode: w.opcode, local: w.local, sizeBytes: w.sizeBytes };
    if (atomic) work.atomic = { address: w.remote!.address, rkey: w.remote!.rkey, operand: w.operand, swap: w.swap };
    else if (w.remote !== null) work.remote = w.remote;
    if (w.immediate !== null) work.immediate = w.immediate;
    return work;
  }

  private metric(name: string, help: string, kind: 'counter' | 'histogram', bounds: readonly number[] | null): number {
    if (!METRIC_NAME.test(name)) throw new Error(`metric name ${JSON.stringify(name)}: lowercase letters, digits and _, not starting with a digit`);
    const existing = this.metrics.findIndex((m) => m.name === name);
    if (existing >= 0) {
      const m = this.metrics[existing]!;
      if ((m.counter !== null) !== (kind === 'counter')) throw new Error(`metric ${name} is already a ${m.counter !== null ? 'counter' : 'histogram'}`);
      return existing;
    }
    this.metrics.push({ name, help, counter: kind === 'counter' ? { value: 0 } : null, histogram: kind === 'histogram' ? new FixedHistogram(bounds ?? exponentialBounds(LATENCY_BUCKETS_START_S, LATENCY_BUCKETS_FACTOR, LATENCY_BUCKETS)) : null });
    return this.metrics.length - 1;
  }

  private log(line: string): void {
    this.outcome.log.push(`${(this.ctx.nowPs / 1e6).toFixed(3)} us ${line}`);
    if (this.outcome.log.length > LOG_LINES) this.outcome.log.shift();
  }
}
