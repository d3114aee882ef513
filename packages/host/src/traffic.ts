/**
 * The host's built-in traffic (the workloads of the topology, @rocelab/workload): it posts each
 * message at its time on the connection it names — an RC QP of the NIC or a connection of the TCP
 * stack — and keeps what became of it: every message's result, the completion-time histogram, and
 * the pingmesh probes' round trips per peer (at most `MAX_PROBE_SAMPLES` kept).
 */
import type { MessageResult, MessageSender, ProbeResults, WorkOpcode } from '@rocelab/rnic';
import { LATENCY_BUCKETS, LATENCY_BUCKETS_FACTOR, LATENCY_BUCKETS_START_S, type Completion } from '@rocelab/rnic';
import { FixedHistogram, exponentialBounds, type NodeContext, type TimerTable } from '@rocelab/sim';
import type { HostTraffic, MessagePost } from '@rocelab/workload';
import type { CpuQueue } from './host-cpu.js';

/** Round trips a host keeps for the run's percentiles (bounded memory in long live runs). */
export const MAX_PROBE_SAMPLES = 100_000;

/** What a host reports at the end of a run: its messages (probes apart) and its probes. */
export interface HostResults {
  sent: MessageResult[];
  probes: ProbeResults;
}

/** A work request of the host's traffic, as a requester takes it. */
export interface TrafficWork {
  id: number;
  opcode: WorkOpcode;
  sizeBytes: number;
  postedPs: number;
}

/** Where a connection's messages go: its sender, and how a work request is posted on it. */
export interface PostTarget {
  sender: MessageSender;
  /** `tcp` or `dctcp` for a connection of the TCP stack. */
  transport: 'tcp' | 'dctcp' | null;
  post(work: TrafficWork): void;
}

/** A sender whose messages' progress the results read (an RC requester or a TCP connection's). */
export interface ProgressSender extends MessageSender {
  req: { ackedBytes(wrId: number): number; readonly lastProgressPs: number | null };
}

export class Traffic {
  readonly completion = new FixedHistogram(exponentialBounds(LATENCY_BUCKETS_START_S, LATENCY_BUCKETS_FACTOR, LATENCY_BUCKETS));
  readonly probeRtt = new FixedHistogram(exponentialBounds(LATENCY_BUCKETS_START_S, LATENCY_BUCKETS_FACTOR, LATENCY_BUCKETS));
  /** Watches messages as they complete (tracing); never changes what happens. */
  onMessageDone: ((m: MessageResult, probe: boolean) => void) | null = null;
  /** Watches messages as they are posted (tracing); never changes what happens. */
  onMessagePosted: ((m: MessageResult, probe: boolean) => void) | null = null;
  private readonly messageLog: MessageResult[] = [];
  private readonly probes: ProbeResults = { sent: 0, failed: 0, pending: 0, rttPs: {}, rttOmitted: 0 };
  private probeSamples = 0;
  private readonly postTimer: number;
  private nextPost: MessagePost | null = null;

  constructor(
    private readonly ctx: NodeContext,
    private readonly source: HostTraffic,
    timers: TimerTable,
    /** The connection a message names, and the next work request id (one sequence with the app's). */
    private readonly targets: { targetOf(connection: string): PostTarget | undefined; takeWrId(): number; kick(): void; cpu?: () => CpuQueue | null },
  ) {
    this.postTimer = timers.register((nowPs) => this.postDue(nowPs));
  }

  /** Ask for the first post (a host that booted again posts nothing: call it only at pod start). */
  start(): void {
    this.nextPost = this.source.next();
    if (this.nextPost !== null) this.ctx.setTimer(this.postTimer, this.nextPost.atPs);
  }

  private postDue(nowPs: number): void {
    while (this.nextPost !== null && this.nextPost.atPs <= nowPs) {
      const post = this.nextPost;
      const target = this.targets.targetOf(post.connection);
      if (target === undefined) throw new Error(`${this.ctx.name}: no QP for connection ${post.connection}`);
      const q = target.sender;
      const id = this.targets.takeWrId();
      const result: MessageResult = {
        flow: post.flow,
        to: post.to,
        qpn: q.end.qpn,
        opcode: post.opcode,
        sizeBytes: post.sizeBytes,
        postedPs: nowPs,
        completedPs: null,
        status: 'pending',
        deliveredBytes: 0,
        lastProgressPs: null,
        retransmittedPackets: 0,
        cnps: 0,
      };
      if (target.transport !== null) result.transport = target.transport;
      q.messages.set(id, result);
      q.firstFlow ??= post.flow;
      if (post.probe) this.probes.sent++;
      else this.messageLog.push(result);
      this.onMessagePosted?.(result, post.probe);
      const work = { id, opcode: post.opcode, sizeBytes: post.sizeBytes, postedPs: nowPs };
      // With the host CPU model the post reaches the QP once the CPU has done it (the message counts from now).
      const cpu = this.targets.cpu?.() ?? null;
      if (cpu === null) target.post(work);
      else
        cpu.issue(() => {
          target.post(work);
          this.targets.kick();
        });
      this.nextPost = this.source.next();
    }
    if (this.nextPost !== null) this.ctx.setTimer(this.postTimer, this.nextPost.atPs);
    this.targets.kick();
  }

  /** Messages of `q` completed (or failed). */
  complete(q: MessageSender, done: readonly Completion[]): void {
    for (const c of done) {
      const m = q.messages.get(c.wrId);
      if (m === undefined) continue;
      q.messages.delete(c.wrId);
      m.completedPs = c.completedPs;
      m.status = c.status;
      if (c.status === 'success') {
        m.deliveredBytes = m.sizeBytes;
        m.lastProgressPs = c.completedPs;
      }
      if (q.probe) this.probeDone(m);
      else if (c.status === 'success') this.observe(c);
      this.onMessageDone?.(m, q.probe);
    }
  }

  /** A completion's time from post, in the host's completion histogram. */
  observe(c: Completion): void {
    this.completion.observe((c.completedPs - c.postedPs) / 1e12);
  }

  private probeDone(m: MessageResult): void {
    if (m.status !== 'success') {
      this.probes.failed++;
      return;
    }
    const rttPs = m.completedPs! - m.postedPs;
    this.probeRtt.observe(rttPs / 1e12);
    if (this.probeSamples >= MAX_PROBE_SAMPLES) {
      this.probes.rttOmitted++;
      return;
    }
    this.probeSamples++;
    (this.probes.rttPs[m.to] ??= []).push(rttPs);
  }

  /** Every message this host posted (probes apart) and its probes, progress brought up to date. */
  results(senders: readonly ProgressSender[]): HostResults {
    for (const q of senders) {
      for (const [wrId, m] of q.messages) {
        m.deliveredBytes = q.req.ackedBytes(wrId);
        const progress = q.req.lastProgressPs;
        m.lastProgressPs = progress !== null && progress > m.postedPs ? progress : null;
      }
    }
    let pending = 0;
    for (const q of senders) if (q.probe) pending += q.messages.size;
    return { sent: this.messageLog, probes: { ...this.probes, pending } };
  }
}
