/**
 * `rocelab up [FILE]`: run a pod as local processes, one per node, paced for live dashboards;
 * prints every node's /metrics URL; Ctrl-C stops every child.
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { Controller } from '@rocelab/controller';
import { createLogger } from '@rocelab/telemetry';
import { loadTopologyFile } from '@rocelab/topology';
import { planMembers, PodProcesses } from './pod-processes.js';

export interface UpOptions {
  seed: number | null;
  durationPs: number | null;
  dilation: number;
  workers: number | null;
}

export async function upCommand(file: string, options: UpOptions): Promise<number> {
  const pod = loadTopologyFile(file);
  const log = createLogger('rocelab-up', {}, process.env.ROCELAB_LOG_LEVEL ?? 'warn');
  const plans = planMembers(pod, options.workers);
  const token = randomBytes(24).toString('hex');
  const controller = new Controller({
    pod,
    seed: options.seed ?? pod.seed,
    durationPs: options.durationPs,
    dilation: options.dilation,
    token,
    expected: plans,
    mode: options.workers === null ? 'procs' : 'workers',
    log,
  });
  const { url, httpUrl } = await controller.listen();
  const children = new PodProcesses();
  children.start(plans, { topologyFile: resolve(file), controllerUrl: url, token, metricsHost: '127.0.0.1', logLevel: 'warn' });
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
  const out = process.stdout;
  out.write(`pod ${pod.name}: ${pod.nodes.length} nodes as local processes, dilation ${options.dilation} (wall s per virtual s)\n`);
  out.write(`controller  ${httpUrl}/status  ${httpUrl}/metrics  (rocelab status --controller ${httpUrl})\n`);
  const width = Math.max(...pod.nodes.map((n) => n.name.length));
  for (const node of pod.nodes) out.write(`${node.name.padEnd(width)}  ${node.role.padEnd(6)}  ${controller.metricsUrls.get(node.name) ?? '(no metrics)'}\n`);
  out.write('Ctrl-C stops the pod.\n');
  try {
    const result = await Promise.race([controller.result, children.failure]);
    await children.finish();
    out.write(
      `stopped at ${(result.virtualNs / 1e6).toFixed(3)} ms virtual; conservation ${result.conservation ? 'holds' : 'FAILS'}; ${result.causalityViolations} causality violations; trace hash ${result.traceHash}\n`,
    );
    return result.conservation && result.causalityViolations === 0 ? 0 : 1;
  } catch (err) {
    process.stderr.write(`rocelab up: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    children.terminate();
    await controller.close();
  }
}
