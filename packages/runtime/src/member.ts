/**
 * A member process: it hosts one or more nodes of the pod, connects to the controller, opens
 * one WebSocket per neighbouring member (a pair, carrying every link between the two:
 * `member-links.ts`), and runs the window protocol of `@rocelab/sync` — one message per pair
 * per window, neighbour lockstep inside a lease, a report to the controller at each lease end
 * (`report-wire.ts`). `switch` and `host`
 * services are members hosting one node; `--workers K` runs K members hosting several each.
 *
 * A member that was lost (its process died) can start again and rejoin a running pod: the
 * controller's directory says so, the member connects to every neighbour still there, and its nodes boot with fresh state at the first lease it is granted.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { MemberAction, MemberSync } from '@rocelab/sync';
import type { Logger } from '@rocelab/telemetry';
import type { PodSpec } from '@rocelab/topology';
import type { Directory, Envelope, Grant, PairBatch, Report } from '@rocelab/wire';
import type { WebSocket, WebSocketServer } from 'ws';
import type { AddressInfo } from 'node:net';
import { podKey } from './auth.js';
import { CloseCode, Connection, WS_OPTIONS, type Identity } from './connection.js';
import { scheduleWireFault } from './fault-wire.js';
import { httpLimitsFromEnv, listenWebSocket } from './http-limits.js';
import { BatchWatchdog, DEFAULT_HANG_TIMEOUT_MS, LIVENESS_INTERVAL_MS } from './liveness.js';
import type { Pair, RemoteLinks } from './member-links.js';
import { memberSetup, SetupSlot, type MemberSetup } from './member-setup.js';
import { NodeMetrics } from './node-metrics.js';
import { buildEngine, type ModelFactory } from './models.js';
import type { PodEngine } from './pod-model.js';
import { prepareApps, type PodContext } from './pod-context.js';
import { nodeMemory } from './memory.js';
import { linkName } from './names.js';
import { attachRecording, NO_RECORDING, type Recording, type RecordingOptions } from './recording.js';
import { toWireNode } from './report-wire.js';
import { nodeFinal } from './result.js';
import { RunSlices } from './run-slices.js';

export interface MemberOptions {
  pod: PodSpec;
  /** Member id, unique in the pod (a node name for one-node members). */
  id: string;
  nodes: readonly string[];
  controllerUrl: string;
  token: string;
  /** Where the link server listens; `advertiseHost` is how peers reach it. */
  listenHost?: string;
  advertiseHost?: string;
  /**
   * A private directory of this machine's pod: the link server listens on a Unix socket there
   * instead (local members: a write to a Unix socket costs the kernel less than one through
   * loopback TCP, and every member writes one message per neighbour per window).
   */
  linkSocketDir?: string | null;
  /** Serve each node's /metrics; null = no metrics servers. */
  metrics?: { host: string; advertiseHost?: string; port?: number } | null;
  /** How long to keep retrying the controller while it is not reachable yet (containers start in any order). */
  connectTimeoutMs?: number;
  log: Logger;
  /**
   * The hang timeout (`liveness.ts`; default 5 min): a controller or a neighbour that answers no
   * ping for this long of this process's own running time is given up on (a neighbour whose
   * batch does not come though it answers: after twice this). A closed connection is noticed at once.
   */
  hangTimeoutMs?: number;
  debugUncountedLoss?: string | null;
  /** Model construction (default: the real switch and NIC models). */
  models?: ModelFactory;
  /** Traces and captures of this member's nodes (directories prepared by whoever started the run). */
  recording?: RecordingOptions;
}

/** The member's controller went away: the pod cannot go on, so neither can the member. */
export class ControllerLostError extends Error {}

/**
 * Sequence numbers of link-state events the controller declares (origin = the controller):
 * far above the topology faults' (fault index × 4096 + event), unique per lease, link and end.
 */
const DECLARED_SEQ = 2 ** 40;

/**
 * The most wall time one turn of the event loop spends carrying out actions (running windows,
 * shipping batches) before it lets the loop serve sockets and timers: pings are answered, and
 * batches taken in, within tens of milliseconds however long a lease's run of windows is.
 */
const DRAIN_BUDGET_MS = 20;

