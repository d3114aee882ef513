/**
 * Local processes of a pod: one member per node (`procs`: the switch and host services
 * themselves) or K workers sharing the nodes (`rocelab member`). Every child is killed when
 * this process exits, so Ctrl-C or a failed run never leaves strays behind; if this process is
 * killed outright, the pod's janitor (`pod-janitor.ts`) does it.
 *
 * Until the pod runs, a child that exits is a failed start. Once it runs, a child that dies
 * (kill -9, a crash) is survived: the controller declares its member lost and the pod carries
 * on; with `respawn`, the child is started again and its member rejoins with fresh state. A
 * child the controller declares hung (no answer for the hang timeout: stopped, deadlocked) is
 * killed with SIGKILL, which reaches a stopped process too, and is then survived the same way.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { isDeepStrictEqual } from 'node:util';
import { Controller, type AutoPaceView } from '@rocelab/controller';
import { createLogger, type Logger } from '@rocelab/telemetry';
import { planMembers, type MemberPlan, type PodSpec } from '@rocelab/topology';
import { hangTimeoutFromEnv, NO_RECORDING, recordingToEnv, type FaultLogEntry, type RecordingOptions } from '@rocelab/runtime';
import { writeTokenFile } from '@rocelab/deploy';
import { memberEntry } from './member-entries.js';
import { startJanitor, type Janitor } from './pod-janitor.js';

const RESPAWN_DELAY_MS = 500;

export interface SpawnOptions {
  /** Start a member again when its process dies while the pod runs (it rejoins). */
  respawn?: boolean;
  topologyFile: string;
  /** The resolved pod as JSON (`writePodJson`), or null: members load the topology file. */
  podJson?: string | null;
  /** A private directory where members' link servers listen on Unix sockets (null: loopback TCP). */
  linkSocketDir?: string | null;
  controllerUrl: string;
  /** The file holding the pod token (`writeTokenFile`): children never get the token in their environment. */
  tokenFile: string;
  metricsHost: string;
  logLevel: string;
  debugUncountedLoss?: string | null;
  /** Environment of the recording (`recordingToEnv`): traces and captures. */
  recordingEnv?: Record<string, string>;
}

export class PodProcesses {
  private readonly children: ChildProcess[] = [];
  /** Rejects when a child exits before the pod runs (a failed start). */
  readonly failure: Promise<never>;
  private rejectFailure!: (err: Error) => void;
  private ending = false;
  private running = false;
  /** Members whose process died while the pod ran, with the signal or code. */
  readonly deaths: Array<{ member: string; how: string; respawned: boolean }> = [];
  /** Each member's current process. */
  private readonly current = new Map<string, { child: ChildProcess; plan: MemberPlan }>();
  /** Processes killed because the controller declared them hung. */
  private readonly hung = new Set<ChildProcess>();

  constructor(private readonly janitor: Janitor | null = null) {
    this.failure = new Promise<never>((_, reject) => (this.rejectFailure = reject));
    this.failure.catch(() => undefined);
    process.once('exit', () => this.killAll('SIGKILL'));
  }

  /** The pod runs: from now on a child that dies is survived (and, with `respawn`, started again). */
  survive(): void {
    this.running = true;
  }

  /** Starts every member, one per turn of the event loop: the controller in this process answers those already started meanwhile. */
  async start(plans: readonly MemberPlan[], options: SpawnOptions): Promise<void> {
    for (const plan of plans) {
      if (this.ending) return;
      this.spawnMember(plan, options);
      await nextTurn();
    }
  }

  /**
   * The controller gave up on a member's silence (`reason`): its process is stopped or hung, and
   * is killed so that nothing of it is left (with `respawn` it is started again, and rejoins).
   */
  killHung(member: string, reason: string): void {
    const entry = this.current.get(member);
    if (entry === undefined || entry.child.exitCode !== null || entry.child.signalCode !== null) return;
    process.stderr.write(`rocelab: member ${member} (${entry.plan.nodes.join(', ')}) hung: ${reason}; it is declared lost and its process ${entry.child.pid} is killed (SIGKILL)\n`);
    this.hung.add(entry.child);
    entry.child.kill('SIGKILL');
  }

