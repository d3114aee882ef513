#!/usr/bin/env node
/**
 * The controller as its own process (containers, `rocelab up` elsewhere): coordinates the
 * members that join until every node of the topology is hosted. Configured by the environment:
 *
 *   ROCELAB_TOPOLOGY         topology file (required)
 *   ROCELAB_POD_TOKEN        pod secret (development token with a warning when unset)
 *   ROCELAB_CONTROLLER_HOST  listen address (default 0.0.0.0), ROCELAB_CONTROLLER_PORT (default 7000)
 *   ROCELAB_DILATION         wall seconds per virtual second (default 1000)
 *   ROCELAB_DURATION         virtual duration (e.g. 10ms); unset = until stopped
 *   ROCELAB_SEED             seed (default: the topology's)
 */
import { podToken } from '@rocelab/runtime';
import { createLogger } from '@rocelab/telemetry';
import { loadTopologyFile, parseDuration, TopologyError } from '@rocelab/topology';
import { Controller } from './controller.js';

const env = process.env;
const log = createLogger('rocelab-controller');
try {
  if (env.ROCELAB_TOPOLOGY === undefined) throw new Error('ROCELAB_TOPOLOGY is not set: expected the path of the topology file');
  const pod = loadTopologyFile(env.ROCELAB_TOPOLOGY);
  const controller = new Controller({
    pod,
    seed: env.ROCELAB_SEED === undefined ? pod.seed : Number(env.ROCELAB_SEED),
    durationPs: env.ROCELAB_DURATION === undefined ? null : parseDuration(env.ROCELAB_DURATION),
    dilation: Number(env.ROCELAB_DILATION ?? 1000),
    token: podToken(log),
    expected: null,
    mode: 'docker',
    workers: 0,
    log,
    host: env.ROCELAB_CONTROLLER_HOST ?? '0.0.0.0',
    port: Number(env.ROCELAB_CONTROLLER_PORT ?? 7000),
  });
  const { url, httpUrl } = await controller.listen();
  log.info({ url, status: `${httpUrl}/status`, metrics: `${httpUrl}/metrics` }, 'controller listening');
  const stop = () => controller.stop();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  const result = await controller.result;
  process.stdout.write(`${JSON.stringify(result)}\n`);
  await controller.close();
  process.exit(0);
} catch (err) {
  log.error({ err: err instanceof TopologyError || err instanceof Error ? err.message : String(err) }, 'controller failed');
  process.exit(1);
}
