/**
 * `rocelab run --mode k8s`.
 *
 * Against a fake API server (fake-apiserver.ts), always: the objects the run sends validate
 * against the Kubernetes schemas, the namespace comes first and is the run's own, the controller
 * is a Pod that ends once, the result is read off its log among log lines, and the namespace is
 * deleted after a result, a controller without one, an image the cluster cannot pull and
 * Ctrl-C — never after a clash with a namespace that was there. Without any API server: the
 * refusals, with exit 2.
 *
 * Against a real cluster, when one is reachable through the default kubeconfig (KUBECONFIG,
 * ~/.kube/config, in-cluster): a small Clos for 1 ms gives the trace hash of `--mode procs`, and
 * its namespace is gone afterwards. The image ROCELAB_K8S_IMAGE (default rocelab:local) must be
 * on the cluster's nodes (docs/multi-machine.md: kind load docker-image …). Without a cluster that test is
 * skipped — unless ROCELAB_REQUIRE_K8S=1, which makes that a failure.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test, type TestContext } from 'node:test';
import { ApiException, CoreV1Api, createConfiguration, KubeConfig, ServerConfiguration, VersionApi } from '@kubernetes/client-node';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Pod, type IPod } from 'kubernetes-models/v1/Pod';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { CLI, cli, cliAsync, ROOT, toolReady } from './harness.js';
import { FakeApiServer, kubeconfigFor, type FakeBehaviour, type FakeObject } from './fake-apiserver.js';

const IMAGE = process.env.ROCELAB_K8S_IMAGE ?? 'rocelab:local';
const PROBE_TIMEOUT_MS = 5000;

const dir = mkdtempSync(join(tmpdir(), 'rocelab-k8s-run-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The small pod of docker.test.ts: 1 spine, 2 leaves, 2 ToRs, 4 hosts, with traffic. */
const small = join(dir, 'small.yaml');
{
  const clos = cli(['topology', 'clos', '--spines', '1', '--leaves-per-pod', '2', '--tors-per-pod', '2', '--pods', '1', '--hosts-per-tor', '2', '--name', 'small', '--seed', '5', '--permutation', '256MB', '--pingmesh', '100us']);
  assert.equal(clos.status, 0, clos.stderr);
  writeFileSync(small, clos.stdout);
}

/** Why no real cluster can be used here, or null. */
let missing: string | null = null;
let core: CoreV1Api | null = null;

before(async () => {
  const kc = new KubeConfig();
  if (!process.env.KUBECONFIG && !existsSync(join(homedir(), '.kube', 'config')) && !existsSync('/var/run/secrets/kubernetes.io/serviceaccount/token')) {
    missing = 'no Kubernetes cluster is configured (KUBECONFIG unset, no ~/.kube/config, not inside a cluster)';
    return;
  }
  try {
    kc.loadFromDefault();
    const server = kc.getCurrentCluster()?.server ?? '(no current cluster)';
    const config = createConfiguration({
      baseServer: new ServerConfiguration(server, {}),
      authMethods: { default: kc },
      promiseMiddleware: [{ pre: async (c) => (c.setSignal(AbortSignal.timeout(PROBE_TIMEOUT_MS)), c), post: async (r) => r }],
    });
    await new VersionApi(config).getCode().catch((err: unknown) => {
      throw new Error(`no Kubernetes cluster is reachable at ${server} through the default kubeconfig (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`);
    });
    core = new CoreV1Api(config);
  } catch (err) {
    missing = err instanceof Error ? err.message : String(err);
  }
});

const needsCluster = (t: TestContext): boolean => toolReady(t, missing, 'ROCELAB_REQUIRE_K8S');

const MODELS: Record<string, new (data: never) => { validate(): void }> = { Namespace, Secret, ConfigMap, Service, Pod };
const envOf = (pod: IPod): Record<string, string> => Object.fromEntries((pod.spec!.containers[0]!.env ?? []).map((e) => [e.name, e.value ?? '']));
const pods = (objects: readonly FakeObject[]) => objects.filter((o) => o.kind === 'Pod') as unknown as IPod[];

