/**
 * @rocelab/deploy — a pod outside the processes of one machine's `rocelab run`: as Docker
 * containers (`--mode docker`, dockerode), as a Swarm stack file (`rocelab stack`), as
 * Kubernetes manifests (`rocelab k8s`, kubernetes-models) and runs on a cluster (`--mode k8s`,
 * @kubernetes/client-node); the settings of the image's one entry point (`rocelab container`);
 * and the token file that local members and containers read. The CLI's commands call it and
 * keep to parsing flags, printing and exit codes.
 *
 * This entry loads no Docker or Kubernetes client, so any command may import it (its errors,
 * the token file); each client loads with the subpath that needs it, when a command runs it:
 *
 * ```ts
 * const { runDockerPod } = await import('@rocelab/deploy/docker');   // dockerode
 * const { k8sYaml } = await import('@rocelab/deploy/k8s');            // kubernetes-models
 * const { runK8sPod } = await import('@rocelab/deploy/k8s-run');      // @kubernetes/client-node
 * ```
 */
export { CONTAINER_ROLES, containerSetup, type ContainerRole } from './container.js';
export { DockerRunError, DockerRunFailure } from './docker-errors.js';
export type { DockerRunOptions } from './docker-pod.js';
export { describeFiles, filesBeside } from './files-beside.js';
export { K8sError, K8sRunError, K8sRunFailure } from './k8s-errors.js';
export type { K8sYamlOptions } from './k8s.js';
export type { K8sRunOptions } from './k8s-pod.js';
export { podNetworkAddress } from './pod-network.js';
export { StackError, stackFile, type StackOptions } from './stack.js';
export { writeTokenFile, type TokenFile } from './token-file.js';
