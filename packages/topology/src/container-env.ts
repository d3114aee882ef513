/**
 * The environment of a rocelab container (`rocelab container`, the image's entry point), shared
 * by everything that starts one: the compose file, `rocelab run --mode docker` and the
 * Kubernetes manifests. What a container runs is said only here, so the three cannot drift.
 */
import type { MemberPlan } from './members.js';

/** The port every node serves /metrics on inside its container (the next nodes of a worker count up), and the controller's. */
export const CONTAINER_METRICS_PORT = 9100;
export const CONTAINER_CONTROLLER_PORT = 7000;

/**
 * Where the token file appears in every container (compose's secret, docker's bind mount, the
 * Kubernetes Secret's volume). The token itself never travels in the environment.
 */
export const CONTAINER_TOKEN_FILE = '/run/secrets/rocelab_pod_token';

/** The image's user (deploy/docker/Dockerfile): files bind-mounted or mounted into a container must be readable by it. */
export const CONTAINER_UID = 10001;

/** Variables every container of a pod has, controller and members alike, in this order. */
export function podContainerEnv(topologyPath: string, controllerHost = 'controller'): Record<string, string> {
  return {
    ROCELAB_TOPOLOGY: topologyPath,
    ROCELAB_CONTROLLER: `ws://${controllerHost}:${CONTAINER_CONTROLLER_PORT}/control`,
    ROCELAB_POD_TOKEN_FILE: CONTAINER_TOKEN_FILE,
  };
}

/**
 * Variables that make a container one member: its role and nodes, and the name the other members
 * reach it by when that is not its one node's name (a worker's id, a Kubernetes pod's FQDN-ish
 * `id.subdomain`).
 */
export function memberContainerEnv(member: MemberPlan, advertiseHost: string = member.id): Record<string, string> {
  if (member.entry === 'worker') {
    return { ROCELAB_ROLE: 'member', ROCELAB_MEMBER: member.id, ROCELAB_NODES: member.nodes.join(','), ROCELAB_ADVERTISE_HOST: advertiseHost };
  }
  const node = member.nodes[0]!;
  return { ROCELAB_ROLE: member.entry, ROCELAB_NODE: node, ...(advertiseHost === node ? {} : { ROCELAB_ADVERTISE_HOST: advertiseHost }) };
}