const running = { phase: 'Running', containerStatuses: [{ name: 'rocelab', ready: true, restartCount: 0, image: IMAGE, imageID: '', state: { running: {} } }] };
const ended = (exitCode: number) => ({ phase: exitCode === 0 ? 'Succeeded' : 'Failed', containerStatuses: [{ name: 'rocelab', ready: false, restartCount: 0, image: IMAGE, imageID: '', state: { terminated: { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error' } } }] });
const pino = (msg: string) => JSON.stringify({ level: 40, time: 1, name: 'rocelab-controller', msg });

/** A fake cluster for one CLI run of `args` (after the file), with a kubeconfig pointing at it. */
async function withFake(behaviour: FakeBehaviour, args: string[], onPoll?: (poll: number, fake: FakeApiServer, kill: () => void) => void) {
  const fake = new FakeApiServer(behaviour);
  const kubeconfig = join(dir, `kubeconfig-${randomBytes(3).toString('hex')}`);
  writeFileSync(kubeconfig, kubeconfigFor(await fake.listen()));
  try {
    const child = spawn(process.execPath, [CLI, 'run', small, '--mode', 'k8s', '--kubeconfig', kubeconfig, '--duration', '1ms', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    if (onPoll !== undefined) fake.onPoll = (poll) => onPoll(poll, fake, () => child.kill('SIGINT'));
    const status = await new Promise<number>((resolve) => child.once('close', (code) => resolve(code ?? -1)));
    return { fake, status, stdout, stderr };
  } finally {
    await fake.close();
  }
}

test('fake API server: the run creates its namespace first and the objects of a run, reads the result among log lines, and deletes the namespace', async () => {
  const reference = cli(['run', small, '--duration', '1ms', '--json']);
  assert.equal(reference.status, 0, reference.stderr);
  const resultLine = reference.stdout.trim();
  const behaviour: FakeBehaviour = {
    podStatus: (pod, poll) => (pod.metadata.name === 'controller' && poll >= 3 ? ended(0) : running),
    // stdout and stderr interleaved, pino lines before and after the result, as a pod's log is
    controllerLog: [pino('controller listening'), resultLine, pino('pod stopped'), ''].join('\n'),
  };
  const { fake, status, stdout, stderr } = await withFake(behaviour, ['--json', '--image', 'registry.example/rocelab:t1']);
  assert.equal(status, 0, stderr);
  assert.equal(JSON.parse(stdout.trim()).traceHash, reference.json!.traceHash, 'the result is the controller\'s line');
  assert.match(stderr, /controller listening/, 'the controller\'s other log lines go to stderr');
  const namespace = fake.created[0]!;
  assert.equal(namespace.kind, 'Namespace', 'the namespace first');
  assert.match(namespace.metadata.name, /^rocelab-run-small-[0-9a-f]{8}$/);
  for (const obj of fake.created) {
    const Model = MODELS[obj.kind];
    assert.ok(Model !== undefined, `${obj.kind}: not an object a run should create`);
    assert.doesNotThrow(() => new Model(obj as never).validate(), `${obj.kind} ${obj.metadata.name} as the API received it`);
    if (obj !== namespace) assert.equal(obj.metadata.namespace, namespace.metadata.name);
  }
  const all = pods(fake.created);
  const controller = all.find((p) => p.metadata!.name === 'controller')!;
  assert.equal(controller.spec!.restartPolicy, 'Never', 'the controller ends once');
  const service = fake.created.find((o) => o.kind === 'Service' && o.metadata.name === 'controller') as unknown as { spec: { selector: Record<string, string> } };
  for (const [k, v] of Object.entries(service.spec.selector)) assert.equal(controller.metadata!.labels![k], v, 'the controller Service selects the controller Pod');
  const env = envOf(controller);
  assert.equal(env.ROCELAB_DURATION, '1000000000ps');
  assert.equal(env.ROCELAB_SEED, '5', "the topology's seed");
  assert.equal(env.ROCELAB_LOG_LEVEL, 'warn');
  assert.equal(all.length, 10, 'the controller and one pod per node');
  for (const pod of all) {
    assert.equal(pod.spec!.containers[0]!.image, 'registry.example/rocelab:t1');
    assert.equal(pod.spec!.restartPolicy, 'Never', `${pod.metadata!.name}: no restart without --respawn`);
  }
  assert.deepEqual(fake.deleted, [namespace.metadata.name], 'the namespace is deleted');
  assert.equal(fake.namespaces.size, 0);
});

test('fake API server: a controller that ends without a result is an error naming it, with its log tail; --workers and --respawn shape the members', async () => {
  const behaviour: FakeBehaviour = {
    podStatus: (pod, poll) => (pod.metadata.name === 'controller' && poll >= 2 ? ended(1) : running),
    controllerLog: ['starting', pino('controller failed: boom'), 'last words', ''].join('\n'),
  };
  const { fake, status, stderr } = await withFake(behaviour, ['--workers', '2', '--respawn', '--namespace', 'lab-run', '--seed', '9']);
  assert.equal(status, 1, stderr);
  assert.match(stderr, /the controller pod lab-run\/controller ended \(exit 1 \(Error\)\) without a result; its log ends:\n.*starting\n.*boom.*\n.*last words/);
  const members = pods(fake.created).filter((p) => p.metadata!.name !== 'controller');
  assert.deepEqual(members.map((p) => p.metadata!.name), ['w1', 'w2']);
  for (const m of members) assert.equal(m.spec!.restartPolicy, 'OnFailure', 'with --respawn a member comes back and rejoins');
  assert.equal(envOf(pods(fake.created).find((p) => p.metadata!.name === 'controller')!).ROCELAB_SEED, '9');
  assert.deepEqual(fake.deleted, ['lab-run']);
});

test('fake API server: an image the cluster cannot pull fails the run (exit 2) saying how to load it; the namespace is deleted', async () => {
  const behaviour: FakeBehaviour = {
    podStatus: (pod, poll) =>
      pod.metadata.name === 'h3' && poll >= 2 ? { phase: 'Pending', containerStatuses: [{ name: 'rocelab', ready: false, restartCount: 0, image: IMAGE, imageID: '', state: { waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image "rocelab:nope"' } } }] } : running,
    controllerLog: '',
  };
  const { fake, status, stderr } = await withFake(behaviour, ['--image', 'rocelab:nope']);
  assert.equal(status, 2, stderr);
  assert.match(stderr, /pod rocelab-run-small-[0-9a-f]{8}\/h3 cannot get the image rocelab:nope \(ImagePullBackOff: Back-off pulling image "rocelab:nope"\): expected an image the cluster's nodes have or can pull: kind load docker-image rocelab:nope/);
  assert.equal(fake.deleted.length, 1);
  assert.equal(fake.namespaces.size, 0);
});

test('fake API server: a namespace that exists is refused (exit 2) and left alone', async () => {
  const fake = new FakeApiServer({ podStatus: () => running, controllerLog: '' });
  fake.namespaces.add('taken');
  const kubeconfig = join(dir, 'kubeconfig-taken');
  writeFileSync(kubeconfig, kubeconfigFor(await fake.listen()));
  try {
    const run = await cliAsync(['run', small, '--mode', 'k8s', '--kubeconfig', kubeconfig, '--duration', '1ms', '--namespace', 'taken']);
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, /namespace taken already exists on http:\/\/127\.0\.0\.1:\d+: a run creates its own namespace and deletes it afterwards/);
    assert.deepEqual(fake.deleted, [], 'not ours: not deleted');
    assert.ok(fake.namespaces.has('taken'));
    assert.deepEqual(fake.created, [], 'nothing created in it');
  } finally {
    await fake.close();
  }
});

test('fake API server: Ctrl-C while the pod runs deletes the namespace (exit 1)', async () => {
  const behaviour: FakeBehaviour = { podStatus: () => running, controllerLog: '' };
  const { fake, status, stderr } = await withFake(behaviour, [], (poll, _fake, kill) => {
    if (poll === 2) kill();
  });
  assert.equal(status, 1, stderr);
  assert.match(stderr, /interrupted: deleting namespace rocelab-run-small-/);
  assert.equal(fake.deleted.length, 1);
  assert.equal(fake.namespaces.size, 0);
});

test('refusals before any object is created: no cluster answering, a kubeconfig that does not load, options that do not fit the mode', async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve())); // nothing listens there now
  const closed = join(dir, 'kubeconfig-closed');
  writeFileSync(closed, kubeconfigFor(`https://127.0.0.1:${port}`));
  const none = await cliAsync(['run', small, '--mode', 'k8s', '--kubeconfig', closed, '--duration', '1ms']);
  assert.equal(none.status, 2, none.stderr);
  assert.match(none.stderr, new RegExp(`no Kubernetes cluster reachable at https://127\\.0\\.0\\.1:${port} \\(context "fake", from --kubeconfig ${closed.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\): .*ECONNREFUSED.*; expected a kubeconfig whose current context reaches a cluster`));
  const absent = cli(['run', small, '--mode', 'k8s', '--kubeconfig', join(dir, 'nope'), '--duration', '1ms']);
  assert.equal(absent.status, 2);
  assert.match(absent.stderr, /--kubeconfig .*nope: expected a readable kubeconfig .*ENOENT/);
  const empty = join(dir, 'kubeconfig-empty');
  writeFileSync(empty, 'apiVersion: v1\nkind: Config\nclusters: []\n');
  const noContext = cli(['run', small, '--mode', 'k8s', '--kubeconfig', empty, '--duration', '1ms']);
  assert.equal(noContext.status, 2);
  assert.match(noContext.stderr, /expected a current context that names a cluster, got no current context/);
  const cases: Array<[string[], RegExp]> = [
    [['--kubeconfig', empty], /--kubeconfig needs --mode k8s/],
    [['--mode', 'procs', '--namespace', 'x'], /--namespace needs --mode k8s/],
    [['--mode', 'k8s', '--trace', dir], /--trace is not available with --mode k8s/],
    [['--mode', 'k8s', '--pcap', dir], /--pcap is not available with --mode k8s/],
    [['--mode', 'k8s', '--namespace', 'Bad_NS', '--kubeconfig', empty], /--namespace "Bad_NS": expected a DNS-1123 label/],
    [['--mode', 'kube'], /--mode: expected inproc, procs, docker or k8s, got kube/],
  ];
  for (const [args, message] of cases) {
    const run = cli(['run', small, '--duration', '1ms', ...args]);
    assert.equal(run.status, 2, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, message);
  }
});

test('a real cluster: a small Clos for 1 ms gives the trace hash of --mode procs, and its namespace is gone afterwards', { timeout: 20 * 60_000 }, async (t) => {
  if (!needsCluster(t)) return;
  const namespace = `rocelab-run-test-${randomBytes(4).toString('hex')}`;
  // Dilation 10,000: 10 s of wall time, and CPU requests (≈ 0.13 core a member) that a small cluster can schedule.
  const k8s = await cliAsync(['run', small, '--mode', 'k8s', '--duration', '1ms', '--json', '--image', IMAGE, '--namespace', namespace, '--dilation', '10000'], {}, 15 * 60_000);
  assert.equal(k8s.status, 0, k8s.stderr);
  const procs = cli(['run', small, '--mode', 'procs', '--duration', '1ms', '--json']);
  assert.equal(procs.status, 0, procs.stderr);
  assert.equal(k8s.json!.traceHash, procs.json!.traceHash);
  const gone = await core!.readNamespace({ name: namespace }).then(
    () => false,
    (err: unknown) => err instanceof ApiException && err.code === 404,
  );
  assert.ok(gone, `namespace ${namespace} is gone`);
});
