/**
 * A host's application wired to its NIC (issue 13): the sandboxed app (@rocelab/app) posts work
 * on the NIC's memory-backed QPs, one per peer that runs an app, and hears of completions and
 * receives through the NIC's `AppEvents`, after the event that caused them. Everything it can
 * do checks its arguments and fails with a message naming the app, the node and the operation;
 * a failed app stops, and the rest of the pod runs on.
 */
import { AppSandbox, type SandboxEvent, type SandboxHost } from '@rocelab/app';
import { LATENCY_BUCKETS, LATENCY_BUCKETS_FACTOR, LATENCY_BUCKETS_START_S, MemoryRegions, type AppEvents, type AppWork, type Completion, type CompletionStatus, type Nic, type RegionHandle, type RemoteAccess, type WorkOpcode } from '@rocelab/rnic';
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

/** Every app host's regions where its NIC will register them: the same table in every process, from what the pod carries. */
export function appRegions(pod: PodSpec): Map<string, RegionEntry[]> {
  const table = new Map<string, RegionEntry[]>();
  for (const app of pod.apps) {
    const handles = MemoryRegions.layout(app.regions.map((r) => r.bytes));
    table.set(app.node, app.regions.map((r, i) => ({ ...handles[i]!, name: r.name, access: [...r.access] })));
  }
  return table;
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

/** Completion statuses in words, for the app's error. */
const STATUS_TEXT: Record<CompletionStatus, string> = {
  success: 'success',
  retryExceeded: 'transport retries exhausted (retry_cnt): the peer never acknowledged',
  rnrRetryExceeded: 'RNR retries exhausted: the peer had no receive posted',
  remoteInvalidRequest: 'remote invalid request (a SEND longer than the receive, or a misaligned atomic)',
  remoteAccessError: 'remote access error (the peer refused the rkey, the bounds or the access)',
  remoteOperationalError: 'remote operational error',
  flushed: 'flushed: the QP was already in error',
};

const hostsOfPod = new WeakMap<PodSpec, string[]>();

/** The app running on a host's NIC, if any (node reports and metrics read it). */
export const appHostOf = new WeakMap<object, AppHost>();

export class AppHost implements AppEvents {
  private readonly sandbox: AppSandbox;
  private readonly regions = new Map<string, { entry: RegionEntry; bytes: Uint8Array }>();
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
    private readonly nic: Nic,
    readonly spec: AppSpec,
    private readonly table: ReadonlyMap<string, RegionEntry[]>,
    memory: MemoryRegions,
    qps: HostQps,
    pod: PodSpec,
  ) {
    this.label = `app ${spec.module} on ${ctx.name}`;
    this.outcome = { node: ctx.name, module: spec.module, digest: spec.digest, status: 'running', error: null, finishedPs: null, reports: {}, log: [], workRequests: { posted: 0, completed: 0, failed: 0 } };
    for (const entry of table.get(ctx.name) ?? []) {
      const bytes = new Uint8Array(entry.lengthBytes);
      const handle = memory.register(bytes, entry.access);
      if (handle.address !== entry.address || handle.rkey !== entry.rkey) throw new Error(`${this.label}: region ${entry.name} registered at another place than its layout says (a bug)`);
      this.regions.set(entry.name, { entry, bytes });
    }
    for (const end of qps.requesters) if (end.memory === true) this.sendQpn.set(end.peer.name, end.qpn);
    for (const end of qps.responders) {
      if (end.memory !== true) continue;
      this.recvQpn.set(end.peer.name, end.qpn);
      this.peerOfQpn.set(end.qpn, end.peer.name);
    }
    let hosts = hostsOfPod.get(pod);
    if (hosts === undefined) hostsOfPod.set(pod, (hosts = pod.apps.map((a) => a.node)));
    this.sandbox = new AppSandbox(spec.source, spec.module, this.sandboxHost(hosts));
    nic.attachApp(this);
    nic.setAppTimer(ctx.nowPs);
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
      this.events.push({ kind: 'completion', id: wrId, ok: false, error: STATUS_TEXT[c.status] });
    }
  }

  onReceive(qpn: number, r: { opcode: 'send' | 'writeImmediate'; bytes: number; immediate: number | null; buffer: Uint8Array }): void {
    this.events.push({ kind: 'receive', peer: this.peerOfQpn.get(qpn)!, opcode: r.opcode, bytes: r.bytes, immediate: r.immediate, buffer: r.buffer });
  }

  run(_nowPs: number): void {
    if (this.outcome.status === 'failed') return;
    if (!this.started) {
      this.started = true;
      this.sandbox.start();
    }
    this.sandbox.dispatch();
  }

  // --- what the app's API calls reach -------------------------------------------------------

  private sandboxHost(hosts: readonly string[]): SandboxHost {
    const label = this.label;
    const fail = (what: string, why: string): never => {
      throw new Error(`${label}: ${what}: ${why}`);
    };
    const rng = this.ctx.rng('app');
    return {
      label,
      module: this.spec.module,
      info: { node: this.ctx.name, hosts, args: this.spec.args },
      nowPs: () => this.ctx.nowPs,
      random: () => rng.nextFloat(),
      post: (peer, opcode, local, remote, sizeBytes, immediate, operand, swap, _signaled, describe) => {
        const qpn = this.sendQpn.get(peer) ?? fail(describe, `no QP to ${peer}: ${this.peerHint(peer)}`);
        const op = opcode as WorkOpcode;
        const atomic = op === 'fetchAdd' || op === 'compareSwap';
        if (local !== null || !atomic) this.checkLocal(local, describe, atomic ? 8 : null);
        if (op !== 'send' && (remote === null || typeof remote !== 'object' || typeof remote.address !== 'bigint' || typeof remote.rkey !== 'number')) {
          fail(describe, 'the remote side must be {address: bigint, rkey} (rdma.remote(host, name).at(offset))');
        }
        if (immediate !== -1 && op !== 'write' && op !== 'send') fail(describe, 'immediate data goes with a WRITE or SEND only');
        const work: AppWork = { opcode: op, local, sizeBytes };
        if (atomic) work.atomic = { address: remote!.address, rkey: remote!.rkey, operand, swap };
        else if (remote !== null) work.remote = { address: remote.address, rkey: remote.rkey };
        if (immediate !== -1) work.immediate = immediate;
        let id: number;
        try {
          id = this.nic.postApp(qpn, work);
        } catch (err) {
          return fail(describe, err instanceof Error ? err.message : String(err));
        }
        this.outcome.workRequests.posted++;
        return id;
      },
      postRecv: (peer, buffer) => {
        const qpn = this.recvQpn.get(peer) ?? fail(`receive from ${peer}`, `no QP from ${peer}: ${this.peerHint(peer)}`);
        this.checkLocal(buffer, `receive from ${peer}`, null);
        this.nic.postAppReceive(qpn, buffer);
      },
      checkPeer: (peer) => {
        if (!this.sendQpn.has(peer)) fail(`connect(${JSON.stringify(peer)})`, this.peerHint(peer));
      },
      wakeAt: (ps) => this.nic.setAppTimer(ps < 0 ? null : Math.max(ps, this.ctx.nowPs)),
      takeEvents: () => this.events.splice(0),
      log: (message, fields) => this.log(fields === null ? message : `${message} ${JSON.stringify(fields)}`),
      report: (key, value) => {
        if (typeof value !== 'number' && typeof value !== 'string' && typeof value !== 'boolean') fail(`report(${JSON.stringify(key)})`, `a number, string or boolean, got ${typeof value}`);
        this.outcome.reports[key] = value as number | string | boolean;
      },
      region: (name) => this.localRegion(name) ?? fail(`region(${JSON.stringify(name)})`, `${this.ctx.name} registered ${this.listRegions(this.ctx.name)}`),
      remote: (host, name) => {
        const entry = this.table.get(host)?.find((e) => e.name === name);
        if (entry === undefined) {
          fail(`remote(${JSON.stringify(host)}, ${JSON.stringify(name)})`, this.table.has(host) ? `${host} registered ${this.listRegions(host)}` : `${host} runs no app (hosts with one: ${[...this.table.keys()].join(', ')})`);
        }
        return Object.freeze({ host, name, address: entry!.address, rkey: entry!.rkey, length: entry!.lengthBytes, at: (offset: number) => ({ address: entry!.address + BigInt(offset), rkey: entry!.rkey }) });
      },
      counter: (name, help) => {
        const m = this.metric(name, help, 'counter');
        return Object.freeze({ inc: (by = 1) => void (m.counter!.value += by) });
      },
      histogram: (name, help, bounds) => {
        const m = this.metric(name, help, 'histogram', bounds);
        return Object.freeze({ observe: (v: number) => m.histogram!.observe(v) });
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
        this.nic.setAppTimer(null);
      },
    };
  }

  private peerHint(peer: string): string {
    if (peer === this.ctx.name) return 'an app connects to other hosts, not to its own';
    return `${peer} runs no app here (hosts with one: ${[...this.table.keys()].join(', ')})`;
  }

  private listRegions(host: string): string {
    const names = (this.table.get(host) ?? []).map((e) => e.name);
    return names.length === 0 ? 'no regions (its app exports no regions)' : `only ${names.join(', ')}`;
  }

  private localRegion(name: string): object | null {
    const r = this.regions.get(name);
    if (r === undefined) return null;
    const { entry, bytes } = r;
    return Object.freeze({
      name,
      bytes,
      address: entry.address,
      rkey: entry.rkey,
      slice: (offset: number, length: number) => {
        if (!(Number.isSafeInteger(offset) && Number.isSafeInteger(length) && offset >= 0 && length >= 0 && offset + length <= bytes.length)) {
          throw new RangeError(`${this.label}: region ${name}.slice(${offset}, ${length}) is outside its ${bytes.length} bytes`);
        }
        return bytes.subarray(offset, offset + length);
      },
      at: (offset: number) => ({ address: entry.address + BigInt(offset), rkey: entry.rkey }),
    });
  }

  /** A work request's local buffer must lie in one of this host's registered regions (IB's lkey check). */
  private checkLocal(local: unknown, describe: string, exactLength: number | null): void {
    const ok = local instanceof Object && ArrayBuffer.isView(local) && [...this.regions.values()].some((r) => (local as Uint8Array).buffer === r.bytes.buffer);
    if (!ok) throw new Error(`${this.label}: ${describe}: the local buffer must be part of a registered region (rdma.region(name).slice(offset, length))`);
    if (exactLength !== null && (local as Uint8Array).length !== exactLength) throw new Error(`${this.label}: ${describe}: an atomic's local buffer holds exactly 8 bytes, got ${(local as Uint8Array).length}`);
  }

  private metric(name: string, help: string, kind: 'counter' | 'histogram', bounds?: readonly number[] | null): AppMetric {
    if (!METRIC_NAME.test(name)) throw new Error(`${this.label}: metric name ${JSON.stringify(name)}: lowercase letters, digits and _, not starting with a digit`);
    const existing = this.metrics.find((m) => m.name === name);
    if (existing !== undefined) {
      if ((existing.counter !== null) !== (kind === 'counter')) throw new Error(`${this.label}: metric ${name} is already a ${existing.counter !== null ? 'counter' : 'histogram'}`);
      return existing;
    }
    const m: AppMetric = { name, help, counter: kind === 'counter' ? { value: 0 } : null, histogram: kind === 'histogram' ? new FixedHistogram(bounds ?? exponentialBounds(LATENCY_BUCKETS_START_S, LATENCY_BUCKETS_FACTOR, LATENCY_BUCKETS)) : null };
    this.metrics.push(m);
    return m;
  }

  private log(line: string): void {
    this.outcome.log.push(`${(this.ctx.nowPs / 1e6).toFixed(3)} us ${line}`);
    if (this.outcome.log.length > LOG_LINES) this.outcome.log.shift();
  }
}
