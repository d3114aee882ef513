/**
 * The process entry of a member (switch and host services, `rocelab member`): everything
 * comes from the environment, so the same entry serves local processes and containers.
 *
 *   ROCELAB_TOPOLOGY        topology file (required)
 *   ROCELAB_POD_JSON        the pod already resolved from that file, as JSON (what `rocelab run`
 *                           and `up` write for local members): read instead of the file
 *   ROCELAB_NODES           comma-separated node names to host (or ROCELAB_NODE for one)
 *   ROCELAB_MEMBER          member id (default: the node name when hosting one node)
 *   ROCELAB_CONTROLLER      controller WebSocket URL, e.g. ws://controller:7000/control
 *   ROCELAB_POD_TOKEN_FILE  a file holding the pod secret (see pod-token.ts); without it the
 *                           development token is used, with a warning
 *   ROCELAB_LISTEN_HOST     link server address (default 127.0.0.1; 0.0.0.0 in containers)
 *   ROCELAB_LINK_SOCKET_DIR a private directory: the link server listens on a Unix socket there
 *                           instead (what `rocelab run` and `up` give local members)
 *   ROCELAB_ADVERTISE_HOST  how other members reach this one (default: the listen host)
 *   ROCELAB_METRICS_HOST    /metrics address (default 127.0.0.1); "off" disables metrics
 *   ROCELAB_METRICS_PORT    /metrics port of the first hosted node, the next ones counting up
 *                           (default 0: chosen by the OS)
 *   ROCELAB_MANAGED         1 when a local parent (rocelab up/run) manages this process: Ctrl-C
 *                           is left to the parent
 *   ROCELAB_TRACE_DIR, ROCELAB_TRACE_RATES_INTERVAL_PS, ROCELAB_TRACE_QUEUE_INTERVAL_PS
 *                           write this member's trace rows there (`rocelab run --trace`)
 *   ROCELAB_PCAP_DIR, ROCELAB_PCAP_PORTS, ROCELAB_PCAP_SNAPLEN
 *                           capture those ports (empty: every host port) there (`--pcap`)
 *   ROCELAB_HTTP_LIMITS_MS  time limits of the link and /metrics servers (http-limits.ts)
 *   ROCELAB_CONNECT_TIMEOUT_MS  how long to keep trying the controller (default 60000)
 *   ROCELAB_HANG_TIMEOUT_MS how long a silent controller (no pong) or neighbour (no batch) is
 *                           waited for, in this process's own running time (liveness.ts;
 *                           default 300000: 5 min)
 *
 * The controller may not be listening yet (containers start in any order): the member keeps
 * trying for a minute before giving up.
 *
 * Exit codes (docs/errors.md): 0 when the pod ends, 2 for a bad environment (a variable, the
 * topology, the token file), 1 for anything else: no controller, a controller that refuses
 * the member, a failure while running, or a bug.
 */
import { readFileSync } from 'node:fs';
import { createLogger } from '@rocelab/telemetry';
import { declareAppRegions, loadTopologyFile, TopologyError, type PodSpec, type Role } from '@rocelab/topology';
import { httpLimitsFromEnv, HttpLimitsError } from './http-limits.js';
import { hangTimeoutFromEnv, LivenessConfigError } from './liveness.js';
import { ControllerLostError, MemberProcess } from './member.js';
import { podToken, PodTokenError } from './pod-token.js';
import { recordingFromEnv, RunFilesError, type RecordingOptions } from './recording.js';

export type ExpectedRole = 'switch' | 'host' | 'any';

const CONNECT_TIMEOUT_MS = 60_000;

const SWITCH_ROLES: readonly Role[] = ['tor', 'leaf', 'spine', 'switch'];

