/**
 * The controller as its own process (a container of `docker compose up` or `rocelab run
 * --mode docker`): coordinates the members that join until every node of the topology is
 * hosted, then prints the run's result as one JSON line on stdout when the run ends. Configured by the environment:
 *
 *   ROCELAB_TOPOLOGY         topology file (required)
 *   ROCELAB_POD_TOKEN_FILE   a file holding the pod secret (development token with a warning
 *                            when unset; see @rocelab/runtime pod-token.ts)
 *   ROCELAB_CONTROLLER_HOST  listen address (default 0.0.0.0; `rocelab container` sets the
 *                            container's pod-network address), ROCELAB_CONTROLLER_PORT (default 7000)
 *   ROCELAB_HTTP_LIMITS_MS   the HTTP server's time limits (see @rocelab/runtime http-limits.ts)
 *   ROCELAB_DILATION         wall seconds per virtual second (default 1000; 0 = as fast as possible)
 *   ROCELAB_DURATION         virtual duration (e.g. 10ms); unset = until SIGTERM/SIGINT
 *   ROCELAB_RESULT_DETAIL    1: the result lists every node's report (drills)
 *   ROCELAB_REPLAY_FAULTS    a fault log's live faults and clears (JSON) to apply again
 *   ROCELAB_SEED             seed (default: the topology's)
 *   ROCELAB_HANG_TIMEOUT_MS  how long a member that answers no ping is waited for before it is
 *                            declared lost, in this process's own running time (default 300000)
 *
 * Exit codes (docs/errors.md): 0 for a run whose audit holds, 1 for one whose audit fails or
 * for a failure (a lost member, a port in use, a bug), 2 for a bad environment (a variable,
 * the topology, the token file).
 */
import { FaultLogError, faultLogEntries, hangTimeoutFromEnv, httpLimitsFromEnv, HttpLimitsError, LivenessConfigError, podToken, PodTokenError, type FaultLogEntry } from '@rocelab/runtime';
import { createLogger } from '@rocelab/telemetry';
import { loadTopologyFile, parseDuration, TopologyError, UnitError } from '@rocelab/topology';
import { Controller } from './controller.js';

class EnvError extends Error {}

function envNumber(name: string, fallback: number, what: string): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const n = Number(text);
  if (!Number.isFinite(n) || n < 0) throw new EnvError(`${name}=${JSON.stringify(text)}: expected ${what}`);
  return n;
}

export async function runControllerMain(): Promise<never> {
  const env = process.env;
  const log = createLogger('rocelab-controller');
  try {
    if (env.ROCELAB_TOPOLOGY === undefined) throw new EnvError('ROCELAB_TOPOLOGY is not set: expected the path of the topology file');
    const pod = loadTopologyFile(env.ROCELAB_TOPOLOGY);
    let durationPs: number | null = null;
    if (env.ROCELAB_DURATION !== undefined && env.ROCELAB_DURATION !== '') {
      try {
        durationPs = parseDuration(env.ROCELAB_DURATION);
      } catch (err) {
        if (err instanceof UnitError) throw new EnvError(`ROCELAB_DURATION=${JSON.stringify(env.ROCELAB_DURATION)}: expected ${err.expected}`);
        throw err;
      }
    }
    const seed = envNumber('ROCELAB_SEED', pod.seed, 'a non-negative integer seed');
    if (!Number.isSafeInteger(seed)) throw new EnvError(`ROCELAB_SEED=${JSON.stringify(env.ROCELAB_SEED)}: expected a non-negative integer seed`);
    const controller = new Controller({
      pod,
      seed,
      durationPs,
      dilation: envNumber('ROCELAB_DILATION', 1000, 'wall seconds per virtual second (a non-negative number)'),
      token: podToken(log),
      expected: null,
      mode: 'docker',
      log,
      host: env.ROCELAB_CONTROLLER_HOST ?? '0.0.0.0',
      port: envNumber('ROCELAB_CONTROLLER_PORT', 7000, 'a port number'),
      resultDetail: env.ROCELAB_RESULT_DETAIL === '1',
      replayFaults: replayFaults(env.ROCELAB_REPLAY_FAULTS),
      hangTimeoutMs: hangTimeoutFromEnv(env),
    });
    const { url, httpUrl } = await controller.listen(httpLimitsFromEnv(env));
    log.info({ url, status: `${httpUrl}/status`, metrics: `${httpUrl}/metrics` }, 'controller listening');
    const stop = () => controller.stop();
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
    const result = await controller.result;
    process.stdout.write(`${JSON.stringify(result)}\n`);
    await controller.close();
    process.exit(result.conservation && result.causalityViolations === 0 ? 0 : 1);
  } catch (err) {
    log.error({ err: err instanceof Error ? err.message : String(err) }, 'controller failed');
    process.exit(err instanceof EnvError || err instanceof TopologyError || err instanceof PodTokenError || err instanceof HttpLimitsError || err instanceof LivenessConfigError ? 2 : 1);
  }
}

function replayFaults(text: string | undefined): FaultLogEntry[] {
  if (text === undefined || text === '') return [];
  try {
    return faultLogEntries(JSON.parse(text) as unknown);
  } catch (err) {
    throw new EnvError(`ROCELAB_REPLAY_FAULTS: ${err instanceof FaultLogError ? err.message : `expected JSON (${err instanceof Error ? err.message : String(err)})`}`);
  }
}