  private spawnMember(plan: MemberPlan, options: SpawnOptions): void {
    const args = memberEntry(plan.entry);
    // Node's own flags for the members (e.g. `--cpu-prof --cpu-prof-dir=/tmp/p` to profile them:
    // Node refuses --cpu-prof in NODE_OPTIONS).
    const nodeArgs = (process.env.ROCELAB_MEMBER_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const child = spawn(process.execPath, [...nodeArgs, ...args], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: {
        ...process.env,
        ROCELAB_TOPOLOGY: options.topologyFile,
        ROCELAB_POD_JSON: options.podJson ?? undefined,
        ROCELAB_LINK_SOCKET_DIR: options.linkSocketDir ?? undefined,
        ROCELAB_NODES: plan.nodes.join(','),
        ROCELAB_MEMBER: plan.id,
        ROCELAB_CONTROLLER: options.controllerUrl,
        ROCELAB_POD_TOKEN: undefined, // the user's way to give the CLI the token: never passed on
        ROCELAB_POD_TOKEN_FILE: options.tokenFile,
        ROCELAB_METRICS_HOST: options.metricsHost,
        ROCELAB_MANAGED: '1',
        ROCELAB_LOG_LEVEL: process.env.ROCELAB_LOG_LEVEL ?? options.logLevel,
        ...(options.debugUncountedLoss ? { ROCELAB_DEBUG_UNCOUNTED_LOSS: options.debugUncountedLoss } : {}),
        ...options.recordingEnv,
      },
    });
    if (child.pid !== undefined) this.janitor?.watch(child.pid);
    this.current.set(plan.id, { child, plan });
    child.once('exit', (code, signal) => {
      if (this.ending || code === 0) return;
      const how = this.hung.has(child) ? `${signal}, after it hung` : (signal ?? `code ${code}`);
      if (!this.running) return this.rejectFailure(new Error(`member ${plan.id} exited with ${how}`));
      const respawned = options.respawn === true;
      this.deaths.push({ member: plan.id, how, respawned });
      process.stderr.write(`rocelab: member ${plan.id} (${plan.nodes.join(', ')}) died (${how}); the pod carries on without it${respawned ? ', and it is started again to rejoin' : ''}\n`);
      // A moment's pause, as a rebooting box takes one; the controller declares it lost meanwhile.
      if (respawned) setTimeout(() => !this.ending && this.spawnMember(plan, options), RESPAWN_DELAY_MS).unref();
    });
    this.children.push(child);
  }

  /** Wait for every child to exit on its own (after the controller's Goodbye), then kill stragglers. */
  async finish(timeoutMs = 10_000): Promise<void> {
    this.ending = true;
    const exits = this.children.map((c) => (c.exitCode !== null || c.signalCode !== null ? Promise.resolve() : new Promise<void>((r) => c.once('exit', () => r()))));
    const timer = new Promise<void>((r) => setTimeout(r, timeoutMs).unref());
    await Promise.race([Promise.all(exits), timer]);
    this.killAll('SIGKILL');
  }

  /** Ask every child to stop (SIGTERM), e.g. on Ctrl-C; one still there 5 s later (a stopped one cannot stop) is killed. */
  terminate(): void {
    this.ending = true;
    this.killAll('SIGTERM');
    if (this.children.some((c) => c.exitCode === null && c.signalCode === null)) setTimeout(() => this.killAll('SIGKILL'), 5_000).unref();
  }

  private killAll(signal: NodeJS.Signals): void {
    for (const c of this.children) if (c.exitCode === null && c.signalCode === null) c.kill(signal);
  }
}

export interface LocalPodOptions {
  /** Start a member's process again when it dies while the pod runs; it rejoins with fresh state. */
  respawn?: boolean;
  /** Absolute path of the topology file (the children load it themselves). */
  topologyFile: string;
  seed: number;
  /** null: until `controller.stop()`. */
  durationPs: number | null;
  /** Wall seconds per virtual second, or 'auto': chosen from the first windows, run unpaced (`auto-pace.ts` of `@rocelab/sync`). */
  dilation: number | 'auto';
  /** Called once the pace is chosen (with `dilation: 'auto'`). */
  onPaceChosen?: (view: AutoPaceView) => void;
  workers: number | null;
  /** Where the children serve /metrics; "off" for none. */
  metricsHost: string;
  /** The logger's name (rocelab-run, rocelab-up). */
  logName: string;
  debugUncountedLoss?: string | null;
  recording?: RecordingOptions;
  /** Every node's report in the result (drills). */
  resultDetail?: boolean;
  /** A fault log's live faults and clears to apply again (`run --faults`). */
  replayFaults?: readonly FaultLogEntry[];
}

