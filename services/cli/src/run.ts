/**
 * `rocelab run FILE --duration D [--seed N] [--mode inproc|procs|docker|k8s] [--workers K] [--threads K] [--dilation D]
 *  [--trace DIR [--trace-interval …]] [--pcap DIR [--pcap-ports node:port,…] [--pcap-snaplen N]] [--json]`:
 * run a topology for `[0, duration)` of virtual time and print its result (DESIGN §8).
 * The same inputs give the same trace hash, and the same trace and capture bytes, in every mode.
 * Bad recording options (an unknown port, a directory that cannot be written) are refused
 * before anything starts.
 */
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { exitCodeOf, failedAppsText, failedProgramsText, unplannedLosses, FaultBook, FaultLogError, faultLogEntries, faultToWire, mergeRunFiles, podContext, prepareRunFiles, RunFilesError, ThreadRunError, defaultThreads, type FaultLogEntry, type RecordingOptions, type RunResult } from '@rocelab/runtime';
import { declareAppRegions, InputFileError, loadTopologyFile, planMembers, readInputFile, type PodSpec } from '@rocelab/topology';
import { DockerRunError, DockerRunFailure, K8sRunError, K8sRunFailure } from '@rocelab/deploy';
import { watchParent } from './parent-watch.js';
import { startLocalPod, type LocalPod } from './pod-processes.js';
import { programSandboxRefusal } from './program-sandbox.js';
import { fetchStatus, inlineProgress, showProgress } from './progress.js';
import { inprocRunner, threadsRunner } from './inproc-entry.js';
import { resultText } from './result-text.js';

/** How to run a pod: the part `rocelab run` and `rocelab drill run` share. */
interface RunMode {
  durationPs: number;
  mode: 'inproc' | 'procs' | 'docker' | 'k8s';
  workers: number | null;
  /** inproc: K threads of one process (`runThreads`); 1: one thread; null: `defaultThreads`. */
  threads?: number | null;
  /** The rocelab image for `--mode docker` and `--mode k8s`. */
  image: string;
  /** `--mode k8s`: the kubeconfig (null: KUBECONFIG, ~/.kube/config, in-cluster) and the namespace to create (null: a fresh one). */
  kubeconfig?: string | null;
  namespace?: string | null;
  dilation: number;
  /** No progress bar (a JSON line is the only output). */
  json: boolean;
  debugUncountedLoss: string | null;
  /** procs/workers/docker: start a member again when its process dies mid-run; it rejoins with fresh state. */
  respawn?: boolean;
}

export interface RunCommandOptions extends RunMode {
  seed: number | null;
  /** `--trace DIR` with its grids, and `--pcap DIR` with its ports (null: every host port) and snapshot length. */
  trace: { dir: string; ratesIntervalPs: number; queueIntervalPs: number } | null;
  pcap: { dir: string; ports: string[] | null; snaplen: number } | null;
  /** A fault log (`rocelab up --fault-log`, a result's `faults`) whose live faults apply again. */
  faults: string | null;
}

/** Bad recording options: exit 2 before the run starts. */
export class RunOptionError extends Error {}

/** SIGINT or SIGTERM ended a run of local processes: they were stopped and the pod's files removed (exit 1). */
export class RunInterrupted extends Error {
  constructor(readonly signal: NodeJS.Signals) {
    super(`interrupted by ${signal}: the pod's processes were stopped and its private files removed`);
  }
}

