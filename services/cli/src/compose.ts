/**
 * `rocelab compose FILE`: the compose file of a topology on stdout (see @rocelab/topology's
 * compose emitter); `rocelab container`: the entry point of the rocelab image.
 */
import { runControllerMain } from '@rocelab/controller';
import { runMemberMain } from '@rocelab/runtime';
import { ComposeError, composeFile, CONTAINER_CONTROLLER_PORT, CONTAINER_METRICS_PORT, loadTopologyFile } from '@rocelab/topology';

export function composeCommand(file: string): number {
  const pod = loadTopologyFile(file);
  try {
    process.stdout.write(composeFile(pod, { topologyFile: file }));
    return 0;
  } catch (err) {
    if (!(err instanceof ComposeError)) throw err;
    process.stderr.write(`rocelab compose: ${err.message}\n`);
    return 2;
  }
}

const ROLES = ['controller', 'switch', 'host', 'member'] as const;
type ContainerRole = (typeof ROLES)[number];

/**
 * One container of a pod, by ROCELAB_ROLE. Container defaults differ from local processes:
 * listen on every interface, serve /metrics on port 9100, be reached by the service name (the
 * node name) and find the controller at `controller`. Anything set in the environment wins.
 */
export async function containerCommand(): Promise<number> {
  const env = process.env;
  const role = env.ROCELAB_ROLE as ContainerRole | undefined;
  if (role === undefined || !ROLES.includes(role)) {
    process.stderr.write(`rocelab container: ROCELAB_ROLE=${JSON.stringify(env.ROCELAB_ROLE ?? '')}: expected one of ${ROLES.join(', ')}\n`);
    return 2;
  }
  if (role === 'controller') return runControllerMain();
  const nodes = (env.ROCELAB_NODES ?? env.ROCELAB_NODE ?? '').split(',').filter(Boolean);
  env.ROCELAB_LISTEN_HOST ??= '0.0.0.0';
  env.ROCELAB_METRICS_HOST ??= '0.0.0.0';
  env.ROCELAB_METRICS_PORT ??= String(CONTAINER_METRICS_PORT);
  env.ROCELAB_CONTROLLER ??= `ws://controller:${CONTAINER_CONTROLLER_PORT}/control`;
  if (env.ROCELAB_ADVERTISE_HOST === undefined && nodes.length === 1) env.ROCELAB_ADVERTISE_HOST = nodes[0]!;
  if (env.ROCELAB_ADVERTISE_HOST === undefined) {
    process.stderr.write('rocelab container: ROCELAB_ADVERTISE_HOST is not set: expected the name other containers reach this one by (default: the one node it hosts)\n');
    return 2;
  }
  return runMemberMain(role === 'member' ? 'any' : role);
}
