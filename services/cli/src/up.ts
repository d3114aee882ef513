/**
 * `rocelab up [FILE]`: run a pod as local processes, one per node, paced for live dashboards;
 * prints every node's /metrics URL; Ctrl-C, SIGTERM or `rocelab down` stops the pod in order.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { declareAppRegions, loadTopologyFile } from '@rocelab/topology';
import { exitCodeOf, failedAppsText, failedProgramsText } from '@rocelab/runtime';
import { clearPodRecord, writePodRecord } from './pod-record.js';
import { watchParent } from './parent-watch.js';
import { startLocalPod, type LocalPod } from './pod-processes.js';
import type { AutoPaceView } from '@rocelab/controller';
import { programSandboxRefusal } from './program-sandbox.js';
import { resultText } from './result-text.js';
import { autoPaceText } from './progress.js';

export interface UpOptions {
  seed: number | null;
  durationPs: number | null;
  /** Wall seconds per virtual second, fixed; 'auto' (no --dilation): chosen from the first windows, run unpaced. */
  dilation: number | 'auto';
  workers: number | null;
  /** Where the fault log goes when the pod stops (it replays the run: `rocelab run --faults`). */
  faultLog: string | null;
}

export async function upCommand(file: string, options: UpOptions): Promise<number> {
  const pod = loadTopologyFile(file);
  await declareAppRegions(pod);
  const refusal = programSandboxRefusal(pod, 'procs', 'rocelab up');
  if (refusal !== null) {
    process.stderr.write(`${refusal}\n`);
    return 2;
  }
  // Ctrl-C, SIGTERM (`rocelab down`, a service manager) and, under npm, the death of npm's shell
  // (parent-watch.ts) stop the pod in order: the current lease ends, members send final reports,
  // the audit is printed and the private files go. A second signal kills at once (the janitor
  // then removes the files). Listening from the start: a signal during start-up stops the pod
  // as soon as it is there.
  let local: LocalPod | null = null;
  let interrupted = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (++interrupted > 1) {
      local?.children.terminate();
      process.exit(signal === 'SIGINT' ? 130 : 143);
    }
    process.stderr.write(`${signal}: stopping the pod at the end of the current lease (${signal === 'SIGINT' ? 'Ctrl-C' : 'SIGTERM'} again to kill)\n`);
    local?.controller.stop();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // Under npm, npm's shell gone is a SIGTERM — unless a stop is under way (a Ctrl-C kills that shell too).
  const unwatch = watchParent(() => interrupted === 0 && onSignal('SIGTERM'));
  // The pace is chosen some windows after the pod starts: said under the banner, once it is out.
  let bannerOut = false;
  let paceLine: string | null = null;
  const onPaceChosen = (view: AutoPaceView) => {
    paceLine = `pace        ${autoPaceText(view)}\n`;
    if (bannerOut) process.stdout.write(paceLine);
  };
  try {
    local = await startLocalPod(pod, {
      topologyFile: resolve(file),
      seed: options.seed ?? pod.seed,
      durationPs: options.durationPs,
      dilation: options.dilation,
      onPaceChosen,
      workers: options.workers,
      metricsHost: '127.0.0.1',
      logName: 'rocelab-up',
      respawn: true,
    });
  } catch (err) {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    unwatch();
    throw err;
  }
  const { controller, children, httpUrl, token } = local;
  if (interrupted > 0) controller.stop();
  const out = process.stdout;
  try {
    // The result rejects when the pod fails to start (a member exits, or a signal came first).
    await Promise.race([controller.running, children.failure, controller.result]);
    // A live pod survives its members: a node's process that dies is started again and rejoins.
    children.survive();
    writePodRecord({ pod: pod.name, controller: httpUrl, pid: process.pid, startedAt: new Date().toISOString() });
    process.once('exit', () => clearPodRecord());
    const pace = options.dilation === 'auto' ? 'its pace measured unpaced over the first windows, then kept (rocelab status shows it)' : `dilation ${options.dilation} (wall s per virtual s)`;
    out.write(`pod ${pod.name}: ${pod.nodes.length} nodes as local processes, ${pace}\n`);
    out.write(`controller  ${httpUrl}/status  ${httpUrl}/metrics  (rocelab status finds it)\n`);
    const width = Math.max(...pod.nodes.map((n) => n.name.length));
    for (const node of pod.nodes) out.write(`${node.name.padEnd(width)}  ${node.role.padEnd(6)}  ${controller.metricsUrls.get(node.name) ?? '(no metrics)'}\n`);
    const tokenNote = process.env.ROCELAB_POD_TOKEN ? 'the token in ROCELAB_POD_TOKEN' : `ROCELAB_POD_TOKEN=${token}`;
    out.write(`faults      ${tokenNote} rocelab fault inject --controller ${httpUrl} --kind nicPauseStorm --target h1\n`);
    out.write('rocelab down (in another terminal) or Ctrl-C stops the pod.\n');
    bannerOut = true;
    if (paceLine !== null) out.write(paceLine);
    const result = await controller.result;
    await children.finish();
    out.write(
      `stopped at ${(result.virtualNs / 1e6).toFixed(3)} ms virtual; conservation ${result.conservation ? 'holds' : 'FAILS'}; ${result.causalityViolations} causality violations; trace hash ${result.traceHash}\n`,
    );
    out.write(resultText(result));
    if (options.faultLog !== null) {
      writeFileSync(options.faultLog, `${JSON.stringify({ pod: pod.name, seed: result.seed, virtualNs: result.virtualNs, traceHash: result.traceHash, faults: result.faults }, null, 2)}\n`);
      out.write(`fault log: ${options.faultLog} (replay: rocelab run ${file} --duration ${result.virtualNs}ns --seed ${result.seed} --faults ${options.faultLog})\n`);
    }
    process.stderr.write(failedAppsText('rocelab up', result) + failedProgramsText('rocelab up', result));
    return exitCodeOf(result);
  } catch (err) {
    process.stderr.write(`rocelab up: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    unwatch();
    clearPodRecord();
    children.terminate();
    await controller.close();
    local.removeFiles();
  }
}