export class MemberProcess {
  private readonly log: Logger;
  private readonly key: Buffer;
  private readonly hosted: number[];
  private readonly hostedSet: ReadonlySet<number>;
  /** What the controller's directory made of this member (`member-setup.ts`): set once. */
  private readonly setupSlot: SetupSlot;
  private engine: PodEngine | null = null;
  private recording: Recording | null = null;
  private control: Connection | null = null;
  private server: WebSocketServer | null = null;
  private readonly metrics: NodeMetrics;
  private windowsRun = 0;
  private readonly watchdog: BatchWatchdog;
  private watchdogTimer: NodeJS.Timeout | null = null;
  private stopHeartbeat: () => void = () => undefined;
  /** Protocol actions not yet carried out, in order, and whether a drain is under way (maybe across turns of the loop). */
  private readonly actions: MemberAction[] = [];
  private draining = false;
  private stopped = false;
  private readonly slices = new RunSlices();
  /** How far the current window has run (a window may run in slices). */
  private ranToPs = -1;
  /** A rejoining member's engine is built at its first grant; batches that beat that grant wait here. */
  private early: Array<{ pair: Pair; batch: PairBatch }> = [];
  /** A report has gone to the controller since the directory: a rejoining member's first lease is over. */
  private reported = false;
  private linksReady: (() => void) | null = null;
  /** Resolves once the directory has been applied: links can be accepted from then on. */
  private readonly directoryApplied: Promise<void>;
  private markDirectoryApplied!: () => void;
  private finished = false;
  private settle!: { resolve: () => void; reject: (err: Error) => void };
  readonly done: Promise<void>;

  constructor(private readonly options: MemberOptions) {
    this.log = memberLog(options.log, options.id);
    this.key = podKey(options.token);
    this.hosted = options.nodes.map((name) => {
      const node = options.pod.nodes.find((n) => n.name === name);
      if (node === undefined) throw new Error(`member ${options.id}: node ${name} is not in pod ${options.pod.name}`);
      return node.index;
    });
    this.hosted.sort((a, b) => a - b);
    this.hostedSet = new Set(this.hosted);
    this.setupSlot = new SetupSlot(options.id);
    this.metrics = new NodeMetrics(options.pod, this.hosted, () => this.engine, () => this.windowsRun);
    // The last resort against a link that answers pings but never carries the batch (a bug): twice the hang timeout.
    this.watchdog = new BatchWatchdog(2 * (options.hangTimeoutMs ?? DEFAULT_HANG_TIMEOUT_MS), performance.now());
    this.done = new Promise<void>((resolve, reject) => (this.settle = { resolve, reject }));
    this.directoryApplied = new Promise<void>((resolve) => (this.markDirectoryApplied = resolve));
    this.done.catch(() => undefined);
  }

  /** Listen for links, serve metrics, say Hello to the controller. Resolves once registered. */
  async start(): Promise<{ linkUrl: string; metricsUrls: string[] }> {
    const o = this.options;
    const limits = httpLimitsFromEnv(process.env);
    let server: WebSocketServer;
    let linkUrl: string;
    if (o.linkSocketDir) {
      const path = join(o.linkSocketDir, `${o.id}.sock`);
      rmSync(path, { force: true }); // this member's earlier life (a rejoin) left it
      server = await listenWebSocket({ path, limits, options: WS_OPTIONS });
      linkUrl = `ws+unix://${path}:/link`;
    } else {
      server = await listenWebSocket({ host: o.listenHost ?? '127.0.0.1', port: 0, limits, options: WS_OPTIONS });
      linkUrl = `ws://${o.advertiseHost ?? o.listenHost ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}/link`;
    }
    this.server = server;
    server.on('connection', (ws) => void this.acceptLink(ws));
    const metricsUrls = o.metrics ? await this.metrics.serve(o.metrics.host, o.metrics.advertiseHost, o.metrics.port) : [];
    const self: Identity = { node: o.id, role: 'member', link: '', nodes: [...o.nodes], linkUrl, metricsUrls };
    this.control = await connectWithRetry(() => Connection.connect(o.controllerUrl, this.key, self, this.log), o.connectTimeoutMs ?? 0, this.log, o.controllerUrl);
    this.control.listen(
      (env) => this.onControl(env),
      (code, reason) => this.onControlClosed(code, reason),
    );
    this.stopHeartbeat = this.control.heartbeat(o.hangTimeoutMs ?? DEFAULT_HANG_TIMEOUT_MS, LIVENESS_INTERVAL_MS);
    this.log.info({ nodes: o.nodes, linkUrl }, 'registered with the controller');
    return { linkUrl, metricsUrls };
  }

