/**
 * A member process: it hosts one or more nodes of the pod, connects to the controller, opens
 * one WebSocket per link to a node hosted elsewhere, and runs the window protocol of
 * `@rocelab/sync` — one batch per link per window, neighbour lockstep inside a lease, a report
 * to the controller at each lease end. `switch` and `host` services are members hosting one
 * node; `--workers K` runs K members hosting several each.
 */
import { performance } from 'node:perf_hooks';
import type { Engine, Outbox } from '@rocelab/sim';
import { MemberSync, type MemberAction } from '@rocelab/sync';
import type { Logger } from '@rocelab/telemetry';
import type { LinkSpec, PodSpec } from '@rocelab/topology';
import type { Directory, Envelope, Grant, LinkBatch, Report } from '@rocelab/wire';
import { WebSocketServer } from 'ws';
import type { AddressInfo } from 'node:net';
import { podKey } from './auth.js';
import { CloseCode, Connection, WS_OPTIONS, type Identity } from './connection.js';
import { scheduleWireFault } from './fault-wire.js';
import { httpLimitsFromEnv, listenWebSocket } from './http-limits.js';
import { NodeMetrics } from './node-metrics.js';
import { buildEngine, podContext, type ModelFactory, type PodContext } from './models.js';
import { directionName, linkName } from './names.js';
import { attachRecording, NO_RECORDING, type Recording, type RecordingOptions } from './recording.js';
import { nodeFinal } from './result.js';

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
  /** Serve each node's /metrics; null = no metrics servers. */
  metrics?: { host: string; advertiseHost?: string; port?: number } | null;
  /** How long to keep retrying the controller while it is not reachable yet (containers start in any order). */
  connectTimeoutMs?: number;
  log: Logger;
  /** Wall time to wait for a neighbour's batch before closing its link as misbehaving. */
  batchTimeoutMs?: number;
  debugUncountedLoss?: string | null;
  /** Model construction (default: the real switch and NIC models). */
  models?: ModelFactory;
  /** Traces and captures of this member's nodes (directories prepared by whoever started the run). */
  recording?: RecordingOptions;
}

/**
 * Sequence numbers of link-down events the controller declares (origin = the controller):
 * far above the topology faults' (2 × fault index + end), unique per lease, link and end.
 */
const DECLARED_DOWN_SEQ = 2 ** 40;

/** One link to a node hosted by another member. */
interface RemoteLink {
  name: string;
  spec: LinkSpec;
  localNode: number;
  localPort: number;
  /** This member dials (it hosts the link's `a` end). */
  dialer: boolean;
  conn: Connection | null;
  live: boolean;
  sent: number;
  accepted: number;
  outName: string;
  inName: string;
}

export class MemberProcess {
  private readonly log: Logger;
  private readonly key: Buffer;
  private pc: PodContext | null = null;
  private readonly hosted: number[];
  private readonly remote = new Map<string, RemoteLink>();
  private engine: Engine | null = null;
  private recording: Recording | null = null;
  private sync: MemberSync | null = null;
  private control: Connection | null = null;
  private server: WebSocketServer | null = null;
  private readonly metrics: NodeMetrics;
  private windowsRun = 0;
  private failedThisLease: RemoteLink[] = [];
  private readonly failedEver: RemoteLink[] = [];
  private progress = 0;
  private watchdog: NodeJS.Timeout | null = null;
  private linksReady!: () => void;
  /** Resolves once the directory has been applied: links can be accepted from then on. */
  private readonly directoryApplied: Promise<void>;
  private markDirectoryApplied!: () => void;
  private finished = false;
  private settle!: { resolve: () => void; reject: (err: Error) => void };
  readonly done: Promise<void>;

  constructor(private readonly options: MemberOptions) {
    this.log = options.log.child({ member: options.id });
    this.key = podKey(options.token);
    this.hosted = options.nodes.map((name) => {
      const node = options.pod.nodes.find((n) => n.name === name);
      if (node === undefined) throw new Error(`member ${options.id}: node ${name} is not in pod ${options.pod.name}`);
      return node.index;
    });
    this.hosted.sort((a, b) => a - b);
    this.metrics = new NodeMetrics(options.pod, this.hosted, () => this.engine, () => this.windowsRun);
    this.done = new Promise<void>((resolve, reject) => (this.settle = { resolve, reject }));
    this.directoryApplied = new Promise<void>((resolve) => (this.markDirectoryApplied = resolve));
    this.done.catch(() => undefined);
  }

