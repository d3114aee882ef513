/**
 * The time coordinator (DESIGN §3): members say Hello, the controller hands out the directory
 * (who hosts which node, the window width), then runs the `@rocelab/sync` coordinator —
 * grants out, reports in — holding each grant until its wall time when a dilation is set.
 * At the end it assembles the run's result from the members' final reports.
 *
 * Pacing is the only wall-clock decision here, and it decides *when* a grant goes out, never
 * what it says: results are the same for every dilation.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { AutoPace, Coordinator, DEFAULT_AUTO_PACE, DEFAULT_LEASE_SIZING, lagSeconds, leaseWindowsFor, maxLeasePsForDilation, MIN_MEASURED_WINDOWS, releaseAtWallMs, type AutoPaceConfig, type AutoPaceView, type Grant as SyncGrant, type Step } from '@rocelab/sync';
import type { Logger } from '@rocelab/telemetry';
import type { PodSpec } from '@rocelab/topology';
import {
  CloseCode,
  Connection,
  DEFAULT_HANG_TIMEOUT_MS,
  createHardenedServer,
  FaultBook,
  httpLimitsFromEnv,
  WS_OPTIONS,
  assembleResult,
  faultToWire,
  fromWireNode,
  idealFctLookup,
  ReportPayloadError,
  linkName,
  mergeLives,
  podContext,
  placementWindow,
  podKey,
  torsOfHosts,
  toSyncReport,
  type FaultLogEntry,
  type HttpLimits,
  type Mode,
  type NodeFinal,
  type Placement,
  type RunResult,
} from '@rocelab/runtime';
import { FaultApi } from './fault-api.js';
import { Lives } from './lives.js';
import { PaceWindow } from './pace.js';
import { pacingView } from './pacing-view.js';
import type { Directory, Envelope, Fault, Hello, Status } from '@rocelab/wire';
import { WebSocketServer, type WebSocket } from 'ws';
import { controllerRegistry } from './metrics.js';

export interface ControllerOptions {
  pod: PodSpec;
  seed: number;
  /** Virtual duration; null runs until `stop()`. */
  durationPs: number | null;
  /** Wall seconds per virtual second; 0 = as fast as possible (or, with `autoPace`, until a pace is chosen). */
  dilation: number;
  /**
   * Choose the pace from the first windows, run unpaced (`auto-pace.ts`), and keep it from then
   * on; needs `dilation` 0. `true`: `DEFAULT_AUTO_PACE`. Absent: the dilation is fixed.
   */
  autoPace?: true | AutoPaceConfig;
  /** Called once, when `autoPace` has chosen the pace. */
  onPaceChosen?: (view: AutoPaceView) => void;
  token: string;
  /** The members expected, with their nodes; null accepts any members that cover the pod exactly once. */
  expected: ReadonlyArray<{ id: string; nodes: readonly string[] }> | null;
  mode: Mode;
  log: Logger;
  host?: string;
  port?: number;
  /** A fixed cap on a lease's windows; by default leases are sized by their measured wall time (`lease-size.ts`). */
  maxWindowsPerLease?: number;
  /** Every node's report in the result (`RunResult.nodes`), for drills. */
  resultDetail?: boolean;
  /** A fault log's live faults and clears to apply again (`rocelab run --faults`). */
  replayFaults?: readonly FaultLogEntry[];
  /**
   * How long a member that answers no ping is waited for, in this process's own running time
   * (`liveness.ts`; default 5 min): then it is declared lost, as if its process had died.
   */
  hangTimeoutMs?: number;
  /**
   * Called when a member is given up on for its silence (its sockets are still open: a stopped
   * or hung process): whoever started its process kills it (`rocelab run`/`up`: SIGKILL), so its
   * links close and nothing of it is left.
   */
  onMemberHung?: (member: string, reason: string) => void;
}