export async function runMemberMain(expect: ExpectedRole): Promise<never> {
  const env = process.env;
  const nodes = (env.ROCELAB_NODES ?? env.ROCELAB_NODE ?? '').split(',').filter(Boolean);
  const id = env.ROCELAB_MEMBER ?? (nodes.length === 1 ? nodes[0]! : '');
  const log = createLogger(`rocelab-${expect === 'any' ? 'member' : expect}`, { member: id });
  /** Bad input (exit 2) when the error is one of ours about the environment, else a failure (1). */
  const fail = (message: string, code = 2): never => {
    log.error(message);
    process.exit(code);
  };
  const inputOr1 = (err: unknown, input: boolean): never => fail(err instanceof Error ? err.message : String(err), input ? 2 : 1);
  if (env.ROCELAB_TOPOLOGY === undefined) fail('ROCELAB_TOPOLOGY is not set: expected the path of the topology file');
  if (nodes.length === 0) fail('ROCELAB_NODES (or ROCELAB_NODE) is not set: expected the node names this process hosts');
  if (id === '') fail('ROCELAB_MEMBER is not set: expected a member id when hosting several nodes');
  if (env.ROCELAB_CONTROLLER === undefined) fail('ROCELAB_CONTROLLER is not set: expected the controller URL, e.g. ws://127.0.0.1:7000/control');
  let pod: PodSpec;
  try {
    pod = env.ROCELAB_POD_JSON ? readPodJson(env.ROCELAB_POD_JSON) : loadTopologyFile(env.ROCELAB_TOPOLOGY!);
    // A member that read the file itself (a container) declares the apps' regions as the CLI would: the same code gives the same answer.
    await declareAppRegions(pod);
  } catch (err) {
    return inputOr1(err, err instanceof TopologyError || err instanceof PodJsonError);
  }
  for (const name of nodes) {
    const node = pod.nodes.find((n) => n.name === name);
    if (node === undefined) fail(`${env.ROCELAB_TOPOLOGY}: node ${name} is not in the topology`);
    const ok = expect === 'any' || (expect === 'host' ? node!.role === 'host' : SWITCH_ROLES.includes(node!.role));
    if (!ok) fail(`node ${name} has role ${node!.role}; this service runs ${expect === 'host' ? 'hosts' : 'switches (tor, leaf, spine, switch)'}`);
  }
  const metricsHost = env.ROCELAB_METRICS_HOST ?? '127.0.0.1';
  const metricsPort = Number(env.ROCELAB_METRICS_PORT ?? 0);
  if (!Number.isInteger(metricsPort) || metricsPort < 0 || metricsPort + nodes.length - 1 > 65535) {
    fail(`ROCELAB_METRICS_PORT=${JSON.stringify(env.ROCELAB_METRICS_PORT)}: expected a port number (0 = any)`);
  }
  let recording: RecordingOptions;
  try {
    recording = recordingFromEnv(env);
  } catch (err) {
    return inputOr1(err, err instanceof RunFilesError);
  }
  let token: string;
  let hangTimeoutMs: number;
  try {
    httpLimitsFromEnv(env);
    hangTimeoutMs = hangTimeoutFromEnv(env);
    token = podToken(log, env);
  } catch (err) {
    return inputOr1(err, err instanceof HttpLimitsError || err instanceof LivenessConfigError || err instanceof PodTokenError);
  }
  const connectTimeoutMs = Number(env.ROCELAB_CONNECT_TIMEOUT_MS ?? CONNECT_TIMEOUT_MS);
  if (!Number.isSafeInteger(connectTimeoutMs) || connectTimeoutMs < 0) fail(`ROCELAB_CONNECT_TIMEOUT_MS=${JSON.stringify(env.ROCELAB_CONNECT_TIMEOUT_MS)}: expected a number of milliseconds (0 = one try)`);
  const listenHost = env.ROCELAB_LISTEN_HOST ?? '127.0.0.1';
  const advertiseHost = env.ROCELAB_ADVERTISE_HOST ?? (listenHost === '0.0.0.0' ? '127.0.0.1' : listenHost);
  const member = new MemberProcess({
    pod,
    id,
    nodes,
    controllerUrl: env.ROCELAB_CONTROLLER!,
    token,
    listenHost,
    advertiseHost,
    linkSocketDir: env.ROCELAB_LINK_SOCKET_DIR || null,
    metrics: metricsHost === 'off' ? null : { host: metricsHost, advertiseHost, port: metricsPort },
    connectTimeoutMs,
    hangTimeoutMs,
    log,
    debugUncountedLoss: env.ROCELAB_DEBUG_UNCOUNTED_LOSS ?? null,
    recording,
  });
  const stop = (signal: string) => {
    log.info({ signal }, 'stopping');
    void member.stop().finally(() => process.exit(0));
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  // A member started by `rocelab up`/`run` shares its terminal's process group: Ctrl-C reaches
  // it too, but the parent stops the pod in order (a closing lease, final reports), so the
  // member waits for that, or for its controller connection to close.
  if (env.ROCELAB_MANAGED === '1') process.on('SIGINT', () => log.debug('SIGINT: the parent stops the pod'));
  else process.once('SIGINT', () => stop('SIGINT'));
  try {
    await member.start();
    await member.done;
    await member.stop();
    process.exit(0);
  } catch (err) {
    log.error({ err: err instanceof Error ? err.message : String(err) }, 'member ended with an error');
    // One plain line a person reads in a terminal or `docker logs`, beside the JSON log.
    if (err instanceof ControllerLostError) process.stderr.write(`rocelab member ${id}: ${err.message}; stopping\n`);
    await member.stop().catch(() => undefined);
    process.exit(1);
  }
}

class PodJsonError extends Error {}

/** The resolved pod a local parent wrote (its own, already checked: only its shape is trusted). */
function readPodJson(path: string): PodSpec {
  let pod: unknown;
  try {
    pod = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new PodJsonError(`ROCELAB_POD_JSON=${path}: expected the resolved pod as JSON, got ${err instanceof Error ? err.message : String(err)}`);
  }
  const p = pod as Partial<PodSpec> | null;
  if (p === null || typeof p !== 'object' || typeof p.name !== 'string' || !Array.isArray(p.nodes) || !Array.isArray(p.links)) {
    throw new PodJsonError(`ROCELAB_POD_JSON=${path}: expected the resolved pod as JSON (name, nodes, links), got something else`);
  }
  return p as PodSpec;
}