  /** Listen for links, serve metrics, say Hello to the controller. Resolves once registered. */
  async start(): Promise<{ linkUrl: string; metricsUrls: string[] }> {
    const o = this.options;
    const server = await listenWebSocket({ host: o.listenHost ?? '127.0.0.1', port: 0, limits: httpLimitsFromEnv(process.env), options: WS_OPTIONS });
    this.server = server;
    server.on('connection', (ws) => void this.acceptLink(ws));
    const linkUrl = `ws://${o.advertiseHost ?? o.listenHost ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}/link`;
    const metricsUrls = o.metrics ? await this.metrics.serve(o.metrics.host, o.metrics.advertiseHost, o.metrics.port) : [];
    const self: Identity = { node: o.id, role: 'member', link: '', nodes: [...o.nodes], linkUrl, metricsUrls };
    this.control = await connectWithRetry(() => Connection.connect(o.controllerUrl, this.key, self, this.log), o.connectTimeoutMs ?? 0, this.log, o.controllerUrl);
    this.control.listen(
      (env) => this.onControl(env),
      (code, reason) => this.onControlClosed(code, reason),
    );
    this.log.info({ nodes: o.nodes, linkUrl }, 'registered with the controller');
    return { linkUrl, metricsUrls };
  }

  /** Close everything (also after a failure). */
  async stop(): Promise<void> {
    if (this.watchdog !== null) clearInterval(this.watchdog);
    for (const link of this.remote.values()) link.conn?.close(CloseCode.shutdown, 'member stopping');
    this.control?.close(CloseCode.normal, 'member stopping');
    await new Promise<void>((resolve) => (this.server === null ? resolve() : this.server.close(() => resolve())));
    await this.metrics.close();
  }

