/**
 * `rocelab k8s`: every object it prints for the default pod and for a 128-host Clos validates
 * against the Kubernetes OpenAPI schemas (kubernetes-models, read back from the printed YAML,
 * not from the emitter's own objects), and the manifests say what the pod needs: one member per
 * node or worker, every advertised name resolvable through the headless Service, the token only
 * in the Secret, the topology in the ConfigMap, scrape annotations, requests that grow with the
 * nodes a worker hosts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Pod, type IPod } from 'kubernetes-models/v1/Pod';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { PodMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor';
import { cli, ROOT } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'rocelab-k8s-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const TOKEN = 'k8s-test-token-0123456789abcdef';
const tokenFile = join(dir, 'token');
writeFileSync(tokenFile, `${TOKEN}\n`);

const MODELS: Record<string, new (data: never) => { validate(): void }> = { Namespace, Secret, ConfigMap, Service, Pod, Deployment, PodMonitor };

interface Manifest {
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: unknown;
}

function manifests(args: string[]): Manifest[] {
  const run = cli(['k8s', ...args, '--token-file', tokenFile]);
  assert.equal(run.status, 0, run.stderr);
  const docs = parseAllDocuments(run.stdout).map((d) => d.toJS() as Manifest | null).filter((d): d is Manifest => d !== null);
  assert.ok(docs.length > 0, 'no documents');
  return docs;
}

/** Every object through its model's schema; a kind without a model is a failure too. */
function validateAll(docs: readonly Manifest[]): void {
  for (const doc of docs) {
    const Model = MODELS[doc.kind];
    assert.ok(Model !== undefined, `${doc.kind} ${doc.metadata.name}: no model to validate it against`);
    assert.doesNotThrow(() => new Model(doc as never).validate(), `${doc.kind} ${doc.metadata.name}`);
  }
}

