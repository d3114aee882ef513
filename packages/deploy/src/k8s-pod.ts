/**
 * `rocelab run --mode k8s`: the pod on a Kubernetes cluster, through its API
 * (@kubernetes/client-node). The objects are those `rocelab k8s` prints (podObjects), for one
 * run: a namespace of the run's own, a fresh token, the run's duration and seed, a controller
 * that ends once (k8s-manifests.ts). They are created namespace first; the controller's pod is
 * watched until it ends, within a deadline derived from the duration; the result is the JSON
 * line on its log. Whatever happens — a failed pod, Ctrl-C, an error, the deadline — the
 * namespace the run created is deleted before this returns, and with it every object.
 */
import { randomBytes } from 'node:crypto';
import { ApiException, type KubernetesObject, type V1Pod } from '@kubernetes/client-node';
import type { PodSpec } from '@rocelab/topology';
import type { FaultLogEntry, RunResult } from '@rocelab/runtime';
import { apiMessage, connectCluster, errorText, type Cluster } from './k8s-cluster.js';
import { K8sError, K8sRunError, K8sRunFailure } from './k8s-errors.js';
import { CONTROLLER_NAME, type K8sObject } from './k8s-manifests.js';
import { endOf, hasEnded, imageProblem, logTail, podStates, resultFromLog, runDeadlineMs, runNamespace } from './k8s-run-plan.js';
import { podObjects } from './k8s.js';

export interface K8sRunOptions {
  /** The kubeconfig file, or null: client-node's default loading. */
  kubeconfig: string | null;
  /** The namespace to create (it must not exist), or null: `rocelab-run-POD-RANDOM`. */
  namespace: string | null;
  workers: number | null;
  image: string;
  seed: number;
  durationPs: number;
  dilation: number;
  respawn: boolean;
  resultDetail: boolean;
  replayFaults: readonly FaultLogEntry[];
}

export { K8sRunError, K8sRunFailure };

/** How often the pods' status is read while the run goes on. */
const POLL_MS = 1000;
/** How long the namespace may take to go once deleted before the run stops waiting (it still goes). */
const NAMESPACE_GONE_MS = 120_000;

export async function runK8sPod(pod: PodSpec, file: string, o: K8sRunOptions): Promise<RunResult> {
  const namespace = o.namespace ?? runNamespace(pod.name, randomBytes(4).toString('hex'));
  if (namespace === null) throw new K8sRunError(`${file}: pod name ${JSON.stringify(pod.name)} does not make a namespace (rocelab-run-${pod.name}-…): expected --namespace N, a DNS-1123 label`);
  let objects: K8sObject[];
  try {
    objects = podObjects(file, pod, {
      workers: o.workers,
      namespace,
      token: randomBytes(24).toString('hex'),
      image: o.image,
      dilation: o.dilation,
      duration: `${o.durationPs}ps`,
      podMonitor: false,
      run: { seed: o.seed, respawn: o.respawn, logLevel: process.env.ROCELAB_LOG_LEVEL ?? 'warn', resultDetail: o.resultDetail, replayFaults: o.replayFaults.length > 0 ? JSON.stringify(o.replayFaults) : null },
    }).objects;
  } catch (err) {
    if (err instanceof K8sError) throw new K8sRunError(err.message);
    throw err;
  }
  const cluster = await connectCluster(o.kubeconfig);
  process.stderr.write(`rocelab run --mode k8s: namespace ${namespace} on ${cluster.server} (context ${cluster.context}, Kubernetes ${cluster.version}); deleted when the run ends\n`);
  const deadlineMs = runDeadlineMs(o.durationPs, o.dilation);
  let onInterrupt = (): void => undefined;
  const interrupted = new Promise<never>((_, reject) => {
    onInterrupt = () => reject(new K8sRunFailure(`interrupted: deleting namespace ${namespace}`));
    process.once('SIGINT', onInterrupt);
  });
  interrupted.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new K8sRunFailure(`the pod did not finish within ${Math.round(deadlineMs / 1000)} s of wall time`)), deadlineMs);
  });
  late.catch(() => undefined);
  // Ours to delete: a namespace the API says it created, or one whose create failed in a way
  // that leaves its fate unknown when the name is this run's own (random); never one that clashed.
  let ours = false;
  const watch = new Watch(cluster, namespace, o.image);
  try {
    await Promise.race([
      (async () => {
        const [first, ...rest] = objects.map((obj) => obj.toJSON() as KubernetesObject);
        try {
          await cluster.objects.create(first!);
          ours = true;
        } catch (err) {
          if (err instanceof ApiException && err.code === 409) throw new K8sRunError(`namespace ${namespace} already exists on ${cluster.server}: a run creates its own namespace and deletes it afterwards, so it never uses one that is there; expected another --namespace (or none: a fresh one), or delete it (kubectl delete namespace ${namespace})`);
          ours = o.namespace === null;
          throw refusal(err, `namespace ${namespace}`, cluster);
        }
        for (const obj of rest) {
          await cluster.objects.create(obj).catch((err: unknown) => {
            throw refusal(err, `${obj.kind} ${namespace}/${obj.metadata?.name ?? '?'}`, cluster);
          });
        }
      })(),
      interrupted,
    ]);
    const controller = await Promise.race([watch.untilControllerEnds(), interrupted, late.catch((err: Error) => watch.lateError(err))]);
    const log = await cluster.core.readNamespacedPodLog({ name: CONTROLLER_NAME, namespace }).catch((err: unknown) => {
      throw new K8sRunFailure(`the controller pod ${namespace}/${CONTROLLER_NAME} ended (${endOf(controller)}) but its log could not be read: ${errorText(err)}`);
    });
    const { result, rest } = resultFromLog(log);
    if (rest.length > 0) process.stderr.write(`${rest.join('\n')}\n`);
    if (result === null) throw new K8sRunFailure(`the controller pod ${namespace}/${CONTROLLER_NAME} ended (${endOf(controller)}) without a result; its log ends:\n${logTail(rest)}`);
    return result;
  } finally {
    watch.stop();
    clearTimeout(timer);
    process.removeListener('SIGINT', onInterrupt);
    if (ours) await deleteNamespace(cluster, namespace);
  }
}