  /** Close everything (also after a failure). */
  async stop(): Promise<void> {
    this.stopped = true;
    // Stopping (SIGTERM, the end of a test) is not losing the controller: closing the control
    // connection below must not read as its loss.
    if (!this.finished) {
      this.finished = true;
      this.settle.resolve();
    }
    if (this.watchdogTimer !== null) clearInterval(this.watchdogTimer);
    this.stopHeartbeat();
    for (const pair of this.setupSlot.orNull?.links.allPairs() ?? []) pair.conn?.close(CloseCode.shutdown, 'member stopping');
    this.control?.close(CloseCode.normal, 'member stopping');
    await new Promise<void>((resolve) => (this.server === null ? resolve() : this.server.close(() => resolve())));
    await this.metrics.close();
  }

  private onControl(env: Envelope): void {
    try {
      switch (env.type) {
        case 'directory':
          return void this.applyDirectory(env.directory).catch((err: unknown) => this.fail(err));
        case 'grant':
          return this.onGrant(env.grant);
        case 'goodbye':
          this.log.info({ reason: env.goodbye.reason }, 'controller says goodbye');
          this.finished = true;
          return this.settle.resolve();
        default:
          this.control!.close(CloseCode.protocol, `unexpected ${env.type} from the controller`);
      }
    } catch (err) {
      this.fail(err);
    }
  }

  private onControlClosed(code: number, reason: string): void {
    if (this.finished) return;
    this.fail(new ControllerLostError(`the controller at ${this.options.controllerUrl} is gone (${code}: ${reason}); without it the pod cannot go on`));
  }

  private fail(err: unknown): void {
    if (this.finished) return;
    const error = err instanceof Error ? err : new Error(String(err));
    this.log.error({ err: error.message }, 'member failed');
    this.finished = true;
    this.settle.reject(error);
  }

  /** The directory says who hosts what: build the engine, connect the remote links, report ready. */
  private async applyDirectory(directory: Directory): Promise<void> {
    this.setupSlot.set(memberSetup(this.options.pod, this.options.id, this.hostedSet, directory));
    // A rejoining member's nodes boot at the first lease it is granted: its engine starts then (with no apps: a host that boots again runs none).
    if (!directory.rejoin) {
      await prepareApps(this.pc, this.hosted);
      this.buildEngine(0, false);
    }
    this.markDirectoryApplied();
    const allUp = new Promise<void>((resolve) => (this.linksReady = resolve));
    this.checkLinksReady();
    // At the start the member whose id sorts first dials; a rejoining member dials every neighbour still there.
    const dials = this.setup.dials.map(async ({ pair, url }) => {
      try {
        const conn = await Connection.connect(url, this.key, { node: this.options.id, role: 'pair', link: '', nodes: [], linkUrl: '', metricsUrls: [] }, this.log);
        this.attach(pair, conn);
      } catch (err) {
        if (!directory.rejoin) throw err;
        // Its neighbour is gone too: the pair's links stay down until that one rejoins and dials us.
        this.log.warn({ peer: pair.peer, links: pair.links.length, err: err instanceof Error ? err.message : String(err) }, 'rejoin: neighbour not reachable; its links stay down');
        for (const link of pair.links) link.live = false;
        this.sync.onChannelFailed(pair.peer);
        this.checkLinksReady();
      }
    });
    await Promise.all(dials);
    await allUp;
    this.watchdogTimer = setInterval(() => this.checkProgress(), this.watchdog.checkEveryMs);
    this.watchdogTimer.unref();
    this.log.info({ links: this.links.names.length, neighbours: this.links.peers.length, windowPs: directory.windowPs, rejoin: directory.rejoin }, 'links up; ready');
    this.control!.send({ type: 'report', report: this.readyReport() });
  }

  private get setup(): MemberSetup {
    return this.setupSlot.get();
  }

  private get pc(): PodContext {
    return this.setup.pc;
  }

  private get links(): RemoteLinks {
    return this.setup.links;
  }

  private get sync(): MemberSync {
    return this.setup.sync;
  }

  /** Until its first report, a rejoining member's own link ends come up with its nodes' boot. */
  private get rejoining(): boolean {
    return this.setup.rejoin && !this.reported;
  }

  private buildEngine(startPs: number, rebooted: boolean): void {
    const o = this.options;
    this.engine = buildEngine(this.pc, this.hosted, o.debugUncountedLoss ?? null, o.models, { startPs, rebooted });
    this.recording = attachRecording(this.engine, this.pc, this.hosted, o.recording ?? NO_RECORDING);
  }

