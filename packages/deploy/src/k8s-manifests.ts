/**
 * The Kubernetes manifests of a pod (`rocelab k8s FILE`), as typed objects of kubernetes-models,
 * each validated against the Kubernetes OpenAPI schema (and the PodMonitor against
 * prometheus-operator's CRD schema) before it is printed.
 *
 * One Kubernetes Pod per member, a member being a node (the default) or a worker of `--workers
 * K` (planMembers, as `--mode docker` and `procs` partition): bare Pods with restartPolicy
 * OnFailure, like compose's `restart: on-failure`, because each member has its own environment
 * (its nodes), which a StatefulSet's identical replicas could not carry. A member is reached at
 * `ID.rocelab-nodes` (its hostname under the headless Service, resolvable in the namespace: the
 * link URLs it advertises), the controller at `controller` (a Deployment behind a Service). The
 * topology is a ConfigMap mounted at /pod, the token a Secret mounted where every rocelab
 * container reads it (CONTAINER_TOKEN_FILE), never an environment variable. Members and the
 * controller run the image's one entry point, configured exactly as compose and `--mode docker`
 * configure it (`podContainerEnv`, `memberContainerEnv`).
 *
 * For `rocelab run --mode k8s` (`run` set) the pod runs once: the controller is a bare Pod with
 * restartPolicy Never instead of a Deployment, which would start it again after the result and
 * wait for members that have finished; members do not restart either, unless the run respawns
 * them (then OnFailure: a member that dies comes back and rejoins, as with `--respawn`).
 */