/** An API refusal or an unreachable API while creating `what`: bad input (403, 422) or a failure. */
function refusal(err: unknown, what: string, cluster: Cluster): Error {
  if (err instanceof ApiException && (err.code === 401 || err.code === 403)) {
    return new K8sRunError(`${cluster.server} (from ${cluster.source}) refused to create ${what} (HTTP ${err.code}: ${apiMessage(err)}): expected credentials that may create namespaces, and pods, services, secrets and configmaps in them`);
  }
  if (err instanceof ApiException && err.code === 422) return new K8sRunError(`${cluster.server} refused ${what} as invalid (${apiMessage(err)}): expected the cluster to accept what validated against the Kubernetes schemas (is it older than 1.25?)`);
  return new K8sRunFailure(`creating ${what} on ${cluster.server}: ${errorText(err)}`);
}

/** Deletes the run's namespace and waits, bounded, until it is gone. */
async function deleteNamespace(cluster: Cluster, namespace: string): Promise<void> {
  try {
    await cluster.core.deleteNamespace({ name: namespace });
  } catch (err) {
    if (err instanceof ApiException && err.code === 404) return;
    process.stderr.write(`rocelab run --mode k8s: could not delete namespace ${namespace} (${errorText(err)}): delete it with kubectl delete namespace ${namespace}\n`);
    return;
  }
  const until = Date.now() + NAMESPACE_GONE_MS;
  while (Date.now() < until) {
    try {
      await cluster.core.readNamespace({ name: namespace });
    } catch (err) {
      if (err instanceof ApiException && err.code === 404) return;
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  process.stderr.write(`rocelab run --mode k8s: namespace ${namespace} is still terminating after ${NAMESPACE_GONE_MS / 1000} s; it goes by itself (kubectl get namespace ${namespace})\n`);
}

/** The run's pods, read every POLL_MS: the controller's end, an image that will not come, members that fail. */
class Watch {
  private stopped = false;
  private pods: V1Pod[] = [];
  private lastError: unknown = null;
  private readonly reported = new Set<string>();

  constructor(
    private readonly cluster: Cluster,
    private readonly namespace: string,
    private readonly image: string,
  ) {}

  async untilControllerEnds(): Promise<V1Pod> {
    while (!this.stopped) {
      try {
        this.pods = (await this.cluster.core.listNamespacedPod({ namespace: this.namespace })).items;
        this.lastError = null;
      } catch (err) {
        this.lastError = err; // a transient API error: try again until the deadline
      }
      const controller = this.pods.find((p) => p.metadata?.name === CONTROLLER_NAME);
      if (controller !== undefined && hasEnded(controller)) return controller;
      const image = imageProblem(this.pods);
      if (image !== null) {
        throw new K8sRunError(`pod ${this.namespace}/${image.pod} cannot get the image ${this.image} (${image.reason}${image.message ? `: ${image.message}` : ''}): expected an image the cluster's nodes have or can pull: kind load docker-image ${this.image}; k3s: docker save ${this.image} | sudo k3s ctr images import -; a registry: push it and pass --image REGISTRY/rocelab:TAG`);
      }
      this.reportMembers();
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    throw new K8sRunFailure('stopped');
  }

  /** The deadline's error, with what the pods were doing. */
  lateError(err: Error): never {
    const api = this.lastError === null ? '' : `; the last status request failed: ${errorText(this.lastError)}`;
    throw new K8sRunFailure(`${err.message}; pods: ${this.pods.length === 0 ? 'none seen' : podStates(this.pods)}${api}`);
  }

  stop(): void {
    this.stopped = true;
  }

  /** Like `--mode docker`: a member that dies is said once; the controller carries on without it. */
  private reportMembers(): void {
    for (const pod of this.pods) {
      const name = pod.metadata?.name ?? '?';
      if (name === CONTROLLER_NAME || this.reported.has(name)) continue;
      if (pod.status?.phase === 'Failed') {
        this.reported.add(name);
        process.stderr.write(`rocelab: member ${name} pod failed (${endOf(pod)}); the pod carries on without it\n`);
      }
    }
  }
}