interface MemberEntry {
  id: string;
  nodes: string[];
  conn: Connection;
  linkUrl: string;
  metricsUrls: string[];
  ready: boolean;
  /** A restarted process that has joined the running pod but not yet run a lease. */
  rejoining: boolean;
}

export type ControllerState = 'starting' | 'running' | 'finished' | 'failed';

export class Controller {
  private readonly log: Logger;
  private readonly key: Buffer;
  private readonly members = new Map<string, MemberEntry>();
  private readonly claimed = new Map<string, string>();
  private coordinator: Coordinator<Fault> | null = null;
  /** The fault log: the topology's faults, replayed ones, and those the API adds. */
  readonly faults: FaultBook;
  private readonly api: FaultApi;
  private http: Server | null = null;
  private wss: WebSocketServer | null = null;
  private t0 = 0;
  private windowPs = 0;
  private placement: Placement | null = null;
  private virtualPs = 0;
  private state: ControllerState = 'starting';
  private finals = new Map<string, NodeFinal>();
  /** Per member, the batch messages and bytes it shipped to other members (its latest report's totals). */
  private readonly traffic = new Map<string, { messages: number; bytes: number }>();
  /** `close()` was called: connections closing now are its doing, not losses. */
  private closing = false;
  /** Stops each member connection's heartbeat. */
  private readonly heartbeats = new Map<Connection, () => void>();
  /** Lease-end snapshots, and the lives of nodes whose member process died. */
  private readonly lives: Lives;
  private settle!: { resolve: (r: RunResult) => void; reject: (e: Error) => void };
  private readonly started = performance.now();
  /** A grant held until its wall time (pacing). */
  private pending: { timer: NodeJS.Timeout; grant: SyncGrant<Fault> } | null = null;
  private windowsDone = 0;
  private lastRate = { at: performance.now(), windows: 0, perSecond: 0 };
  /** Virtual time completed against wall time, lease by lease: the pace `/status` reports. */
  private readonly pace = new PaceWindow();
  /** Wall seconds per virtual second now: the option's, or the one `autoPace` chose (0 until then). */
  private dilation: number;
  /**
   * The wall time (performance.now()) virtual time 0 would go out at, at the current dilation:
   * the pod's start, or for a pace chosen mid-run, so that the lease then released is on time.
   */
  private paceT0 = 0;
  private readonly autoPace: AutoPace | null;
  /** The lease last released, for sizing the next one by its wall time. */
  private released = { atMs: 0, windows: 0 };
  readonly result: Promise<RunResult>;
  /** Resolves when every member has joined and the first lease is granted. */
  readonly running: Promise<void>;
  private markRunning!: () => void;
  /** Every member's per-node metrics URLs, as they registered. */
  readonly metricsUrls = new Map<string, string>();
  readonly registry;

  constructor(private readonly options: ControllerOptions) {
    this.log = options.log.child({ role: 'controller' });
    this.key = podKey(options.token);
    this.result = new Promise<RunResult>((resolve, reject) => (this.settle = { resolve, reject }));
    this.result.catch(() => undefined);
    this.running = new Promise<void>((resolve) => (this.markRunning = resolve));
    this.faults = new FaultBook(podContext(options.pod, options.seed), [
      ...options.pod.faults.map((f) => ({ ...faultToWire(f), source: 'topology' as const })),
      ...(options.replayFaults ?? []),
    ]);
    this.api = new FaultApi(this.key, this.faults, () => this.coordinator, () => this.virtualPs, this.log);
    this.lives = new Lives(options.pod, (member) => this.members.get(member)?.nodes ?? []);
    if (options.autoPace !== undefined && options.dilation !== 0) throw new Error(`controller: a pace is either chosen (autoPace) or fixed (dilation ${options.dilation}), not both`);
    this.dilation = options.dilation;
    this.autoPace = options.autoPace === undefined ? null : new AutoPace(options.autoPace === true ? DEFAULT_AUTO_PACE : options.autoPace);
    this.registry = controllerRegistry(() => this.status(), () => this.faults.view(this.virtualPs), () => this.paceSource());
  }