import { posix } from 'node:path';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IContainer } from 'kubernetes-models/v1/Container';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Pod } from 'kubernetes-models/v1/Pod';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { PodMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor';
import { CONTAINER_CONTROLLER_PORT, CONTAINER_METRICS_PORT, CONTAINER_TOKEN_FILE, CONTAINER_UID, memberContainerEnv, podContainerEnv, type MemberPlan } from '@rocelab/topology';
import { isDns1123Label } from './dns-label.js';
import { K8sError } from './k8s-errors.js';
import { processRequests } from './k8s-requests.js';

/** The headless Service whose name is every member's subdomain. */
export const NODES_SERVICE = 'rocelab-nodes';
export const CONTROLLER_NAME = 'controller';
export const TOKEN_SECRET_NAME = 'rocelab-pod-token';
export const TOPOLOGY_CONFIGMAP_NAME = 'rocelab-topology';
/** A ConfigMap holds at most 1 MiB. */
const MAX_CONFIGMAP_BYTES = 1024 * 1024;

export interface K8sOptions {
  /** The topology file as the user named it, and its text (the ConfigMap's content). */
  topologyFile: string;
  topologyText: string;
  token: string;
  namespace: string;
  image: string;
  /** Wall seconds per virtual second of the live pod (the controller's, and the CPU requests'). */
  dilation: number;
  /** The virtual duration as the controller parses it (e.g. 10ms), or null: until stopped. */
  duration: string | null;
  /** Add a prometheus-operator PodMonitor that scrapes every node's port. */
  podMonitor: boolean;
  /** The objects of one run (`rocelab run --mode k8s`) rather than of a pod left to run. */
  run?: K8sRunSettings;
}

/** What a run adds to the controller's environment, and how its members restart. */
export interface K8sRunSettings {
  seed: number;
  /** A member that dies is started again (restartPolicy OnFailure) and rejoins; else Never. */
  respawn: boolean;
  /** ROCELAB_LOG_LEVEL of every container. */
  logLevel: string;
  /** Every node's report in the result. */
  resultDetail: boolean;
  /** ROCELAB_REPLAY_FAULTS: a fault log's live faults as JSON, or null. */
  replayFaults: string | null;
}

/** Anything kubernetes-models builds: validated, then printed from toJSON(). */
export interface K8sObject {
  validate(): void;
  toJSON(): unknown;
}

const MEMBER_LABELS = { 'app.kubernetes.io/name': 'rocelab', 'app.kubernetes.io/component': 'member' };
const CONTROLLER_LABELS = { 'app.kubernetes.io/name': 'rocelab', 'app.kubernetes.io/component': 'controller' };

/** Prometheus' conventional annotations: one port per pod (a worker's first node; the PodMonitor covers all). */
const scrapeAnnotations = (port: number): Record<string, string> => ({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': String(port), 'prometheus.io/path': '/metrics' });

const metricsPortName = (i: number): string => `metrics-${i}`;

export function k8sObjects(podName: string, plans: readonly MemberPlan[], options: K8sOptions): K8sObject[] {
  checkNames(options);
  const namespace = options.namespace;
  const topologyKey = posix.basename(options.topologyFile.split('\\').join('/'));
  const tokenDir = posix.dirname(CONTAINER_TOKEN_FILE);
  const run = options.run ?? null;
  const env = (vars: Record<string, string>) => Object.entries({ ...podContainerEnv(`/pod/${topologyKey}`, CONTROLLER_NAME), ROCELAB_LOG_LEVEL: run?.logLevel ?? 'info', ...vars }).map(([name, value]) => ({ name, value }));
  const podSpec = (container: Omit<IContainer, 'name' | 'image' | 'volumeMounts'>, extra: Partial<IPodSpec>): IPodSpec => ({
    ...extra,
    enableServiceLinks: false, // no CONTROLLER_PORT=tcp://… variables beside the ROCELAB_* ones
    automountServiceAccountToken: false,
    securityContext: { runAsNonRoot: true, runAsUser: CONTAINER_UID, runAsGroup: CONTAINER_UID, fsGroup: CONTAINER_UID },
    containers: [
      {
        name: 'rocelab',
        image: options.image,
        imagePullPolicy: 'IfNotPresent',
        ...container,
        securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
        volumeMounts: [
          { name: 'topology', mountPath: '/pod', readOnly: true },
          { name: 'token', mountPath: tokenDir, readOnly: true },
        ],
      },
    ],
    volumes: [
      { name: 'topology', configMap: { name: TOPOLOGY_CONFIGMAP_NAME } },
      { name: 'token', secret: { secretName: TOKEN_SECRET_NAME, defaultMode: 0o440, items: [{ key: 'token', path: posix.basename(CONTAINER_TOKEN_FILE) }] } },
    ],
  });
  const meta = (name: string, labels: Record<string, string> = { 'app.kubernetes.io/name': 'rocelab' }, annotations?: Record<string, string>) => ({
    name,
    namespace,
    labels,
    annotations: { 'io.rocelab/pod': podName, ...annotations },
  });

  const controllerSpec = (extra: Partial<IPodSpec>): IPodSpec =>
    podSpec(
      {
        env: env({
          ROCELAB_ROLE: 'controller',
          ROCELAB_DILATION: String(options.dilation),
          ...(options.duration === null ? {} : { ROCELAB_DURATION: options.duration }),
          ...(run === null ? {} : { ROCELAB_SEED: String(run.seed), ...(run.resultDetail ? { ROCELAB_RESULT_DETAIL: '1' } : {}), ...(run.replayFaults === null ? {} : { ROCELAB_REPLAY_FAULTS: run.replayFaults }) }),
        }),
        ports: [{ name: 'control', containerPort: CONTAINER_CONTROLLER_PORT }],
        readinessProbe: { httpGet: { path: '/status', port: 'control' }, periodSeconds: 5 },
        resources: { requests: { ...processRequests(0, options.dilation) } },
      },
      extra,
    );
  // A run's controller ends once, with the result on its log; a pod left to run keeps one up.
  const controllerObject = (): K8sObject =>
    run !== null
      ? new Pod({ metadata: meta(CONTROLLER_NAME, CONTROLLER_LABELS, scrapeAnnotations(CONTAINER_CONTROLLER_PORT)), spec: controllerSpec({ restartPolicy: 'Never' }) })
      : new Deployment({
          metadata: meta(CONTROLLER_NAME, CONTROLLER_LABELS),
          spec: {
            replicas: 1,
            strategy: { type: 'Recreate' }, // never two controllers of one pod
            selector: { matchLabels: CONTROLLER_LABELS },
            template: { metadata: { labels: CONTROLLER_LABELS, annotations: scrapeAnnotations(CONTAINER_CONTROLLER_PORT) }, spec: controllerSpec({}) },
          },
        });

  const objects: K8sObject[] = [
    new Namespace({ metadata: { name: namespace, labels: { 'app.kubernetes.io/name': 'rocelab' }, annotations: { 'io.rocelab/pod': podName } } }),
    new Secret({ metadata: meta(TOKEN_SECRET_NAME), type: 'Opaque', stringData: { token: options.token } }),
    new ConfigMap({ metadata: meta(TOPOLOGY_CONFIGMAP_NAME), data: { [topologyKey]: options.topologyText } }),
    new Service({
      metadata: meta(NODES_SERVICE),
      // Headless: no virtual IP, only each member's A record at ID.rocelab-nodes, published before
      // the member is ready so that neighbours starting together find each other.
      spec: { clusterIP: 'None', publishNotReadyAddresses: true, selector: MEMBER_LABELS, ports: [{ name: 'metrics', port: CONTAINER_METRICS_PORT }] },
    }),
    new Service({
      metadata: meta(CONTROLLER_NAME),
      spec: { selector: CONTROLLER_LABELS, ports: [{ name: 'control', port: CONTAINER_CONTROLLER_PORT, targetPort: 'control' }] },
    }),
    controllerObject(),
  ];
  for (const plan of plans) {
    objects.push(
      new Pod({
        metadata: meta(plan.id, { ...MEMBER_LABELS, 'io.rocelab/member': plan.id }, { ...scrapeAnnotations(CONTAINER_METRICS_PORT), 'io.rocelab/nodes': plan.nodes.join(',') }),
        spec: podSpec(
          {
            env: env(memberContainerEnv(plan, `${plan.id}.${NODES_SERVICE}`)),
            ports: plan.nodes.map((_, i) => ({ name: metricsPortName(i), containerPort: CONTAINER_METRICS_PORT + i })),
            resources: { requests: { ...processRequests(plan.nodes.length, options.dilation) } },
          },
          { hostname: plan.id, subdomain: NODES_SERVICE, restartPolicy: run === null || run.respawn ? 'OnFailure' : 'Never' },
        ),
      }),
    );
  }
  if (options.podMonitor) {
    const ports = Math.max(...plans.map((p) => p.nodes.length));
    objects.push(
      new PodMonitor({
        metadata: meta('rocelab'),
        spec: {
          selector: { matchLabels: { 'app.kubernetes.io/name': 'rocelab' } },
          podMetricsEndpoints: ['control', ...Array.from({ length: ports }, (_, i) => metricsPortName(i))].map((port) => ({ port, path: '/metrics' })),
        },
      }),
    );
  }
  for (const object of objects) object.validate();
  return objects;
}

function checkNames(options: K8sOptions): void {
  if (!isDns1123Label(options.namespace)) {
    throw new K8sError(`--namespace ${JSON.stringify(options.namespace)}: expected a DNS-1123 label (at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit)`);
  }
  // Node names need no check: the topology schema allows only DNS-1123 labels, and workers are w1…wK.
  const bytes = Buffer.byteLength(options.topologyText);
  if (bytes > MAX_CONFIGMAP_BYTES) throw new K8sError(`${options.topologyFile}: expected a topology of at most 1 MiB to fit a ConfigMap, got ${bytes} bytes`);
}
