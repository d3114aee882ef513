/**
 * `rocelab compose FILE`: the compose file of a topology on stdout (see @rocelab/topology's
 * compose emitter); `rocelab container`: the entry point of the rocelab image.
 */
import { networkInterfaces } from 'node:os';
import { runControllerMain } from '@rocelab/controller';
import { runMemberMain } from '@rocelab/runtime';
import { ComposeError, composeFile, CONTAINER_CONTROLLER_PORT, CONTAINER_METRICS_PORT, loadTopologyFile } from '@rocelab/topology';
import { podNetworkAddress } from './pod-network.js';

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
 * listen on the container's address on the pod network (its one IPv4 address besides
 * loopback; not every interface), serve /metrics on port 9100, be reached by the service name
 * (the node name) and find the controller at `controller`. Anything set in the environment wins.
 */
export async function containerCommand(): Promise<number> {
  const env = process.env;
  const role = env.ROCELAB_ROLE as ContainerRole | undefined;
  if (role === undefined || !ROLES.includes(role)) {
    process.stderr.write(`rocelab container: ROCELAB_ROLE=${JSON.stringify(env.ROCELAB_ROLE ?? '')}: expected one of ${ROLES.join(', ')}\n`);
    return 2;
  }
  const listenVars = role === 'controller' ? ['ROCELAB_CONTROLLER_HOST'] : ['ROCELAB_LISTEN_HOST', 'ROCELAB_METRICS_HOST'];
  if (listenVars.some((name) => env[name] === undefined)) {
    const pod = podNetworkAddress(networkInterfaces(), env.ROCELAB_POD_SUBNET ?? null);
    if ('problem' in pod) {
      process.stderr.write(`rocelab container: ${listenVars.join(' and ')} ${listenVars.length > 1 ? 'are' : 'is'} not set and this container has ${pod.problem}: expected one address on the pod network (ROCELAB_POD_SUBNET names it when the container has several networks), or the address to listen on in ${listenVars.join(' and ')}\n`);
      return 2;
    }
    for (const name of listenVars) env[name] ??= pod.address;
  }
  if (role === 'controller') return runControllerMain();
  const nodes = (env.ROCELAB_NODES ?? env.ROCELAB_NODE ?? '').split(',').filter(Boolean);
  env.ROCELAB_METRICS_PORT ??= String(CONTAINER_METRICS_PORT);
  env.ROCELAB_CONTROLLER ??= `ws://controller:${CONTAINER_CONTROLLER_PORT}/control`;
  if (env.ROCELAB_ADVERTISE_HOST === undefined && nodes.length === 1) env.ROCELAB_ADVERTISE_HOST = nodes[0]!;
  if (env.ROCELAB_ADVERTISE_HOST === undefined) {
    process.stderr.write('rocelab container: ROCELAB_ADVERTISE_HOST is not set: expected the name other containers reach this one by (default: the one node it hosts)\n');
    return 2;
  }
  return runMemberMain(role === 'member' ? 'any' : role);
}
