/**
 * `rocelab run FILE --duration D [--seed N] [--mode inproc|procs|docker] [--workers K] [--dilation D] [--json]`:
 * run a topology for `[0, duration)` of virtual time and print its result (DESIGN §8).
 * The same inputs give the same trace hash in every mode.
 */
import { resolve } from 'node:path';
import { exitCodeOf, runInproc, type RunResult } from '@rocelab/runtime';
import { loadTopologyFile, type PodSpec } from '@rocelab/topology';
import { DockerRunError, runDockerPod } from './docker-pod.js';
import { planMembers, startLocalPod } from './pod-processes.js';
import { inlineProgress, showProgress } from './progress.js';

export interface RunCommandOptions {
  seed: number | null;
  durationPs: number;
  mode: 'inproc' | 'procs' | 'docker';
  workers: number | null;
  /** The rocelab image for `--mode docker`. */
  image: string;
  dilation: number;
  json: boolean;
  debugUncountedLoss: string | null;
}

export async function runCommand(file: string, options: RunCommandOptions): Promise<number> {
  const pod = loadTopologyFile(file);
  const seed = options.seed ?? pod.seed;
  let result: RunResult;
  if (options.mode === 'docker') {
    try {
      result = await runDockerPod(pod, file, planMembers(pod, options.workers), {
        image: options.image,
        seed,
        durationPs: options.durationPs,
        dilation: options.dilation,
        progress: !options.json,
      });
    } catch (err) {
      if (!(err instanceof DockerRunError)) throw err;
      process.stderr.write(`rocelab run --mode docker: ${err.message}\n`);
      return 2;
    }
  } else if (options.mode === 'inproc' && options.workers === null) {
    const bar = options.json ? null : inlineProgress(options.durationPs);
    try {
      result = runInproc(pod, { seed, durationPs: options.durationPs, debugUncountedLoss: options.debugUncountedLoss, ...(bar ? { onProgress: bar.update } : {}) });
    } finally {
      bar?.stop();
    }
  } else {
    result = await runLocalProcesses(pod, resolve(file), seed, options);
  }
  process.stdout.write(options.json ? `${JSON.stringify(result)}\n` : summary(result));
  return exitCodeOf(result);
}

async function runLocalProcesses(pod: PodSpec, file: string, seed: number, options: RunCommandOptions): Promise<RunResult> {
  const { controller, children } = await startLocalPod(pod, {
    topologyFile: file,
    seed,
    durationPs: options.durationPs,
    dilation: options.dilation,
    workers: options.workers,
    metricsHost: 'off',
    logName: 'rocelab-run',
    debugUncountedLoss: options.debugUncountedLoss,
  });
  const stopProgress = options.json ? () => undefined : showProgress(() => controller.status(), options.durationPs);
  try {
    const result = await Promise.race([controller.result, children.failure]);
    await children.finish();
    return result;
  } finally {
    stopProgress();
    children.terminate();
    await controller.close();
  }
}

function summary(r: RunResult): string {
  const drops = Object.entries(r.droppedByReason)
    .filter(([, n]) => n > 0)
    .map(([reason, n]) => `${reason} ${n}`)
    .join(', ');
  return [
    `${r.mode}${r.mode === 'workers' ? ` ×${r.workers}` : ''}: ${(r.virtualNs / 1e6).toFixed(3)} ms virtual in ${r.wallMs} ms wall, ${r.events} events, ${r.windows} windows`,
    `profile ${r.profile}, timing ${r.timing}, seed ${r.seed}`,
    `packets: sent ${r.packets.sent}, delivered ${r.packets.delivered}, dropped ${r.packets.dropped}${drops ? ` (${drops})` : ''}, queued ${r.packets.queued}`,
    `conservation ${r.conservation ? 'holds' : 'FAILS'}, causality violations ${r.causalityViolations}`,
    `trace hash ${r.traceHash}`,
    '',
  ].join('\n');
}
