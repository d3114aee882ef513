/**
 * How the Kubernetes deployments fail, apart from the code that makes them: the CLI catches
 * these without loading kubernetes-models or @kubernetes/client-node unless it uses them.
 */

/** Bad input for the manifests (`rocelab k8s`): exit 2, docs/errors.md "rocelab k8s". */
export class K8sError extends Error {}

/**
 * A `--mode k8s` run cannot go as asked: no cluster reachable, a kubeconfig that does not load,
 * a namespace that exists already, an image the cluster cannot pull, a topology a ConfigMap
 * cannot carry. Bad input, exit 2, like `--mode docker` without an engine or its image.
 */
export class K8sRunError extends Error {}

/** The run started and failed (no result, too long, interrupted, the API gone): exit 1. */
export class K8sRunFailure extends Error {}