  private onControl(env: Envelope): void {
    try {
      switch (env.type) {
        case 'directory':
          return void this.setup(env.directory).catch((err: unknown) => this.fail(err));
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
    this.fail(new Error(`controller connection closed (${code}): ${reason}`));
  }

  private fail(err: unknown): void {
    const error = err instanceof Error ? err : new Error(String(err));
    this.log.error({ err: error.message }, 'member failed');
    this.finished = true;
    this.settle.reject(error);
  }

  /** The directory says who hosts what: build the engine, connect the remote links, report ready. */
  private async setup(directory: Directory): Promise<void> {
    const pod = this.options.pod;
    this.pc = podContext(pod, directory.seed);
    const hostedSet = new Set(this.hosted);
    const owner = new Map<string, string>();
    for (const m of directory.members) for (const n of m.nodes) owner.set(n, m.id);
    const urlOf = new Map(directory.members.map((m) => [m.id, m.linkUrl]));
    this.engine = buildEngine(this.pc, this.hosted, this.options.debugUncountedLoss ?? null, this.options.models);
    this.recording = attachRecording(this.engine, this.pc, this.hosted, this.options.recording ?? NO_RECORDING);
    for (const spec of pod.links) {
      const aNode = pod.nodes.find((n) => n.name === spec.a.node)!;
      const bNode = pod.nodes.find((n) => n.name === spec.b.node)!;
      const aHere = hostedSet.has(aNode.index);
      if (aHere === hostedSet.has(bNode.index)) continue;
      const [local, localSpec, from, to] = aHere ? [aNode, spec.a, spec.a, spec.b] : [bNode, spec.b, spec.b, spec.a];
      const port = local.ports.find((p) => p.name === localSpec.port)!;
      this.remote.set(linkName(spec), {
        name: linkName(spec),
        spec,
        localNode: local.index,
        localPort: port.index,
        dialer: aHere,
        conn: null,
        live: true,
        sent: 0,
        accepted: 0,
        outName: directionName(from, to),
        inName: directionName(to, from),
      });
    }
    this.sync = new MemberSync([...this.remote.keys()]);
    this.markDirectoryApplied();
    const allUp = new Promise<void>((resolve) => (this.linksReady = resolve));
    this.checkLinksReady();
    const dials = [...this.remote.values()]
      .filter((l) => l.dialer)
      .map(async (link) => {
        const url = urlOf.get(owner.get(link.spec.b.node)!)!;
        const conn = await Connection.connect(url, this.key, { node: link.spec.a.node, role: 'link', link: link.name, nodes: [], linkUrl: '', metricsUrls: [] }, this.log);
        this.attach(link, conn);
      });
    await Promise.all(dials);
    await allUp;
    this.watchdog = setInterval(() => this.checkProgress(), Math.max(1000, (this.options.batchTimeoutMs ?? 60_000) / 4));
    this.watchdog.unref();
    this.log.info({ links: this.remote.size, windowPs: directory.windowPs }, 'links up; ready');
    this.control!.send({ type: 'report', report: this.report(0, false) });
  }

  private async acceptLink(ws: import('ws').WebSocket): Promise<void> {
    let link: RemoteLink | undefined;
    // A neighbour may dial before our directory arrived: hold its socket until we know our links.
    await this.directoryApplied;
    try {
      const conn = await Connection.accept(
        ws,
        this.key,
        { node: this.options.id, role: 'member', link: '', nodes: [], linkUrl: '', metricsUrls: [] },
        (hello) => {
          link = this.remote.get(hello.link);
          if (link === undefined || link.dialer) return { code: CloseCode.unknownPeer, reason: `unknown link ${hello.link || '(none)'}: no such link ends at ${this.options.id}` };
          if (hello.node !== link.spec.a.node) return { code: CloseCode.unknownPeer, reason: `node ${hello.node} is not the far end of ${hello.link}` };
          if (link.conn !== null) return { code: CloseCode.unknownPeer, reason: `link ${hello.link} is already connected` };
          return null;
        },
        this.log,
      );
      this.attach(link!, conn);
    } catch {
      // Refused: Connection.accept logged the reason and closed the socket; the member keeps running.
    }
  }

  private attach(link: RemoteLink, conn: Connection): void {
    link.conn = conn;
    conn.listen(
      (env) => this.onLinkMessage(link, env),
      (code, reason) => this.onLinkClosed(link, code, reason),
    );
    this.log.debug({ link: link.name }, 'link up');
    this.checkLinksReady();
  }

  private checkLinksReady(): void {
    for (const link of this.remote.values()) if (link.conn === null) return;
    this.linksReady?.();
  }

  private onLinkMessage(link: RemoteLink, env: Envelope): void {
    if (env.type !== 'batch') {
      link.conn!.close(CloseCode.protocol, `expected Batch on link ${link.name}, got ${env.type}`);
      return;
    }
    const batch = env.batch;
    const actions = this.sync!.onBatch(link.name, batch.lease, batch.window);
    if (!actions.some((a) => a.type === 'close' && a.link === link.name)) {
      this.engine!.deliverRemote(link.localNode, link.localPort, batch);
      link.accepted += batch.frames.length;
      this.progress++;
    }
    this.perform(actions);
  }

  private onLinkClosed(link: RemoteLink, code: number, reason: string): void {
    if (!link.live || this.finished) return;
    link.live = false;
    this.log.warn({ link: link.name, code, reason }, 'link closed: declared down from the next window');
    this.engine!.setRemoteBroken(link.localNode, link.localPort);
    this.failedThisLease.push(link);
    this.perform(this.sync!.onLinkFailed(link.name));
  }

  private onGrant(grant: Grant): void {
    const engine = this.engine!;
    const hostedSet = new Set(this.hosted);
    grant.linksDown.forEach((name, i) => {
      const link = this.options.pod.links.find((l) => linkName(l) === name);
      if (link === undefined) return;
      [link.a, link.b].forEach((end, e) => {
        const node = this.options.pod.nodes.find((n) => n.name === end.node)!;
        const seq = DECLARED_DOWN_SEQ + grant.lease * 2 ** 20 + 2 * i + e;
        if (hostedSet.has(node.index)) engine.scheduleLinkState(grant.startPs, seq, node.index, node.ports.find((p) => p.name === end.port)!.index, false);
      });
    });
    for (const loss of grant.losses) {
      const link = [...this.remote.values()].find((l) => l.outName === loss.link);
      if (link !== undefined) engine.context(link.localNode).stats.countDrops('link_down', link.localPort, loss.frames);
    }
    for (const fault of grant.faults) scheduleWireFault(engine, this.pc!, fault, hostedSet);
    this.perform(this.sync!.onGrant(grant));
  }

  /** Carry out protocol actions; running a window may complete the next at once, so loop. */
  private perform(actions: MemberAction[]): void {
    const queue = [...actions];
    while (queue.length > 0) {
      const action = queue.shift()!;
      switch (action.type) {
        case 'run':
          this.runWindow(action.lease, action.window, action.untilPs);
          queue.push(...this.sync!.windowShipped());
          break;
        case 'report':
          this.control!.send({ type: 'report', report: this.report(action.lease, action.final) });
          break;
        case 'close': {
          const link = this.remote.get(action.link)!;
          this.log.warn({ link: action.link, reason: action.reason }, 'closing misbehaving link');
          link.conn?.close(CloseCode.protocol, action.reason);
          if (link.live) {
            link.live = false;
            this.engine!.setRemoteBroken(link.localNode, link.localPort);
            this.failedThisLease.push(link);
          }
          break;
        }
      }
    }
  }

  private runWindow(lease: number, window: number, untilPs: number): void {
    const engine = this.engine!;
    engine.runUntil(untilPs);
    this.windowsRun++;
    this.progress++;
    for (const link of this.remote.values()) {
      const out: Outbox = engine.takeOutbox(link.localNode, link.localPort);
      if (!link.live) {
        // Emitted before the link broke, never shipped: lost on the dead link.
        engine.context(link.localNode).stats.countDrops('link_down', link.localPort, out.frames.length);
        continue;
      }
      const batch: LinkBatch = { lease, window, ...out };
      link.conn!.send({ type: 'batch', batch });
      link.sent += out.frames.length;
    }
  }

  private report(lease: number, final: boolean): Report {
    const engine = this.engine!;
    const next = engine.nextEventPs();
    // Rows reach their files before the controller hears of this lease: once it has every final report, they are complete.
    if (final) this.recording?.finish();
    else this.recording?.flush();
    const failed = this.failedThisLease.splice(0);
    this.failedEver.push(...failed);
    // The final report repeats every failed link's counts: the controller settles each once.
    const counted = final ? this.failedEver : failed;
    const rss = process.memoryUsage().rss / this.hosted.length;
    return {
      lease,
      hasNextEvent: next !== null,
      nextEventPs: next ?? 0,
      nodes: this.hosted.map((i) => {
        const f = final ? nodeFinal(engine, i, this.options.pod.nodes[i]!.role, rss) : null;
        return {
          node: engine.context(i).name,
          hash: engine.digest(i),
          events: engine.eventsProcessed(i),
          stats:
            f === null
              ? null
              : {
                  sent: f.sent,
                  delivered: f.delivered,
                  queued: f.queued,
                  dropped: f.dropped,
                  causalityViolations: f.causalityViolations,
                  rssBytes: Math.round(f.rssBytes),
                  resultsJson: JSON.stringify(f.results),
                  reportJson: JSON.stringify(f.report),
                },
        };
      }),
      links: counted.flatMap((l) => [
        { link: l.outName, sender: true, frames: l.sent },
        { link: l.inName, sender: false, frames: l.accepted },
      ]),
      linksFailed: failed.map((l) => l.name),
    };
  }

  /** Nobody waits forever for a batch that will not come: a link silent for too long is closed. */
  private lastProgress = -1;
  private lastProgressAt = performance.now();
  private checkProgress(): void {
    if (this.sync?.phase !== 'awaitingBatches') {
      this.lastProgress = this.progress;
      this.lastProgressAt = performance.now();
      return;
    }
    if (this.progress !== this.lastProgress) {
      this.lastProgress = this.progress;
      this.lastProgressAt = performance.now();
      return;
    }
    const limit = this.options.batchTimeoutMs ?? 60_000;
    if (performance.now() - this.lastProgressAt < limit) return;
    const { lease, window } = this.sync.position;
    for (const name of this.sync.missing()) {
      const reason = `no batch for lease ${lease} window ${window} within ${limit} ms`;
      this.perform([{ type: 'close', link: name, reason }, ...this.sync.onLinkFailed(name)]);
    }
  }

  get windows(): number {
    return this.windowsRun;
  }

  /** The engine, once the directory arrived (diagnostics and tests). */
  get engineOrNull(): Engine | null {
    return this.engine;
  }

  /** The connection of a remote link by name (diagnostics and tests). */
  linkConnection(name: string): Connection | null {
    return this.remote.get(name)?.conn ?? null;
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