  /**
   * Start serving members (WebSocket) and /status, /metrics (HTTP) on one port. Returns the ws
   * URL. The HTTP server has rocelab's time limits (`ROCELAB_HTTP_LIMITS_MS` overrides them).
   */
  async listen(limits: HttpLimits = httpLimitsFromEnv(process.env)): Promise<{ url: string; httpUrl: string }> {
    const http = createHardenedServer(limits, (req, res) => this.serveHttp(req, res));
    const wss = new WebSocketServer({ server: http, ...WS_OPTIONS });
    wss.on('connection', (ws) => void this.accept(ws));
    const host = this.options.host ?? '127.0.0.1';
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(this.options.port ?? 0, host, () => resolve());
    });
    this.http = http;
    this.wss = wss;
    const port = (http.address() as AddressInfo).port;
    const shown = host === '0.0.0.0' ? '127.0.0.1' : host;
    return { url: `ws://${shown}:${port}/control`, httpUrl: `http://${shown}:${port}` };
  }

  /**
   * End the run at the current lease's end (for runs without a duration). A grant held back
   * for pacing goes out at once: stopping should not wait for the wall clock to catch up.
   */
  stop(): void {
    if (this.coordinator === null) {
      this.fail(new Error('stopped before the pod started'));
      return;
    }
    this.coordinator.requestStop();
    const held = this.pending;
    if (held !== null) {
      clearTimeout(held.timer);
      this.pending = null;
      this.release(held.grant);
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    if (this.pending !== null) clearTimeout(this.pending.timer);
    for (const stop of this.heartbeats.values()) stop();
    this.heartbeats.clear();
    for (const m of this.members.values()) m.conn.close(CloseCode.shutdown, 'controller stopping');
    this.wss?.close();
    await new Promise<void>((resolve) => (this.http === null ? resolve() : this.http.close(() => resolve())));
  }

  status(): Status {
    const now = performance.now();
    if (now - this.lastRate.at >= 1000) {
      this.lastRate = { at: now, windows: this.windowsDone, perSecond: ((this.windowsDone - this.lastRate.windows) * 1000) / (now - this.lastRate.at) };
    }
    const d = this.dilation;
    const running = this.t0 > 0 && this.pending === null && this.state === 'running';
    const lag = lagSeconds(now - this.paceT0, running ? this.virtualPs : null, d);
    return {
      virtualPs: this.virtualPs,
      dilation: d,
      windowsPerSecond: this.lastRate.perSecond,
      nodesUp: [...this.members.values()].reduce((n, m) => n + (m.conn.isOpen ? m.nodes.length : 0), 0),
      nodesTotal: this.options.pod.nodes.length,
      lagSeconds: lag,
      state: this.state,
      windows: this.windowsDone,
    };
  }

  /** Where the pace comes from: fixed when the pod started, or measured and then chosen. */
  paceSource(): 'fixed' | 'measuring' | 'chosen' {
    return this.autoPace === null ? 'fixed' : this.autoPace.view.state;
  }

  /**
   * Prometheus HTTP service discovery (`http_sd_configs`): one target group per node that
   * registered a metrics URL, sorted by node name, so one static Prometheus config scrapes
   * any pod. The series carry their own `node` and `role` labels.
   */
  scrapeTargets(): Array<{ targets: string[]; labels: Record<string, string> }> {
    return [...this.metricsUrls]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, url]) => {
        const u = new URL(url);
        return { targets: [u.host], labels: { __metrics_path__: u.pathname } };
      });
  }

  private async accept(ws: WebSocket): Promise<void> {
    let conn: Connection;
    try {
      conn = await Connection.accept(ws, this.key, { node: 'controller', role: 'controller', link: '', nodes: [], linkUrl: '', metricsUrls: [] }, (h) => this.checkMember(h), this.log);
    } catch {
      return; // refused and logged by Connection.accept
    }
    const hello = conn.peer!;
    const rejoin = this.members.has(hello.node) && this.state === 'running';
    if (rejoin) this.lives.back(hello.node);
    const entry: MemberEntry = { id: hello.node, nodes: [...hello.nodes], conn, linkUrl: hello.linkUrl, metricsUrls: hello.metricsUrls, ready: false, rejoining: rejoin };
    this.members.set(entry.id, entry);
    entry.nodes.forEach((n, i) => {
      this.claimed.set(n, entry.id);
      if (hello.metricsUrls[i] !== undefined) this.metricsUrls.set(n, hello.metricsUrls[i]);
    });
    conn.listen(
      (env) => this.onMessage(entry, env),
      (code, reason) => this.onClosed(entry, code, reason),
    );
    // A member stopped for good keeps its sockets open: only its silence tells (liveness.ts).
    this.heartbeats.set(conn, conn.heartbeat(this.options.hangTimeoutMs ?? DEFAULT_HANG_TIMEOUT_MS));
    if (rejoin) {
      this.log.warn({ member: entry.id, nodes: entry.nodes }, 'lost member is back: it rejoins with fresh state at a lease boundary');
      entry.conn.send({ type: 'directory', directory: { ...this.directory(), rejoin: true } });
      return;
    }
    this.log.info({ member: entry.id, nodes: entry.nodes }, 'member joined');
    if (this.claimed.size === this.options.pod.nodes.length) this.sendDirectory();
  }

  private checkMember(hello: Hello): { code: number; reason: string } | null {
    const refuse = (reason: string) => ({ code: CloseCode.unknownPeer, reason });
    if (hello.role !== 'member') return refuse(`role ${hello.role} cannot join as a member`);
    const previous = this.members.get(hello.node);
    if (this.state === 'running' && previous !== undefined && this.coordinator!.lostMembers.includes(hello.node)) {
      // A lost member restarted: it may rejoin with exactly the nodes it hosted.
      if ([...previous.nodes].sort().join() !== [...hello.nodes].sort().join()) return refuse(`member ${hello.node} hosted ${previous.nodes.join(',')}; it cannot rejoin with ${hello.nodes.join(',')}`);
      return null;
    }
    if (this.state === 'finished' || this.state === 'failed') return refuse('the run is over');
    if (this.state !== 'starting') return refuse(previous !== undefined ? `member ${hello.node} is already part of the running pod` : 'the pod is already running');
    if (previous !== undefined) return refuse(`member ${hello.node} is already connected`);
    if (hello.nodes.length === 0) return refuse(`member ${hello.node} hosts no nodes`);
    const names = new Set(this.options.pod.nodes.map((n) => n.name));
    for (const n of hello.nodes) {
      if (!names.has(n)) return refuse(`unknown node ${n}: pod ${this.options.pod.name} has no such node`);
      if (this.claimed.has(n)) return refuse(`node ${n} is already hosted by ${this.claimed.get(n)}`);
    }
    const expected = this.options.expected?.find((e) => e.id === hello.node);
    if (this.options.expected !== null && (expected === undefined || [...expected.nodes].sort().join() !== [...hello.nodes].sort().join())) {
      return refuse(`member ${hello.node} with nodes ${hello.nodes.join(',')} is not expected in this run`);
    }
    return null;
  }

  /** Everyone is here: the window is the smallest lookahead of any link between members. */
  private sendDirectory(): void {
    const { pod } = this.options;
    const { windowPs, crossLinks } = placementWindow(pod, this.claimed);
    this.windowPs = windowPs;
    this.placement = { members: this.members.size, crossLinks, links: pod.links.length, windowNs: this.windowPs / 1000 };
    const directory = this.directory();
    for (const m of this.members.values()) m.conn.send({ type: 'directory', directory });
    this.log.info({ members: this.members.size, windowPs: this.windowPs }, 'directory sent');
  }

  private directory(): Directory {
    const members = [...this.members.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
    return { members: members.map((m) => ({ id: m.id, nodes: m.nodes, linkUrl: m.linkUrl })), windowPs: this.windowPs, seed: this.options.seed, runId: `${this.options.pod.name}-${this.options.seed}`, rejoin: false };
  }

  private onMessage(member: MemberEntry, env: Envelope): void {
    if (env.type !== 'report') {
      member.conn.close(CloseCode.protocol, `expected Report from a member, got ${env.type}`);
      return;
    }
    const report = env.report;
    if (report.lease === 0) {
      member.ready = true;
      if (member.rejoining) {
        this.coordinator!.rejoin(member.id);
        return;
      }
      if ([...this.members.values()].every((m) => m.ready) && this.claimed.size === this.options.pod.nodes.length) this.begin();
      return;
    }
    member.rejoining = false;
    let nodes: NodeFinal[];
    try {
      nodes = report.nodes.map(fromWireNode).filter((n): n is NodeFinal => n !== null);
    } catch (err) {
      // A report or results that are not a node's (report-wire.ts checked them): that member misbehaves.
      if (!(err instanceof ReportPayloadError)) throw err;
      member.conn.close(CloseCode.protocol, err.message);
      return;
    }
    this.lives.report(member.id, { lease: report.lease, nodes, links: report.linkTotals });
    this.traffic.set(member.id, { messages: report.linkMessages, bytes: report.linkBytes });
    if (this.coordinator?.lease?.final === true) for (const n of nodes) this.finals.set(n.node, n);
    this.sizeNextLease();
    let step: Step<Fault>;
    try {
      step = this.coordinator!.onReport(toSyncReport(member.id, report));
    } catch (err) {
      // A report the protocol does not allow: that member misbehaves.
      member.conn.close(CloseCode.protocol, err instanceof Error ? err.message : String(err));
      return;
    }
    try {
      this.step(step);
    } catch (err) {
      // A bug here, not the member's doing: the run cannot be trusted any more.
      this.fail(new Error(`controller: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`));
    }
  }

  private onClosed(member: MemberEntry, code: number, reason: string): void {
    this.heartbeats.get(member.conn)?.();
    this.heartbeats.delete(member.conn);
    if (this.closing || this.state === 'finished' || this.members.get(member.id) !== member) return;
    if (code === CloseCode.timeout) {
      // Silent for the hang timeout while this process ran: stopped or hung, not slow.
      this.log.error({ member: member.id, nodes: member.nodes, reason }, 'member hung: declared lost');
      this.options.onMemberHung?.(member.id, reason);
    }
    this.log.warn({ member: member.id, nodes: member.nodes, code, reason }, 'member lost: its links go down at the next lease and the pod carries on');
    this.lives.gone(member.id);
    if (this.coordinator === null) {
      this.fail(new Error(`member ${member.id} left before the pod started (${code}: ${reason})`));
      return;
    }
    this.step(this.coordinator.onMemberLost(member.id));
  }

  private begin(): void {
    const { pod, durationPs } = this.options;
    const dilation = this.dilation;
    const linksOfMember = new Map<string, string[]>();
    for (const link of pod.links) {
      for (const end of [link.a, link.b]) {
        const m = this.claimed.get(end.node)!;
        linksOfMember.set(m, [...(linksOfMember.get(m) ?? []), linkName(link)]);
      }
    }
    this.coordinator = new Coordinator<Fault>({
      members: [...this.members.keys()].sort(),
      windowPs: this.windowPs,
      endPs: durationPs,
      maxWindowsPerLease: this.options.maxWindowsPerLease ?? DEFAULT_LEASE_SIZING.minWindows,
      maxLeasePs: maxLeasePsForDilation(dilation),
      idleSpanPs: maxLeasePsForDilation(dilation) ?? this.windowPs,
      faults: this.faults.entries(),
      linksOfMember,
    });
    this.state = 'running';
    this.t0 = performance.now();
    this.paceT0 = this.t0;
    this.log.info({ windowPs: this.windowPs, dilation, autoPace: this.autoPace !== null, durationPs }, 'pod running');
    this.step(this.coordinator.start());
    this.markRunning();
  }

  private step(step: Step<Fault>): void {
    if (step.type === 'wait') return;
    if (step.type === 'finished') return this.finish(step.endPs);
    const grant = step.grant;
    const hold = this.paceT0 + releaseAtWallMs(grant, this.dilation) - performance.now();
    // Once a stop is requested the remaining leases go out at once: stopping never waits for the wall clock.
    if (hold <= 0 || this.coordinator!.stopRequested) return this.release(grant);
    const timer = setTimeout(() => {
      this.pending = null;
      this.release(grant);
    }, hold);
    this.pending = { timer, grant };
  }

  /**
   * Before each report is taken (the last one decides the next grant): the next lease holds the
   * windows that fit in the target wall time at what this one has cost so far.
   */
  private sizeNextLease(): void {
    if (this.options.maxWindowsPerLease !== undefined || this.released.windows < MIN_MEASURED_WINDOWS) return;
    this.coordinator?.setMaxWindowsPerLease(leaseWindowsFor((performance.now() - this.released.atMs) / this.released.windows));
  }

  private release(grant: SyncGrant<Fault>): void {
    if (grant.membersLost.length + grant.membersJoined.length > 0) this.log.info({ lease: grant.lease, startPs: grant.startPs, lost: grant.membersLost, joined: grant.membersJoined, linksUp: grant.linksUp, linksDown: grant.linksDown }, 'membership changes');
    for (const id of grant.membersLost) {
      const lastLease = this.lives.declared(id, grant.startPs);
      this.log.warn({ member: id, atNs: grant.startPs / 1000, lastReportedLease: lastLease }, 'member declared lost; its frames since its last report are accounted from its neighbours');
    }
    for (const id of grant.membersJoined) this.lives.rejoined(id, grant.startPs);
    const atMs = performance.now();
    const chosen = this.autoPace?.sample(atMs - this.t0, grant.startPs, this.windowsDone) ?? null;
    if (chosen !== null) this.keepPace(chosen, grant, atMs);
    this.windowsDone += grant.windows;
    this.released = { atMs, windows: grant.windows };
    this.pace.record(this.released.atMs, grant.startPs);
    for (const m of this.members.values()) {
      // A rejoining member runs from the grant that names it, not one decided before it was ready.
      if (m.rejoining && !grant.membersJoined.includes(m.id)) continue;
      if (m.conn.isOpen) m.conn.send({ type: 'grant', grant });
    }
    this.virtualPs = grant.endPs;
  }

  /**
   * From the lease going out now on, the pod keeps `dilation`: this lease is on time, the
   * following ones are capped and held as a fixed dilation's are. The one going out was sized
   * unpaced (its successors are not).
   */
  private keepPace(dilation: number, grant: SyncGrant<Fault>, atMs: number): void {
    this.dilation = dilation;
    this.paceT0 = atMs - releaseAtWallMs(grant, dilation);
    const maxLeasePs = maxLeasePsForDilation(dilation);
    this.coordinator!.setLeaseSpan(maxLeasePs, maxLeasePs ?? this.windowPs);
    const view = this.autoPace!.view;
    this.log.info({ ...view, lease: grant.lease }, 'pace chosen from the first windows');
    this.options.onPaceChosen?.(view);
  }

  private finish(endPs: number): void {
    const { pod, seed, mode } = this.options;
    const workers = this.members.size;
    this.lives.settle(endPs, this.finals);
    const lives = (node: string) => this.lives.of(node, this.finals.get(node));
    const missing = pod.nodes.filter((n) => lives(n.name).length === 0).map((n) => n.name);
    this.state = 'finished';
    this.virtualPs = endPs;
    for (const m of this.members.values()) m.conn.send({ type: 'goodbye', goodbye: { reason: 'run finished' } });
    if (missing.length > 0) {
      this.fail(new Error(`no final report from ${missing.join(', ')}: their members were lost`));
      return;
    }
    // Frames lost in transit on links that broke in the last lease: the sender's link_down drops.
    for (const loss of this.coordinator!.lossesAtEnd) {
      const sender = this.finals.get(loss.link.split(':')[0]!);
      if (sender !== undefined) sender.dropped.link_down = (sender.dropped.link_down ?? 0) + loss.frames;
    }
    const result = assembleResult(
      pod.nodes.map((n) => mergeLives(lives(n.name))),
      { seed, profile: pod.profile, timing: pod.timing, mode, workers, durationPs: endPs, wallMs: performance.now() - this.started, startupMs: this.t0 > 0 ? this.t0 - this.started : 0, windows: this.coordinator!.windowsGranted, torOf: torsOfHosts(pod), idealFctPs: idealFctLookup(podContext(pod, seed)), detail: this.options.resultDetail === true, faultLog: this.faults.entries(), lostNodes: this.lives.losses, linkTraffic: sumTraffic(this.traffic.values()), ...(this.placement === null ? {} : { placement: this.placement }) },
    );
    this.log.info({ traceHash: result.traceHash, windows: result.windows }, 'run finished');
    this.settle.resolve(result);
  }

  private fail(err: Error): void {
    this.state = 'failed';
    this.log.error({ err: err.message }, 'run failed');
    this.settle.reject(err);
  }

  private serveHttp(req: IncomingMessage, res: ServerResponse): void {
    if (req.url === '/faults' || req.url?.startsWith('/faults/')) {
      void this.api.serve(req, res);
      return;
    }
    if (req.method === 'GET' && req.url === '/status') {
      const faults = this.faults.view(this.virtualPs).sort((a, b) => a.atNs - b.atNs || a.id - b.id);
      const next = faults.filter((f) => f.state === 'scheduled')[0];
      const nextFault = next === undefined ? null : { id: next.id, kind: next.kind, target: next.target, atNs: next.atNs };
      // The faults in force now and those to come: since when and until when (null: no end known).
      const brief = (f: (typeof faults)[number]) => ({ id: f.id, kind: f.kind, target: f.target, source: f.source, atNs: f.atNs, untilNs: f.untilNs });
      const activeFaults = faults.filter((f) => f.state === 'active').map(brief);
      const scheduledFaults = faults.filter((f) => f.state === 'scheduled').map(brief);
      const view = { pod: this.options.pod.name, durationPs: this.options.durationPs, ...this.status(), pacing: this.pending === null ? null : pacingView(this.pending.grant, this.paceT0, this.dilation, performance.now(), Date.now()), autoPace: this.autoPace?.view ?? null, pace: this.state === 'running' ? this.pace.view(performance.now()) : null, nextFault, activeFaults, scheduledFaults, nodes: Object.fromEntries(this.metricsUrls) };
      res.writeHead(200, { 'content-type': 'application/json' }).end(`${JSON.stringify(view)}\n`);
      return;
    }
    if (req.method === 'GET' && req.url === '/metrics') {
      this.registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': this.registry.contentType }).end(text),
        (err: unknown) => res.writeHead(500).end(String(err)),
      );
      return;
    }
    if (req.method === 'GET' && req.url === '/sd') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(`${JSON.stringify(this.scrapeTargets())}\n`);
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: GET /status, GET /metrics, GET /sd, GET/POST/DELETE /faults (bearer token), or a WebSocket to /control\n');
  }
}

function sumTraffic(members: Iterable<{ messages: number; bytes: number }>): { messages: number; bytes: number } {
  const total = { messages: 0, bytes: 0 };
  for (const m of members) {
    total.messages += m.messages;
    total.bytes += m.bytes;
  }
  return total;
}