export async function runCommand(file: string, options: RunCommandOptions): Promise<number> {
  const pod = loadTopologyFile(file);
  await declareAppRegions(pod);
  const refusal = programSandboxRefusal(pod, options.mode, 'rocelab run');
  if (refusal !== null) {
    process.stderr.write(`${refusal}\n`);
    return 2;
  }
  const seed = options.seed ?? pod.seed;
  const recording: RecordingOptions = { trace: options.trace, pcap: options.pcap };
  let replayFaults: FaultLogEntry[];
  try {
    checkPcapPorts(pod, options.pcap?.ports ?? null);
    replayFaults = options.faults === null ? [] : readFaultLog(options.faults, pod, seed);
    prepareRunFiles(recording, options.mode === 'docker');
  } catch (err) {
    if (!(err instanceof RunOptionError || err instanceof RunFilesError)) throw err;
    process.stderr.write(`rocelab run: ${err.message}\n`);
    return 2;
  }
  let result: RunResult;
  try {
    result = await executeRun(pod, file, { ...options, seed, recording, detail: false, replayFaults });
  } catch (err) {
    if (err instanceof RunInterrupted) {
      process.stderr.write(`rocelab run: ${err.message}\n`);
      return 1;
    }
    if (err instanceof ThreadRunError) {
      process.stderr.write(`rocelab run --threads ${options.threads}: ${err.message}\n`);
      return 1;
    }
    if (!(err instanceof DockerRunError || err instanceof DockerRunFailure || err instanceof K8sRunError || err instanceof K8sRunFailure)) throw err;
    process.stderr.write(`rocelab run --mode ${options.mode}: ${err.message}\n`);
    return err instanceof DockerRunError || err instanceof K8sRunError ? 2 : 1;
  }
  process.stdout.write(options.json ? `${JSON.stringify(result)}\n` : resultText(result));
  const lost = unplannedLosses(result);
  if (lost.length > 0) process.stderr.write(`rocelab run: ${lost.map((n) => `${n.node} was lost at ${n.atNs / 1e6} ms (its process died${n.restartedAtNs === null ? '' : `; back at ${n.restartedAtNs / 1e6} ms`})`).join('; ')}: no fault asked for it, so the run exits 1\n`);
  else if (result.conservation && result.causalityViolations === 0) process.stderr.write(failedAppsText('rocelab run', result) + failedProgramsText('rocelab run', result));
  return exitCodeOf(result);
}

export interface ExecuteOptions extends RunMode {
  seed: number;
  /** Prepared directories (`prepareRunFiles`); merged here once the run is over. */
  recording: RecordingOptions;
  /** Every node's report in the result. */
  detail: boolean;
  /** Live faults and clears of a fault log to apply again. */
  replayFaults?: readonly FaultLogEntry[];
}

/** Runs `pod` (loaded from `file`, which members read) in the mode asked; a progress bar on a terminal. */
export async function executeRun(pod: PodSpec, file: string, options: ExecuteOptions): Promise<RunResult> {
  let result: RunResult;
  const { seed, recording } = options;
  if (options.mode === 'docker') {
    const { runDockerPod } = await import('@rocelab/deploy/docker');
    result = await runDockerPod(pod, file, planMembers(pod, options.workers), {
      image: options.image,
      seed,
      durationPs: options.durationPs,
      dilation: options.dilation,
      ...(options.json ? {} : { watchStatus: (url: string) => showProgress(() => fetchStatus(url, 1000), options.durationPs) }),
      recording,
      resultDetail: options.detail,
      replayFaults: options.replayFaults ?? [],
      respawn: options.respawn === true,
    });
  } else if (options.mode === 'k8s') {
    const { runK8sPod } = await import('@rocelab/deploy/k8s-run');
    result = await runK8sPod(pod, file, {
      kubeconfig: options.kubeconfig ?? null,
      namespace: options.namespace ?? null,
      workers: options.workers,
      image: options.image,
      seed,
      durationPs: options.durationPs,
      dilation: options.dilation,
      respawn: options.respawn === true,
      resultDetail: options.detail,
      replayFaults: options.replayFaults ?? [],
    });
  } else if (options.mode === 'inproc' && options.workers === null) {
    const bar = options.json ? null : inlineProgress(options.durationPs);
    try {
      const runOptions = { seed, durationPs: options.durationPs, debugUncountedLoss: options.debugUncountedLoss, recording, detail: options.detail, faults: options.replayFaults ?? [], ...(bar ? { onProgress: bar.update } : {}) };
      const threads = options.threads ?? defaultThreads(pod, availableParallelism());
      if (threads > 1) {
        const { run, threadEntry } = await threadsRunner();
        result = await run(pod, threads, { ...runOptions, threadEntry });
      } else {
        result = await (await inprocRunner()).run(pod, runOptions);
      }
    } finally {
      bar?.stop();
    }
  } else {
    result = await runLocalProcesses(pod, resolve(file), options);
  }
  mergeRunFiles(pod, recording);
  return result;
}

/**
 * Local processes (procs, workers). SIGINT (Ctrl-C, which the terminal sends the members too:
 * they leave it to this process) or SIGTERM stops every member and removes the pod's private
 * directory before this process ends (Node's default for these signals ends it at once, skipping
 * every exit hook: the directory and its token were left behind); a second one while that is
 * under way ends it at once, and the janitor removes what is left.
 */