const members = (docs: readonly Manifest[]) => docs.filter((d) => d.kind === 'Pod') as unknown as IPod[];
const envOf = (pod: IPod): Record<string, string> => Object.fromEntries((pod.spec!.containers[0]!.env ?? []).map((e) => [e.name, e.value ?? '']));
const nodeNames = (file: string): string[] => [...readFileSync(file, 'utf8').matchAll(/\{name: ([^,]+), role:/g)].map((m) => m[1]!);

/** The 128-host Clos of the README's guide docs/multi-machine.md (generated: test/src/compose.test.ts checks it is what its header's command prints). */
const CLOS128 = join(ROOT, 'deploy/pods/clos128.yaml');

test('every object for the default pod validates, one per node, and the pod is wired as the containers expect', () => {
  const file = join(ROOT, 'deploy/pods/default.yaml');
  const docs = manifests([file, '--pod-monitor']);
  validateAll(docs);
  const kinds = docs.map((d) => d.kind).sort();
  assert.deepEqual([...new Set(kinds)], ['ConfigMap', 'Deployment', 'Namespace', 'Pod', 'PodMonitor', 'Secret', 'Service']);
  const pods = members(docs);
  assert.deepEqual(pods.map((p) => envOf(p).ROCELAB_NODE).sort(), nodeNames(file).sort(), 'one Pod per node');
  const headless = docs.find((d) => d.kind === 'Service' && (d.spec as { clusterIP?: string }).clusterIP === 'None');
  assert.ok(headless, 'a headless Service');
  for (const pod of pods) {
    // The name it advertises is HOSTNAME.SUBDOMAIN, which the headless Service of that name resolves.
    assert.equal(envOf(pod).ROCELAB_ADVERTISE_HOST, `${pod.spec!.hostname}.${pod.spec!.subdomain}`);
    assert.equal(pod.spec!.subdomain, headless.metadata.name);
    const selector: Record<string, string> = (headless.spec as { selector: Record<string, string> }).selector;
    for (const [k, v] of Object.entries(selector)) assert.equal(pod.metadata!.labels![k], v, `${pod.metadata!.name} is selected by the headless Service`);
    assert.equal(pod.metadata!.annotations!['prometheus.io/scrape'], 'true');
    assert.equal(pod.metadata!.annotations!['prometheus.io/port'], '9100');
  }
  const controller = docs.find((d) => d.kind === 'Service' && d.metadata.name === 'controller');
  assert.ok(controller, 'the controller Service');
  assert.match(envOf(pods[0]!).ROCELAB_CONTROLLER!, /^ws:\/\/controller:7000\/control$/);
  const namespace = docs.find((d) => d.kind === 'Namespace')!.metadata.name;
  assert.equal(namespace, 'rocelab-default');
  for (const d of docs.filter((d) => d.kind !== 'Namespace')) assert.equal(d.metadata.namespace, namespace, `${d.kind} ${d.metadata.name}`);
});

test('the token is in the Secret and in no container environment; the topology is in the ConfigMap', () => {
  const file = join(ROOT, 'deploy/pods/default.yaml');
  const docs = manifests([file, '--workers', '3']);
  const secret = docs.find((d) => d.kind === 'Secret') as unknown as { stringData: Record<string, string> };
  assert.deepEqual(Object.values(secret.stringData), [TOKEN]);
  const containers = [...members(docs).map((p) => p.spec!), (docs.find((d) => d.kind === 'Deployment') as unknown as { spec: { template: { spec: IPod['spec'] } } }).spec.template.spec!].flatMap((s) => s.containers);
  for (const c of containers) {
    for (const e of c.env ?? []) assert.ok(!(e.value ?? '').includes(TOKEN), `${e.name} carries the token`);
    assert.equal(envOf({ spec: { containers: [c] } } as IPod).ROCELAB_POD_TOKEN_FILE, '/run/secrets/rocelab_pod_token');
    assert.ok(c.volumeMounts!.some((m) => m.mountPath === '/run/secrets'), `${c.name} mounts the token`);
  }
  const configMap = docs.find((d) => d.kind === 'ConfigMap') as unknown as { data: Record<string, string> };
  assert.deepEqual(configMap.data, { 'default.yaml': readFileSync(file, 'utf8') });
  assert.ok(members(docs).every((p) => envOf(p).ROCELAB_TOPOLOGY === '/pod/default.yaml'));
});

test('a 128-host Clos: every object validates; --workers 4 puts every node in exactly one of 4 pods, requests growing with their nodes', () => {
  const file = CLOS128;
  const perNode = manifests([file]);
  validateAll(perNode);
  assert.equal(members(perNode).length, 164);
  const docs = manifests([file, '--workers', '4', '--namespace', 'lab', '--pod-monitor']);
  validateAll(docs);
  const pods = members(docs);
  assert.equal(pods.length, 4);
  const hosted = pods.flatMap((p) => envOf(p).ROCELAB_NODES!.split(','));
  assert.deepEqual(hosted.sort(), nodeNames(file).sort(), 'every node in exactly one worker');
  const mib = (p: IPod) => Number(/^(\d+)Mi$/.exec(String(p.spec!.containers[0]!.resources!.requests!.memory))![1]);
  const single = members(perNode)[0]!;
  for (const pod of pods) {
    const nodes = envOf(pod).ROCELAB_NODES!.split(',').length;
    assert.equal(pod.spec!.containers[0]!.ports!.length, nodes, 'one metrics port per hosted node');
    assert.ok(mib(pod) > mib(single), `${pod.metadata!.name} (${nodes} nodes) requests more than a one-node pod`);
    assert.equal(mib(pod), mib(single) + (nodes - 1), 'one MiB per further node (k8s-requests.ts)');
  }
  const monitor = docs.find((d) => d.kind === 'PodMonitor') as unknown as { spec: { podMetricsEndpoints: Array<{ port: string }> } };
  const widest = Math.max(...pods.map((p) => p.spec!.containers[0]!.ports!.length));
  assert.equal(monitor.spec.podMetricsEndpoints.length, widest + 1, 'the controller and every node port');
});

test('validation is not a formality: a schema violation in a printed object is caught', () => {
  const docs = manifests([join(ROOT, 'deploy/pods/default.yaml')]);
  const pod = structuredClone(members(docs)[0]!) as unknown as { spec: { containers: Array<{ ports: Array<{ containerPort: unknown }> }> } };
  pod.spec.containers[0]!.ports[0]!.containerPort = 'metrics';
  assert.throws(() => validateAll([pod as unknown as Manifest]), /containerPort/);
});

test('refusals: a bad namespace, a pod name that makes none, a missing file, a bad worker count', () => {
  const file = join(ROOT, 'deploy/pods/default.yaml');
  const ns = cli(['k8s', file, '--namespace', 'Lab_1']);
  assert.equal(ns.status, 2);
  assert.match(ns.stderr, /--namespace "Lab_1": expected a DNS-1123 label/);
  const named = join(dir, 'named.yaml');
  writeFileSync(named, readFileSync(file, 'utf8').replace(/^name: default$/m, 'name: Lab_Pod'));
  const derived = cli(['k8s', named]);
  assert.equal(derived.status, 2, derived.stderr);
  assert.match(derived.stderr, /pod name "Lab_Pod" does not make a namespace \(rocelab-Lab_Pod\): expected --namespace N/);
  assert.equal(cli(['k8s', named, '--namespace', 'lab']).status, 0, 'a namespace given is enough');
  const missing = cli(['k8s', join(dir, 'nope.yaml')]);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /expected a readable topology file/);
  const workers = cli(['k8s', file, '--workers', '0']);
  assert.equal(workers.status, 2);
  assert.match(workers.stderr, /expected a worker count/);
});