/** A local pod: its controller, its member processes, and how to remove its private files. */
export interface LocalPod {
  controller: Controller;
  children: PodProcesses;
  httpUrl: string;
  token: string;
  /** Removes the pod's private directory (token, pod.json, link sockets); idempotent. Done by itself once the result is in. */
  removeFiles(): void;
}

/**
 * A pod as local processes under a controller in this process, with the token of
 * ROCELAB_POD_TOKEN or a fresh random one (returned: the fault API asks for it), which the
 * children read from a private file: the controller listens, then every member is spawned. The
 * private directory goes once the result is in, when this process exits, or — if it is killed
 * outright — through the janitor. A member the controller declares hung is killed. The caller
 * waits on `controller.result` (or `children.failure`), cleans up both, and handles signals
 * (and, under npm, its parent's death: `parent-watch.ts`).
 */
export async function startLocalPod(pod: PodSpec, o: LocalPodOptions): Promise<LocalPod> {
  const log = createLogger(o.logName, {}, process.env.ROCELAB_LOG_LEVEL ?? 'warn');
  const plans = planMembers(pod, o.workers);
  const token = process.env.ROCELAB_POD_TOKEN || randomBytes(24).toString('hex');
  let children: PodProcesses | null = null;
  const controller = new Controller({
    pod,
    seed: o.seed,
    durationPs: o.durationPs,
    dilation: o.dilation === 'auto' ? 0 : o.dilation,
    ...(o.dilation === 'auto' ? { autoPace: true as const } : {}),
    ...(o.onPaceChosen === undefined ? {} : { onPaceChosen: o.onPaceChosen }),
    token,
    expected: plans,
    mode: o.workers === null ? 'procs' : 'workers',
    log,
    resultDetail: o.resultDetail === true,
    replayFaults: o.replayFaults ?? [],
    hangTimeoutMs: hangTimeoutFromEnv(process.env),
    onMemberHung: (member, reason) => children?.killHung(member, reason),
  });
  const { url, httpUrl } = await controller.listen();
  const tokenFile = writeTokenFile(token);
  const janitor = startJanitor(dirname(tokenFile.path));
  const removeFiles = (): void => {
    tokenFile.remove();
    janitor?.done();
  };
  // Kept while the pod runs (a member started again reads it again).
  controller.result.then(removeFiles, removeFiles);
  const podJson = writePodJson(pod, dirname(tokenFile.path), log);
  children = new PodProcesses(janitor);
  try {
    await children.start(plans, {
      topologyFile: o.topologyFile,
      podJson,
      linkSocketDir: dirname(tokenFile.path),
      controllerUrl: url,
      tokenFile: tokenFile.path,
      metricsHost: o.metricsHost,
      logLevel: 'warn',
      debugUncountedLoss: o.debugUncountedLoss ?? null,
      recordingEnv: recordingToEnv(o.recording ?? NO_RECORDING),
      respawn: o.respawn === true,
    });
  } catch (err) {
    children.terminate();
    removeFiles();
    await controller.close();
    throw err;
  }
  return { controller, children, httpUrl, token, removeFiles };
}

/**
 * The pod this process resolved, as JSON beside the token (removed with it), so that members
 * start without parsing and validating the YAML again (ROCELAB_POD_JSON; the file stays the
 * source of truth for messages). Written only when JSON carries the pod exactly; otherwise null,
 * and members load the topology file as they would in containers.
 */
export function writePodJson(pod: PodSpec, dir: string, log: Logger): string | null {
  const text = JSON.stringify(pod);
  if (!isDeepStrictEqual(JSON.parse(text), pod)) {
    log.debug({ pod: pod.name }, 'the resolved pod does not survive JSON: members load the topology file');
    return null;
  }
  const path = join(dir, 'pod.json');
  writeFileSync(path, text, { mode: 0o600 });
  return path;
}