  private async acceptLink(ws: WebSocket): Promise<void> {
    let pair: Pair | undefined;
    let reconnect = false;
    // A neighbour may dial before our directory arrived: hold its socket until we know our links.
    await this.directoryApplied;
    try {
      const conn = await Connection.accept(
        ws,
        this.key,
        { node: this.options.id, role: 'member', link: '', nodes: [], linkUrl: '', metricsUrls: [] },
        (hello) => {
          if (hello.role !== 'pair') return { code: CloseCode.unknownPeer, reason: `a ${hello.role || '(no role)'} connection from ${hello.node || '(unnamed)'}: this member's link server takes one pair connection per neighbouring member (role pair)` };
          pair = this.links.pair(hello.node);
          if (pair === undefined) return { code: CloseCode.unknownPeer, reason: `unknown member ${hello.node || '(none)'}: no link joins it to ${this.options.id}` };
          // A failed pair may be dialled again by a neighbour that rejoins the pod.
          reconnect = !pair.links.some((l) => l.live);
          if (!reconnect && (pair.dialer || pair.conn !== null)) return { code: CloseCode.unknownPeer, reason: `the pair ${this.options.id}–${hello.node} is already connected` };
          return null;
        },
        this.log,
      );
      if (reconnect) {
        this.links.reconnect(pair!, conn);
        this.sync.onChannelReconnected(pair!.peer);
        this.listenOn(pair!, conn);
        this.log.info({ peer: pair!.peer, links: pair!.links.length }, 'pair reconnected by a rejoining neighbour');
      } else {
        this.attach(pair!, conn);
      }
    } catch {
      // Refused: Connection.accept logged the reason and closed the socket; the member keeps running.
    }
  }

  private attach(pair: Pair, conn: Connection): void {
    pair.conn = conn;
    this.listenOn(pair, conn);
    this.log.debug({ peer: pair.peer, links: pair.links.length }, 'pair up');
    this.checkLinksReady();
  }

  private listenOn(pair: Pair, conn: Connection): void {
    conn.listen(
      (env) => this.onPairMessage(pair, conn, env),
      (code, reason) => this.onPairClosed(pair, conn, code, reason),
    );
    // A neighbour is given up on when it answers no ping for the hang timeout (stopped, hung),
    // not when its batch is late: one that waits for its own neighbours still answers, so a stall
    // never spreads as closed links (the heartbeat ends with the connection).
    conn.heartbeat(this.options.hangTimeoutMs ?? DEFAULT_HANG_TIMEOUT_MS, LIVENESS_INTERVAL_MS);
  }

  private checkLinksReady(): void {
    if (this.setupSlot.orNull?.links.allConnected) this.linksReady?.();
  }

  private onPairMessage(pair: Pair, conn: Connection, env: Envelope): void {
    if (env.type !== 'pair') {
      conn.close(CloseCode.protocol, `expected PairBatch on the connection to member ${pair.peer}, got ${env.type}`);
      return;
    }
    if (this.engine === null) {
      // A neighbour ran the joining lease's first window before our grant arrived.
      this.early.push({ pair, batch: env.pair });
      return;
    }
    try {
      this.takeBatch(pair, env.pair);
    } catch (err) {
      // A window this batch completed failed to run or ship (a message too large, a model's bug).
      this.fail(err);
    }
  }

  private takeBatch(pair: Pair, batch: PairBatch): void {
    const misnumbered = this.links.misnumbered(pair, batch);
    if (misnumbered !== null) {
      this.perform([{ type: 'close', channel: pair.peer, reason: misnumbered }, ...this.sync.onChannelFailed(pair.peer)]);
      return;
    }
    const actions = this.sync.onBatch(pair.peer, batch.lease, batch.window);
    if (!actions.some((a) => a.type === 'close' && a.channel === pair.peer)) {
      this.links.deliver(this.engine!, pair, batch);
      this.watchdog.onProgress();
    }
    this.perform(actions);
  }

  private onPairClosed(pair: Pair, conn: Connection, code: number, reason: string): void {
    if (this.finished || pair.conn !== conn) return;
    pair.conn = null;
    if (this.engine === null ? !pair.links.some((l) => l.live) : !this.links.failPair(this.engine, pair)) return;
    for (const link of pair.links) link.live = false;
    this.log.warn({ peer: pair.peer, links: pair.links.map((l) => l.name), code, reason }, 'pair connection closed: its links are declared down from the next window');
    this.perform(this.sync.onChannelFailed(pair.peer));
  }

