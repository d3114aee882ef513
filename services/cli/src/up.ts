/**
 * `rocelab up [FILE]`: run a pod as local processes, one per node, paced for live dashboards;
 * prints every node's /metrics URL; Ctrl-C stops every child.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { declareAppRegions, loadTopologyFile } from '@rocelab/topology';
import { exitCodeOf, failedAppsText } from '@rocelab/runtime';
import { clearPodRecord, writePodRecord } from './pod-record.js';
import { startLocalPod } from './pod-processes.js';
import { resultText } from './result-text.js';

export interface UpOptions {
  seed: number | null;
  durationPs: number | null;
  dilation: number;
  workers: number | null;
  /** Where the fault log goes when the pod stops (it replays the run: `rocelab run --faults`). */
  faultLog: string | null;
}

export async function upCommand(file: string, options: UpOptions): Promise<number> {
  const pod = loadTopologyFile(file);
  await declareAppRegions(pod);
  const { controller, children, httpUrl, token } = await startLocalPod(pod, {
    topologyFile: resolve(file),
    seed: options.seed ?? pod.seed,
    durationPs: options.durationPs,
    dilation: options.dilation,
    workers: options.workers,
    metricsHost: '127.0.0.1',
    logName: 'rocelab-up',
    respawn: true,
  });
  let interrupted = 0;
  process.on('SIGINT', () => {
    if (++interrupted > 1) {
      children.terminate();
      process.exit(130);
    }
    process.stderr.write('stopping the pod at the end of the current lease (Ctrl-C again to kill)\n');
    controller.stop();
  });
  await Promise.race([controller.running, children.failure]);
  // A live pod survives its members: a node's process that dies is started again and rejoins.
  children.survive();
  writePodRecord({ pod: pod.name, controller: httpUrl, pid: process.pid, startedAt: new Date().toISOString() });
  process.once('exit', () => clearPodRecord());
  const out = process.stdout;
  out.write(`pod ${pod.name}: ${pod.nodes.length} nodes as local processes, dilation ${options.dilation} (wall s per virtual s)\n`);
  out.write(`controller  ${httpUrl}/status  ${httpUrl}/metrics  (rocelab status finds it)\n`);
  const width = Math.max(...pod.nodes.map((n) => n.name.length));
  for (const node of pod.nodes) out.write(`${node.name.padEnd(width)}  ${node.role.padEnd(6)}  ${controller.metricsUrls.get(node.name) ?? '(no metrics)'}\n`);
  const tokenNote = process.env.ROCELAB_POD_TOKEN ? 'the token in ROCELAB_POD_TOKEN' : `ROCELAB_POD_TOKEN=${token}`;
  out.write(`faults      ${tokenNote} rocelab fault inject --controller ${httpUrl} --kind nicPauseStorm --target h1\n`);
  out.write('Ctrl-C stops the pod.\n');
  try {
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
    process.stderr.write(failedAppsText('rocelab up', result));
    return exitCodeOf(result);
  } catch (err) {
    process.stderr.write(`rocelab up: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    clearPodRecord();
    children.terminate();
    await controller.close();
  }
}