async function runLocalProcesses(pod: PodSpec, file: string, options: ExecuteOptions): Promise<RunResult> {
  let interrupt: (signal: NodeJS.Signals) => void = () => undefined;
  const interrupted = new Promise<never>((_, reject) => (interrupt = (signal) => reject(new RunInterrupted(signal))));
  interrupted.catch(() => undefined);
  const onSignal = (signal: NodeJS.Signals) => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    interrupt(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // Under npm, npm's shell gone (it does not pass SIGTERM on) is a SIGTERM; after a signal, nothing more.
  const unwatch = watchParent(() => onSignal('SIGTERM'));
  let local: LocalPod;
  try {
    // Not raced with a signal: the pod it starts is then stopped below, whatever came meanwhile.
    local = await startLocalPod(pod, {
      topologyFile: file,
      seed: options.seed,
      durationPs: options.durationPs,
      dilation: options.dilation,
      workers: options.workers,
      metricsHost: 'off',
      logName: 'rocelab-run',
      debugUncountedLoss: options.debugUncountedLoss,
      recording: options.recording,
      resultDetail: options.detail,
      replayFaults: options.replayFaults ?? [],
      respawn: options.respawn === true,
    });
  } catch (err) {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    unwatch();
    throw err;
  }
  const { controller, children, removeFiles } = local;
  const stopProgress = options.json ? () => undefined : showProgress(() => controller.status(), options.durationPs);
  try {
    await Promise.race([controller.running, children.failure, interrupted]);
    // From here a member that dies is survived: the run goes on and its result says who was lost.
    children.survive();
    const result = await Promise.race([controller.result, interrupted]);
    await children.finish();
    return result;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    unwatch();
    stopProgress();
    children.terminate();
    await controller.close();
    removeFiles();
  }
}

/** Every `--pcap-ports` entry (`drill run --pcap PORTS`: `flag` says which) must name a port of the pod. */
export function checkPcapPorts(pod: PodSpec, ports: readonly string[] | null, flag = '--pcap-ports'): void {
  if (ports === null) return;
  const known = new Set(pod.nodes.flatMap((n) => n.ports.map((p) => `${n.name}:${p.name}`)));
  const unknown = ports.filter((p) => !known.has(p));
  if (unknown.length > 0) {
    throw new RunOptionError(`${flag}: ${unknown.join(', ')}: no such port in ${pod.file}; expected node:port of the topology, e.g. ${[...known].slice(0, 3).join(', ')}`);
  }
}

/**
 * The live faults and clears of a fault log, checked against the pod: a log of another pod or
 * seed, or a fault that does not fit, is refused before the run starts.
 */
export function readFaultLog(path: string, pod: PodSpec, seed: number, seedHint = (logSeed: string) => `give --seed ${logSeed} to replay it`): FaultLogEntry[] {
  let data: unknown;
  try {
    data = JSON.parse(readInputFile(path, 'fault log')) as unknown;
  } catch (err) {
    if (err instanceof InputFileError && err.reason !== 'unreadable') throw new RunOptionError(`--faults ${path}: expected ${err.expected}, got ${err.actual}`);
    const why = err instanceof InputFileError ? err.actual : err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new RunOptionError(`--faults ${path}: expected a fault log (JSON: rocelab up --fault-log, or a result's faults), got ${why}`);
  }
  const log = (typeof data === 'object' && data !== null ? data : {}) as { pod?: unknown; seed?: unknown; faults?: unknown } | unknown[];
  if (!Array.isArray(log) && !Array.isArray(log.faults)) throw new RunOptionError(`--faults ${path}: expected a list of faults, or an object with one under "faults"`);
  if (!Array.isArray(log) && log.pod !== undefined && log.pod !== pod.name) throw new RunOptionError(`--faults ${path}: a log of pod ${String(log.pod)}; this is pod ${pod.name}`);
  if (!Array.isArray(log) && log.seed !== undefined && log.seed !== seed) throw new RunOptionError(`--faults ${path}: a log of seed ${String(log.seed)}; this run has seed ${seed} (${seedHint(String(log.seed))})`);
  let entries: FaultLogEntry[];
  try {
    entries = faultLogEntries(Array.isArray(log) ? log : log.faults);
  } catch (err) {
    if (err instanceof FaultLogError) throw new RunOptionError(`--faults ${path}: ${err.message}`);
    throw err;
  }
  const live = entries.filter((e) => e.source === 'live');
  try {
    new FaultBook(podContext(pod, seed), [...pod.faults.map((f) => ({ ...faultToWire(f), source: 'topology' as const })), ...live]);
  } catch (err) {
    throw new RunOptionError(`--faults ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return live;
}