  private onGrant(grant: Grant): void {
    if (this.engine === null) this.buildEngine(grant.startPs, true);
    const engine = this.engine!;
    this.dropDeclaredDown(grant.linksDown);
    this.scheduleLinkStates(grant.linksDown, grant, false);
    this.scheduleLinkStates(grant.linksUp, grant, true);
    this.links.bringUp(grant.linksUp);
    for (const loss of grant.losses) {
      const link = [...this.links.all()].find((l) => l.outName === loss.link);
      if (link !== undefined) engine.context(link.localNode).stats.countDrops('link_down', link.localPort, loss.frames);
    }
    for (const fault of grant.faults) scheduleWireFault(engine, this.pc, fault, this.hostedSet);
    // A closing grant that jumped over idle time to the run's end runs no window, yet an inproc run
    // samples its traces up to the end: so does this engine (nothing is due before that end, or the
    // coordinator would not have jumped), and a drill's queue.csv and rates.csv match in every mode.
    if (grant.final && grant.windows === 0 && grant.endPs > this.ranToPs) {
      engine.runUntil(grant.endPs);
      this.ranToPs = grant.endPs;
    }
    const actions = this.sync.onGrant(grant, this.links.peersOf(grant.linksUp));
    for (const { pair, batch } of this.early.splice(0)) this.takeBatch(pair, batch);
    this.perform(actions);
  }

  /**
   * Links the controller declared down that this member still waits on: their far end's member
   * was declared lost while its sockets stayed open (a process stopped for good: the controller
   * gave up on its silence), so nothing will come on them. Any other declared-down link failed
   * here already (it closed, or this member closed it).
   */
  private dropDeclaredDown(names: readonly string[]): void {
    for (const name of names) {
      const link = this.links.get(name);
      if (link === undefined || !link.live || link.pair.conn === null) continue;
      // Its far end's member is lost, and with it every link of the pair.
      const pair = link.pair;
      this.log.warn({ link: name, peer: pair.peer }, 'link declared down by the controller (its far end was lost): closing the connection to its member');
      const conn = pair.conn!;
      pair.conn = null;
      conn.close(CloseCode.shutdown, 'declared down by the controller');
      this.links.failPair(this.engine!, pair);
      this.perform(this.sync.onChannelFailed(pair.peer));
    }
  }

  /** Link-state changes the controller declared at the lease start, at the ends this member hosts. */
  private scheduleLinkStates(names: readonly string[], grant: Grant, up: boolean): void {
    const pod = this.options.pod;
    names.forEach((name, i) => {
      const link = pod.links.find((l) => linkName(l) === name);
      if (link === undefined) return;
      [link.a, link.b].forEach((end, e) => {
        const node = pod.nodes.find((n) => n.name === end.node)!;
        if (!this.hostedSet.has(node.index)) return;
        // A rejoining member's own ends come up with its nodes' boot.
        if (up && this.rejoining) return;
        const seq = DECLARED_SEQ + grant.lease * 2 ** 20 + (up ? 2 ** 19 : 0) + 2 * i + e;
        this.engine!.scheduleLinkState(grant.startPs, seq, node.index, node.ports.find((p) => p.name === end.port)!.index, up);
      });
    });
  }

  /** Carry out protocol actions, in order, after any not yet carried out. */
  private perform(actions: MemberAction[]): void {
    this.actions.push(...actions);
    if (!this.draining) this.drain();
  }

  /**
   * Running a window may complete the next at once (its batches are in), so this loops; but after
   * `DRAIN_BUDGET_MS` of wall time it goes on in the next turn of the event loop, and a long
   * window runs in slices of virtual time (`run-slices.ts`). Meanwhile the protocol state says
   * "running" and batches taken in are for later windows, so the order of what is computed is the
   * same however the work is cut.
   */
  private drain(): void {
    this.draining = true;
    const startMs = performance.now();
    while (this.actions.length > 0 && !this.stopped) {
      if (performance.now() - startMs >= DRAIN_BUDGET_MS) {
        setImmediate(() => {
          try {
            this.drain();
          } catch (err) {
            this.fail(err);
          }
        });
        return;
      }
      const action = this.actions[0]!;
      switch (action.type) {
        case 'run':
          if (!this.runSlice(action.fromPs, action.untilPs)) break;
          this.actions.shift();
          this.windowRun(action.lease, action.window);
          this.actions.push(...this.sync.windowShipped());
          break;
        case 'report':
          this.actions.shift();
          this.reported = true;
          this.control!.send({ type: 'report', report: this.report(action.lease, action.final) });
          break;
        case 'close': {
          this.actions.shift();
          const pair = this.links.pair(action.channel)!;
          this.log.warn({ peer: action.channel, reason: action.reason }, 'closing the connection to a misbehaving neighbour');
          pair.conn?.close(CloseCode.protocol, action.reason);
          this.links.failPair(this.engine!, pair);
          break;
        }
      }
    }
    this.draining = false;
  }

