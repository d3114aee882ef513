/**
 * A host, the node model of a host in the pod: its RDMA NIC (@rocelab/rnic: QPs, DCQCN, pacing,
 * NIC-side PFC) and, beside it, what a host's software does — the traffic that posts its
 * messages, its TCP stack, and the scheduler of its application. The engine sees one model; the
 * parts share one port, one timer table (each registers its timers, in a fixed order: the trace
 * hash folds timer ids) and one sequence of work request ids.
 */
import { Nic, type AppEvents, type AppReceive, type AppWork, type Completion, type NicConfig, type NicFault, type NicHost, type SenderQp } from '@rocelab/rnic';
import { TimerTable, type NodeContext, type NodeModel } from '@rocelab/sim';
import type { Frame } from '@rocelab/wire';
import type { HostTraffic } from '@rocelab/workload';
import { AppScheduler } from './app-scheduler.js';
import { CpuQueue, HostCpu, type HostCpuConfig } from './host-cpu.js';
import { STREAM_DEFAULTS } from './stream.js';
import { HostStreams } from './streams.js';
import { TcpStack, type TcpConnection } from './tcp-stack.js';
import { Traffic, type HostResults, type PostTarget } from './traffic.js';

export interface HostConfig extends NicConfig {
  /** The messages the host's workloads post (not used by a host that booted again). */
  traffic: HostTraffic;
  /** The host CPU model (`host: {cpu}`); absent: verbs calls take no time. */
  cpu?: HostCpuConfig;
}

/** A host's sending side, as metrics and traces read it: an RC QP or a TCP connection. */
export type HostSender = SenderQp | TcpConnection;

export class Host<A extends AppEvents = AppEvents> implements NodeModel<HostResults, NicFault>, NicHost {
  readonly kind = 'host';
  readonly nic: Nic;
  readonly traffic: Traffic;
  readonly app: AppScheduler<A>;
  readonly tcp: TcpStack;
  private readonly timers = new TimerTable();
  private senders: readonly HostSender[];
  /** The CPU's pending operations (`host: {cpu}`); null: every verbs call takes effect at once. */
  readonly cpu: CpuQueue | null;
  /** The byte streams of the host's native programs (their TCP to pod addresses, through the fabric). */
  readonly streams: HostStreams;

  constructor(
    readonly ctx: NodeContext,
    config: HostConfig,
  ) {
    // The parts in the order their timers were always numbered: the traffic's post, the NIC's, the app's, the TCP stack's.
    this.traffic = new Traffic(ctx, config.traffic, this.timers, { targetOf: (c) => this.targetOf(c), takeWrId: () => this.nic.takeWrId(), kick: () => this.nic.kick(), cpu: () => this.cpu });
    this.nic = new Nic(ctx, config, this, this.timers);
    this.app = new AppScheduler(ctx, this.timers, () => this.nic.kick());
    this.tcp = new TcpStack(ctx, config, this.nic, this.traffic, this.timers);
    // Its timer after every other: a pod without the model keeps its timer ids.
    this.cpu = config.cpu === undefined ? null : new CpuQueue(ctx, this.timers, new HostCpu(config.cpu, ctx.rng('cpu')));
    // No timer until the first stream: its timer comes after every other, whenever that is.
    this.streams = new HostStreams(ctx, {
      ip: config.ip,
      mac: config.mac,
      gatewayMac: config.gatewayMac,
      dscp: 0,
      config: { ...STREAM_DEFAULTS, mssBytes: config.settings.tcp.mssBytes ?? ctx.ports[0]!.out.mtu },
      timers: this.timers,
      send: (frame) => {
        this.nic.queueReply(frame);
        this.nic.kick();
      },
    });
    this.tcp.onStreamFrame = (nowPs, frame) => this.streams.onFrame(nowPs, frame);
    this.nic.setHostQueues(this.tcp.connections);
    this.senders = [...this.nic.senderQps, ...this.tcp.connections];
    if (config.rebooted !== true) this.traffic.start();
  }

  /** Watches the application's work requests as they complete (tracing; `nic.onAppPosted` sees them posted); never changes what happens. */
  onAppCompletionSeen: ((qpn: number, c: Completion) => void) | null = null;

