/**
 * How a `--mode k8s` run fails, apart from the code that runs it: `rocelab run` catches these
 * without loading @kubernetes/client-node unless it uses it.
 */

/**
 * The run cannot go as asked: no cluster reachable, a kubeconfig that does not load, a namespace
 * that exists already, an image the cluster cannot pull, a topology a ConfigMap cannot carry.
 * Bad input, exit 2, like `--mode docker` without an engine or its image.
 */
export class K8sRunError extends Error {}

/** The run started and failed (no result, too long, interrupted, the API gone): exit 1. */
export class K8sRunFailure extends Error {}