  /** Runs the engine one slice further into the window [fromPs, untilPs): true once the window is run. */
  private runSlice(fromPs: number, untilPs: number): boolean {
    const from = Math.max(fromPs, this.ranToPs);
    const to = this.slices.next(from, untilPs);
    const t0 = performance.now();
    this.engine!.runUntil(to);
    this.slices.ran(to - from, performance.now() - t0);
    this.ranToPs = to;
    return to >= untilPs;
  }

  /** The window is run: count it, and ship one message per neighbour. */
  private windowRun(lease: number, window: number): void {
    this.windowsRun++;
    this.watchdog.onProgress();
    this.links.ship(this.engine!, lease, window);
  }

  /** Lease 0: links connected, nothing run. */
  private readyReport(): Report {
    return { lease: 0, hasNextEvent: false, nextEventPs: 0, nodes: [], links: [], linksFailed: [], linkTotals: [], linkMessages: 0, linkBytes: 0 };
  }

  /**
   * Every lease: each node's counters and every link's counts so far (what the controller
   * accounts a lost member with); the final report adds the nodes' results.
   */
  private report(lease: number, final: boolean): Report {
    const engine = this.engine!;
    const next = engine.nextEventPs();
    // Rows reach their files before the controller hears of this lease: once it has every final report, they are complete.
    if (final) this.recording?.finish();
    else this.recording?.flush();
    const failed = this.links.takeFailed();
    const memory = nodeMemory(this.hosted.length, final);
    return {
      lease,
      hasNextEvent: next !== null,
      nextEventPs: next ?? 0,
      nodes: this.hosted.map((i) => toWireNode(nodeFinal(engine, i, this.options.pod.nodes[i]!.role, memory, { results: final }), final)),
      links: this.links.failedCounts(failed, final),
      linksFailed: failed.map((l) => l.name),
      linkTotals: this.links.totals(),
      linkMessages: this.links.messages,
      linkBytes: this.links.bytes,
    };
  }

  /** Nobody waits forever for a batch that will not come: a link silent for too long is closed. */
  private checkProgress(): void {
    const sync = this.setupSlot.orNull?.sync;
    if (sync === undefined || !this.watchdog.expired(performance.now(), sync.phase === 'awaitingBatches')) return;
    const { lease, window } = sync.position;
    for (const name of sync.missing()) {
      const reason = `no message from member ${name} for lease ${lease} window ${window} within ${Math.round(this.watchdog.limitMs / 1000)} s of this process's running time (twice the hang timeout), though its neighbour answers pings`;
      this.perform([{ type: 'close', channel: name, reason }, ...sync.onChannelFailed(name)]);
    }
  }

  get windows(): number {
    return this.windowsRun;
  }

  /** The engine, once built (diagnostics and tests). */
  get engineOrNull(): PodEngine | null {
    return this.engine;
  }

  /** The connection carrying a remote link, by the link's name: its pair's (diagnostics and tests). */
  linkConnection(name: string): Connection | null {
    return this.setupSlot.orNull?.links.get(name)?.pair.conn ?? null;
  }
}

/** Errors that mean "not there yet" rather than "refused": worth another try. */
const TRANSIENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET', 'EHOSTUNREACH']);

/**
 * Retries `connect` while the controller is not reachable yet, up to `timeoutMs` of wall time
 * (a start-up matter only: nothing emulated depends on it). A refused handshake is final.
 */
async function connectWithRetry(connect: () => Promise<Connection>, timeoutMs: number, log: Logger, url: string): Promise<Connection> {
  const deadline = performance.now() + timeoutMs;
  for (let delay = 100; ; delay = Math.min(1000, delay * 2)) {
    try {
      return await connect();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === undefined || !TRANSIENT.has(code) || performance.now() + delay > deadline) throw err;
      log.info({ url, code }, 'controller not reachable yet; retrying');
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/** The member's logger: every line names it once (a process's logger may already, `member-main.ts`). */
export function memberLog(log: Logger, id: string): Logger {
  return log.bindings().member === id ? log : log.child({ member: id });
}