  private targetOf(connection: string): PostTarget | undefined {
    const q = this.nic.senderFor(connection);
    if (q !== undefined) return { sender: q, transport: null, post: (work) => q.req.post(work) };
    const t = this.tcp.connectionFor(connection);
    if (t !== undefined) return { sender: t, transport: t.dctcp ? 'dctcp' : 'tcp', post: (work) => this.tcp.post(t, work) };
    return undefined;
  }

  /**
   * An application's work request (an app's or a native program's) to the NIC: at once, or, with
   * the host CPU model, once the CPU has done it (its id taken and its time counted from the
   * call). A QP that went into error meanwhile flushes it, as posting to a QP in error does.
   */
  postAppWork(qpn: number, work: AppWork): number {
    const cpu = this.cpu;
    if (cpu === null) return this.nic.postApp(qpn, work);
    const issued = { id: this.nic.takeWrId(), postedPs: this.ctx.nowPs };
    cpu.issue(() => {
      if (!this.nic.appQpInError(qpn)) return void this.nic.postApp(qpn, work, issued);
      this.onAppCompletion(qpn, { wrId: issued.id, opcode: work.opcode, sizeBytes: work.sizeBytes, postedPs: issued.postedPs, completedPs: this.ctx.nowPs, status: 'flushed' });
    });
    return issued.id;
  }

  /** An application's receive buffer to the NIC: at once, or once the host CPU has posted it. */
  postAppReceive(qpn: number, buffer: Uint8Array): void {
    const cpu = this.cpu;
    if (cpu === null) this.nic.postAppReceive(qpn, buffer);
    else cpu.issue(() => this.nic.postAppReceive(qpn, buffer));
  }

  /** The application running on this host: it hears of completions, receives and its timer through `events`. */
  attachApp(app: A): void {
    this.app.attach(app);
  }

  // --- NodeModel ---------------------------------------------------------------------------

  nextFrame(_port: number, nowPs: number, pausedMask: number): Frame | null {
    return this.nic.nextFrame(nowPs, pausedMask);
  }

  onFrame(nowPs: number, port: number, frame: Frame): void {
    this.nic.onFrame(nowPs, port, frame);
  }

  onTimer(nowPs: number, timer: number): void {
    this.timers.fire(nowPs, timer);
  }

  onFault(nowPs: number, fault: NicFault): void {
    this.nic.onFault(nowPs, fault);
  }

  /** Frames in the NIC's receive buffer, TCP frames the stack has not processed yet, and SYNs held for a listener. */
  heldFrames(): number {
    return this.nic.pfc.heldFrames + this.tcp.heldFrames + this.streams.heldFrames;
  }

  heldFramesByPort(): readonly number[] {
    return [this.heldFrames()];
  }

  results(): HostResults {
    return this.traffic.results(this.senderQps);
  }

  // --- NicHost: what the NIC hands up --------------------------------------------------------

  onCompletions(q: SenderQp, done: readonly Completion[]): void {
    this.traffic.complete(q, done);
  }

  onAppCompletion(qpn: number, c: Completion): void {
    this.onAppCompletionSeen?.(qpn, c);
    if (c.status === 'success') this.traffic.observe(c);
    this.app.completion(qpn, c);
  }

  onAppReceive(qpn: number, receive: AppReceive): void {
    this.app.receive(qpn, receive);
  }

  onAppMemory(): void {
    this.app.memory();
  }

  onStackFrame(nowPs: number, frame: Frame): void {
    this.tcp.onFrame(nowPs, frame);
  }

  // --- what metrics, reports and traces read -------------------------------------------------

  /** Every sending side: the RC requesters, then the TCP connections. */
  get senderQps(): readonly HostSender[] {
    // A native program's QPs come up at run time (`nic.addAppSender`); the list follows them.
    if (this.senders.length !== this.nic.senderQps.length + this.tcp.connections.length) this.senders = [...this.nic.senderQps, ...this.tcp.connections];
    return this.senders;
  }

  /** Payload held for good: the RDMA transport's (responders and READs) and the TCP stack's. */
  get goodputBytes(): number {
    return this.nic.goodputBytes + this.tcp.goodputBytes;
  }

  /** Payload of every data packet that reached a transport, in order or not, duplicates too. */
  get receivedPayloadBytes(): number {
    return this.nic.stats.receivedPayloadBytes + this.tcp.receivedPayloadBytes;
  }
}
