/**
 * What `rocelab container`, the image's one entry point, runs: the part ROCELAB_ROLE names, with
 * the defaults of a container, which differ from a local process's. It listens on the
 * container's address on the pod network (its one IPv4 address besides loopback,
 * pod-network.ts; not every interface), serves /metrics on port 9100, is reached by its service
 * name (the node name) and finds the controller at `controller`. Anything set in the
 * environment wins.
 */
import type { NetworkInterfaceInfo } from 'node:os';
import { CONTAINER_CONTROLLER_PORT, CONTAINER_METRICS_PORT } from '@rocelab/topology';
import { podNetworkAddress } from './pod-network.js';

export const CONTAINER_ROLES = ['controller', 'switch', 'host', 'member'] as const;
export type ContainerRole = (typeof CONTAINER_ROLES)[number];

/**
 * The role to run, with the container's defaults written into `env` (the controller's and the
 * member's main read them there), or why the container cannot start (bad input: exit 2).
 * `interfaces` (os.networkInterfaces) is asked only when an address is missing.
 */
export function containerSetup(env: NodeJS.ProcessEnv, interfaces: () => NodeJS.Dict<NetworkInterfaceInfo[]>): { role: ContainerRole } | { problem: string } {
  const role = env.ROCELAB_ROLE as ContainerRole | undefined;
  if (role === undefined || !CONTAINER_ROLES.includes(role)) {
    return { problem: `ROCELAB_ROLE=${JSON.stringify(env.ROCELAB_ROLE ?? '')}: expected one of ${CONTAINER_ROLES.join(', ')}` };
  }
  const listenVars = role === 'controller' ? ['ROCELAB_CONTROLLER_HOST'] : ['ROCELAB_LISTEN_HOST', 'ROCELAB_METRICS_HOST'];
  if (listenVars.some((name) => env[name] === undefined)) {
    const pod = podNetworkAddress(interfaces(), env.ROCELAB_POD_SUBNET ?? null);
    if ('problem' in pod) {
      return {
        problem: `${listenVars.join(' and ')} ${listenVars.length > 1 ? 'are' : 'is'} not set and this container has ${pod.problem}: expected one address on the pod network (ROCELAB_POD_SUBNET names it when the container has several networks), or the address to listen on in ${listenVars.join(' and ')}`,
      };
    }
    for (const name of listenVars) env[name] ??= pod.address;
  }
  if (role === 'controller') return { role };
  const nodes = (env.ROCELAB_NODES ?? env.ROCELAB_NODE ?? '').split(',').filter(Boolean);
  env.ROCELAB_METRICS_PORT ??= String(CONTAINER_METRICS_PORT);
  env.ROCELAB_CONTROLLER ??= `ws://controller:${CONTAINER_CONTROLLER_PORT}/control`;
  if (env.ROCELAB_ADVERTISE_HOST === undefined && nodes.length === 1) env.ROCELAB_ADVERTISE_HOST = nodes[0]!;
  if (env.ROCELAB_ADVERTISE_HOST === undefined) {
    return { problem: 'ROCELAB_ADVERTISE_HOST is not set: expected the name other containers reach this one by (default: the one node it hosts)' };
  }
  return { role };
}
